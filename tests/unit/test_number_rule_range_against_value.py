"""CP201 number-conflict on a range against a single value (issue 25, false alarm of build seed
7019): "the prevalence of depression is high (approximately 11-15%) worldwide" conflicted with
another section's "higher by approximately 1.4% new infections". A copying slip changes one
number: a range that keeps neither of a single value's digits is a figure of its own, not a
wrong copy of it (as two ranges agreeing at neither end are). Failed before."""

from __future__ import annotations

from citeproof.retriever.content_rules import SourceText
from tests.unit.content_rules_support import conflicts, passage

SURVEY = SourceText.from_pages(
    [
        "Depression is a leading cause of disability in every region of the world.",
        "Data on its prevalence are lacking for most low-income countries.",
        "Had the sample been reweighted, the prevalence estimate for 2010 would have been higher "
        "by approximately 1.4%.",
    ]
)
EVIDENCE = [passage(SURVEY, "leading cause", 1)]


def test_a_range_is_no_wrong_copy_of_a_single_value() -> None:
    claim = "The prevalence of depression is high (approximately 11-15%) in every region."
    assert conflicts(SURVEY, claim, EVIDENCE) == []
