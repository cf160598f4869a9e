"""The calibration error a perfectly calibrated judge would still show on a sample this size
(``citint_score.ece_noise_floor``): the figure that says whether an ECE bar is above sampling
noise at all (docs/judge.md)."""

from __future__ import annotations

import math

import numpy as np

from bench.accuracy.citint_score import ece, ece_noise_floor


def _expected_abs_deviation(n: int, p: float) -> float:
    """E|K/n - p| for K ~ Binomial(n, p), exactly."""
    return sum(math.comb(n, k) * p**k * (1 - p) ** (n - k) * abs(k / n - p) for k in range(n + 1))


def test_floor_of_a_coin_is_the_binomial_mean_absolute_deviation() -> None:
    # 320 verdicts all stated at 0.5: ten bins of 32, each off by |K/32 - 0.5| by chance alone.
    confidence = np.full(320, 0.5)
    floor = ece_noise_floor(confidence, rounds=4000, seed=1)
    assert abs(floor["mean"] - _expected_abs_deviation(32, 0.5)) < 0.003
    assert floor["mean"] < floor["p95"] < 0.2


def test_floor_shrinks_with_the_sample_and_a_miscalibrated_judge_stands_above_it() -> None:
    rng = np.random.default_rng(3)
    small, large = rng.uniform(0.3, 0.9, 300), rng.uniform(0.3, 0.9, 30_000)
    floor_large = ece_noise_floor(large, rounds=200)["mean"]
    assert floor_large < ece_noise_floor(small, rounds=200)["mean"] / 5
    # A judge 0.15 too sure, on a large sample: its ECE is that gap, far above the floor.
    right = rng.random(len(large)) < large - 0.15
    assert ece(large, right) > 0.12 > 10 * floor_large
