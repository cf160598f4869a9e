"""The report's headline never reassures beyond what was checked, and its risk order puts the
doubtful citations first."""

from __future__ import annotations

import itertools

import pytest

from citeproof.api.reports import risk
from citeproof.pipeline import (
    ERROR,
    INFO,
    JUDGE_ERROR,
    LIKELY_FINE,
    LIKELY_PROBLEM,
    NEEDS_REVIEW,
    NOT_CHECKABLE,
    REFERENCE_MISSING,
    SOURCE_MISSING,
    SUPPORTED,
    UNCERTAIN,
    UNJUDGED,
    VERDICT_LABELS,
    WARNING,
)

NONE_FOUND = {ERROR: 0, WARNING: 0, INFO: 0}


def _bands(labels):
    return [risk.LABEL_BANDS.get(label) if label else None for label in labels]


def test_the_sample_with_14_undecided_of_16_does_not_read_as_fine():
    """The report that opened with "No citation among 16 was found contradicted or unsupported"
    while 14 of 16 were undecided."""
    labels = [NEEDS_REVIEW] * 14 + [SOURCE_MISSING] * 2
    line = risk.headline(labels, _bands(labels), NONE_FOUND, "completed", completed=True)
    assert line == (
        "No error or warning found; of 14 citations the judge read, none is a likely problem "
        "and 14 uncertain; 2 of 16 could not be checked (2 without an uploaded source)."
    )


def test_found_uncertain_and_unchecked_are_each_stated():
    labels = [SUPPORTED, NEEDS_REVIEW, SOURCE_MISSING, REFERENCE_MISSING, JUDGE_ERROR, None]
    bands = [LIKELY_PROBLEM, UNCERTAIN, None, None, None, None]
    line = risk.headline(labels, bands, {ERROR: 1, WARNING: 3, INFO: 2}, "judging", False)
    assert line == (
        "Run judging, results so far: 1 error and 3 warnings found; of 2 citations the judge "
        "read, 1 is a likely problem and 1 uncertain; 4 of 6 could not be checked (1 without "
        "an uploaded source, 1 without a reference-list entry, 1 where the judge failed and 1 "
        "not judged yet)."
    )


def test_nothing_judged_and_no_citations():
    labels = [SOURCE_MISSING, SOURCE_MISSING, NOT_CHECKABLE]
    line = risk.headline(labels, [None] * 3, NONE_FOUND, "completed", completed=True)
    assert line == (
        "No error or warning found; the judge read none of the 3 citations (2 without an "
        "uploaded source and 1 without a claim to check)."
    )
    assert risk.headline([], [], {ERROR: 2}, "completed", completed=True) == (
        "2 errors found; no citation was found in the text, so none was checked."
    )


@pytest.mark.parametrize("size", [1, 2, 3])
def test_every_unchecked_citation_is_mentioned(size):
    """Whatever the mix, the citations without a band are counted in the sentence."""
    for labels in itertools.product([*VERDICT_LABELS, None], repeat=size):
        bands = _bands(labels)
        line = risk.headline(list(labels), bands, NONE_FOUND, "completed", completed=True)
        unchecked = sum(band is None for band in bands)
        if unchecked == len(labels):
            assert f"the judge read none of the {len(labels)} citation" in line, line
        elif unchecked:
            assert f"{unchecked} of {len(labels)} could not be checked" in line, line
        else:
            assert "could not be checked" not in line, line
        assert line.endswith(".") and line.count(".") == 1, line


def test_band_counts_name_every_band_and_the_unjudged():
    assert risk.count_bands([LIKELY_FINE, None, LIKELY_FINE]) == {
        LIKELY_PROBLEM: 0,
        UNCERTAIN: 0,
        LIKELY_FINE: 2,
        UNJUDGED: 1,
    }
