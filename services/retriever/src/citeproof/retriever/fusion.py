"""Combining the vector and BM25 rankings of the same candidates into one.

Both functions take one score array per signal over the SAME candidate list (NaN = this signal
did not rank the candidate) and return one fused score per candidate, higher is better.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def ranks(scores: np.ndarray) -> np.ndarray:
    """1-based rank of each candidate under `scores` (NaN -> unranked: +inf)."""
    order = np.argsort(np.where(np.isnan(scores), np.inf, -scores), kind="stable")
    result = np.empty(len(scores))
    result[order] = np.arange(1, len(scores) + 1)
    result[np.isnan(scores)] = np.inf
    return result


def reciprocal_rank_fusion(signals: Sequence[np.ndarray], k: int) -> np.ndarray:
    """Cormack, Clarke & Büttcher (2009): sum of 1/(k + rank) over the signals."""
    fused = np.zeros(len(signals[0]))
    for scores in signals:
        fused += 1.0 / (k + ranks(scores))
    return fused


def min_max(scores: np.ndarray) -> np.ndarray:
    """Scale to [0, 1] over the ranked candidates; unranked ones get 0."""
    ranked = ~np.isnan(scores)
    out = np.zeros(len(scores))
    if not ranked.any():
        return out
    low, high = scores[ranked].min(), scores[ranked].max()
    out[ranked] = 1.0 if high == low else (scores[ranked] - low) / (high - low)
    return out


def weighted_fusion(signals: Sequence[np.ndarray], weights: Sequence[float]) -> np.ndarray:
    """Convex combination of min-max normalised scores."""
    fused = np.zeros(len(signals[0]))
    for scores, weight in zip(signals, weights, strict=True):
        fused += weight * min_max(scores)
    return fused


def fuse(
    signals: Sequence[np.ndarray], *, method: str, rrf_k: int, vector_weight: float
) -> np.ndarray:
    """`signals` is (vector, bm25) or a single signal (one-method baselines)."""
    if len(signals) == 1:
        return np.nan_to_num(signals[0], nan=-np.inf)
    if method == "rrf":
        return reciprocal_rank_fusion(signals, rrf_k)
    return weighted_fusion(signals, (vector_weight, 1.0 - vector_weight))
