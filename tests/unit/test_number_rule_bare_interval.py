"""CP201 number-conflict on a confidence interval whose estimate the claim does not hold (issue
25, false alarm of build seed 424242): a claim cut from the middle of a sentence, "rate of
documented infections (95% CI: 46-62%), yet, because of their greater numbers, undocumented",
was read as stating the value 46-62% and conflicted with the source's "79%". A range right after
a CI label is the interval around an estimate (`SPREAD`), no value of its own. Failed before."""

from __future__ import annotations

from citeproof.retriever.content_rules import SourceText
from citeproof.retriever.content_rules.source import read_quantities
from citeproof.text.quantities import SPREAD, VALUE
from tests.unit.content_rules_support import conflicts, passage

SPREAD_MODEL = SourceText.from_pages(
    [
        "We fitted a metapopulation model to daily case reports from 375 cities.",
        "Each unreported infection passed on the virus at 47% the rate of a reported one "
        "(95% CI: 38-59%), yet, being so many, unreported infections seeded 71% of the reported "
        "cases.",
        "Travel restrictions slowed the spread only briefly.",
    ]
)
EVIDENCE = [passage(SPREAD_MODEL, "Each unreported", 1)]


def test_a_range_after_a_ci_label_is_an_interval() -> None:
    for text in ("the rate (95% CI: 38-59%), yet", "the rate (CI 38-59%)", "(95% UI 1.0-2.4)"):
        [interval] = [q for q in read_quantities(text) if q.low is not None]
        assert interval.role == SPREAD, text
    [estimate] = [q for q in read_quantities("47% (95% CI: 38-59%)") if q.role == VALUE]
    assert (estimate.value, estimate.ci) == (47.0, (38.0, 59.0))
    [plain] = read_quantities("between 38-59% of cases")
    assert plain.role == VALUE


def test_an_interval_without_its_estimate_is_no_conflict() -> None:
    claim = (
        "rate of a reported one (95% CI: 38-59%), yet, being so many, unreported infections seeded"
    )
    assert conflicts(SPREAD_MODEL, claim, EVIDENCE) == []
    claim = "Unreported infections seeded {}% of the reported cases."
    assert conflicts(SPREAD_MODEL, claim.format(17), EVIDENCE) == [("17%", "71%")]
