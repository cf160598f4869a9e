"""Risk bands and the probability of a problem: one assignment for every backend, limits from
the backend (the local model file, or fixed for label-and-confidence verdicts)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citeproof.contracts.judging import Verdict
from citeproof.judge.bands import (
    LABEL_BANDS,
    UNDECIDED_PROBLEM_PROBABILITY,
    BandLimits,
    band_of,
    banded_by_label,
    label_problem_probability,
)
from citeproof.pipeline import (
    BANDS,
    CONTRADICTED,
    LIKELY_FINE,
    LIKELY_PROBLEM,
    NEEDS_REVIEW,
    PARTIALLY_SUPPORTED,
    SUPPORTED,
    UNCERTAIN,
    UNSUPPORTED,
)

LIMITS = BandLimits(problem_at=0.55, fine_below=0.2)


def test_band_edges() -> None:
    assert band_of(0.55, LIMITS) == LIKELY_PROBLEM  # the limit itself is a likely problem
    assert band_of(0.5499, LIMITS) == UNCERTAIN
    assert band_of(0.2, LIMITS) == UNCERTAIN  # fine is strictly below its limit
    assert band_of(0.1999, LIMITS) == LIKELY_FINE
    assert band_of(1.0, LIMITS) == LIKELY_PROBLEM
    assert band_of(0.0, LIMITS) == LIKELY_FINE


@given(st.floats(0.0, 1.0), st.floats(0.0, 1.0))
def test_a_higher_problem_probability_never_lands_in_a_safer_band(a: float, b: float) -> None:
    low, high = sorted((a, b))
    assert BANDS.index(band_of(high, LIMITS)) <= BANDS.index(band_of(low, LIMITS))


def test_label_and_confidence_give_a_problem_probability() -> None:
    assert label_problem_probability(SUPPORTED, 0.9) == pytest.approx(0.1)
    # A definite problem label at confidence c leaves (1 - c) / 3 to `supported`.
    assert label_problem_probability(CONTRADICTED, 0.7) == pytest.approx(0.9)
    assert label_problem_probability(UNSUPPORTED, 0.0) == pytest.approx(2 / 3, abs=1e-4)
    assert label_problem_probability(PARTIALLY_SUPPORTED, 1.0) == pytest.approx(1.0)
    assert label_problem_probability(NEEDS_REVIEW, 0.3) == UNDECIDED_PROBLEM_PROBABILITY
    # Out-of-range confidences are clamped, never produce a probability outside 0..1.
    assert label_problem_probability(SUPPORTED, 1.7) == 0.0


def test_label_bands_put_every_problem_label_in_likely_problem() -> None:
    for label in (CONTRADICTED, UNSUPPORTED, PARTIALLY_SUPPORTED):
        for confidence in (0.0, 0.5, 1.0):
            probability = label_problem_probability(label, confidence)
            assert band_of(probability, LABEL_BANDS) == LIKELY_PROBLEM
    assert band_of(label_problem_probability(SUPPORTED, 0.9), LABEL_BANDS) == LIKELY_FINE
    assert band_of(label_problem_probability(SUPPORTED, 0.6), LABEL_BANDS) == UNCERTAIN
    assert band_of(label_problem_probability(NEEDS_REVIEW, 0.9), LABEL_BANDS) == UNCERTAIN


def test_banded_by_label_fills_both_fields() -> None:
    verdict = Verdict(
        label=SUPPORTED, confidence=0.8, rationale="r", quote=None, quote_page=None,
        backend="llm", model="m", prompt_version="v", latency_ms=1.0, prompt_tokens=1,
        completion_tokens=1,
    )  # fmt: skip
    banded = banded_by_label(verdict)
    assert banded.problem_probability == pytest.approx(0.2)
    assert banded.band == LIKELY_FINE  # `supported` stated at 0.8: 0.2 is below 0.25
    assert verdict.band is None  # the original is untouched
