"""CP201 number-conflict false alarms on untouched citations (issue 25), found with the offline
evaluator (`bench.findings.number_offline`) on build seeds and Citation-Integrity train; each
test failed before its fix:
- a claim stating figures more precise than the source's ("7.76% vs. 13.79%" against the
  source's "13% ... vs. 23%"): a wrong copy never adds decimals, the writer has them from
  elsewhere (the study's own tables, a computation);
- the day of a date ("a July 21 report") against a count ("for 7 sites"): a day of the month is
  compared only with days of the month;
- an interval ("examined every three days") against a time point ("after 16 days")."""

from __future__ import annotations

from citeproof.retriever.content_rules import SourceText
from citeproof.retriever.content_rules.source import DAY_OF_MONTH, INTERVAL, read_quantities
from tests.unit.content_rules_support import conflicts, passage


def test_figures_more_precise_than_the_sources_are_the_writers_own() -> None:
    source = SourceText.from_pages(
        [
            "The incidence of new mechanical ventilation or ECMO use among the 766 patients who "
            "were not receiving these interventions at enrollment was lower in the remdesivir "
            "group than in the placebo group (13% [95% CI, 10 to 17] vs. 23% [95% CI, 19 to 27])."
        ]
    )
    claim = (
        "The probability of needing mechanical ventilation or ECMO was lower in patients "
        "treated with remdesivir than in the placebo group (7.76% vs. 13.79%)."
    )
    evidence = [passage(source, "incidence of new", 1)]
    assert conflicts(source, claim, evidence) == []
    # A changed figure of the source's precision still conflicts.
    changed = claim.replace("(7.76% vs. 13.79%)", "(13% vs. 32%)")
    assert conflicts(source, changed, evidence) == [("32%", "23%")]


def test_the_day_of_a_date_is_compared_only_with_days_of_the_month() -> None:
    days = [q for q in read_quantities("In a July 21 report, and on 28 May 2020") if q.value < 100]
    assert [(q.kind, q.value) for q in days] == [(DAY_OF_MONTH, 21.0), (DAY_OF_MONTH, 28.0)]
    source = SourceText.from_pages(
        [
            "The estimated number of infections ranged from 6 to 24 times the number of "
            "reported cases; for 7 sites (Connecticut, Florida, Louisiana, Missouri, New York "
            "City metro area, Utah, and western Washington State), an estimated greater than 10 "
            "times more SARS-CoV-2 infections occurred than the number of reported cases."
        ]
    )
    claim = (
        "In a July 21 report in JAMA Internal Medicine, the response team estimated that nine "
        "out of 10 infections are not being identified in places as diverse as Florida, New "
        "York City and Utah."
    )
    assert conflicts(source, claim, [passage(source, "estimated number", 1)]) == []
    dated = SourceText.from_pages(["The serum was collected from March 23 through May 12, 2020."])
    assert conflicts(dated, "The serum was collected from March 23 through May 21, 2020.") == [
        ("21", "12")
    ]


def test_an_interval_is_no_time_point() -> None:
    [every] = read_quantities("examined every three days")
    assert every.kind == INTERVAL
    source = SourceText.from_pages(
        [
            "Tumor volumes were measured (0.5 × length × width2) and after 16 days, the mice "
            "were sacrificed and tumor weights were measured."
        ]
    )
    claim = (
        "The subcutaneous growth of tumor was examined every three days, and tumor volumes "
        "were calculated using the equation V = 0.5 × D × d2."
    )
    assert conflicts(source, claim, [passage(source, "Tumor volumes", 1)]) == []
    assert conflicts(source, "The mice were sacrificed after 61 days.") == [("61 days", "16 days")]
