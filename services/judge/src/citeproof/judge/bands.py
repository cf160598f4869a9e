"""Risk bands: where a judged citation stands by the probability that it is not supported as
written (``Verdict.problem_probability``). One function for every backend; the limits are the
backend's own (the local judge's are fitted on training folds and ship in its model file; the
``llm`` backend's are fixed below, because an LLM's stated confidence is not calibrated).
"""

from __future__ import annotations

from typing import Final

import msgspec

from citeproof.contracts.judging import Verdict
from citeproof.pipeline import (
    LIKELY_FINE,
    LIKELY_PROBLEM,
    NEEDS_REVIEW,
    SUPPORTED,
    UNCERTAIN,
)


class BandLimits(msgspec.Struct, frozen=True, kw_only=True):
    """Where the risk bands start, in the probability that a citation is not supported as
    written: ``likely_problem`` at or above ``problem_at``, ``likely_fine`` below ``fine_below``,
    ``uncertain`` between."""

    problem_at: float
    fine_below: float


# An LLM's verdict carries a label and a stated confidence, not a probability for every label.
# Its problem probability is read from them (``label_problem_probability``) and banded with these
# limits: any definite label but `supported` is a likely problem (its problem probability is at
# least 2/3), a `supported` stated at 0.75 or more is likely fine, the rest uncertain.
LABEL_BANDS: Final = BandLimits(problem_at=0.6, fine_below=0.25)
# Of the probability an LLM's label leaves to the other three labels, the share taken to be
# `supported`'s: an even split, for want of the model's own numbers.
LLM_SUPPORTED_SHARE_OF_REST: Final = 1 / 3
# What an undecided LLM verdict (needs_review) says about the citation: nothing either way.
UNDECIDED_PROBLEM_PROBABILITY: Final = 0.5


def band_of(problem_probability: float, limits: BandLimits) -> str:
    """The risk band of a citation with this probability of a problem."""
    if problem_probability >= limits.problem_at:
        return LIKELY_PROBLEM
    if problem_probability < limits.fine_below:
        return LIKELY_FINE
    return UNCERTAIN


def label_problem_probability(label: str, confidence: float) -> float:
    """P(not supported as written) from an LLM's label and stated confidence c: ``supported``
    leaves 1 - c for a problem; any other definite label (unsupported, partially_supported,
    contradicted: all problems) is one with probability c, and of the 1 - c left to the other
    labels a third is taken to be `supported`'s; needs_review says nothing (0.5)."""
    confidence = min(max(confidence, 0.0), 1.0)
    if label == SUPPORTED:
        return round(1.0 - confidence, 4)
    if label == NEEDS_REVIEW:
        return UNDECIDED_PROBLEM_PROBABILITY
    return round(1.0 - (1.0 - confidence) * LLM_SUPPORTED_SHARE_OF_REST, 4)


def banded_by_label(verdict: Verdict) -> Verdict:
    """The verdict with the problem probability and band read from its label and confidence
    (``label_problem_probability``, ``LABEL_BANDS``): for backends and verdicts that state a
    label and a confidence only (the ``llm`` backend, no evidence at all)."""
    probability = label_problem_probability(verdict.label, verdict.confidence)
    return msgspec.structs.replace(
        verdict, problem_probability=probability, band=band_of(probability, LABEL_BANDS)
    )
