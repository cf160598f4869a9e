"""CP201 number-conflict on a total change against an annual one (issue 25, false alarm of the
build seeds 13, 97, 7019): "a 21% increase in incidence among people aged 13-29 years" was
paired with the source's "(EAPC = 8.1%, ...)". An estimated annual percent change ("EAPC =
8.1%", "12.2% annually", "an annual increase of 3%") is a rate per year, another quantity than
the increase over a period; the content rules mark it (`source.ANNUAL_CHANGE`) and compare it
only with another annual change. Failed before."""

from __future__ import annotations

from citeproof.retriever.content_rules import SourceText
from citeproof.retriever.content_rules.source import ANNUAL_CHANGE, read_quantities
from tests.unit.content_rules_support import conflicts, passage

TREND = SourceText.from_pages(
    [
        "Incidence was estimated from surveillance of new diagnoses in 40 states.",
        "Although new infections rose significantly from 2010 to 2014 (29%, 95% CI: 6.1%-52.0%) "
        "among young women overall (EAPC = 6.6%, 95% CI: 1.5%-11.9%), the only significant rise "
        "in any subgroup was among young rural women (41%, 95% CI: 10.2%-71.9%), with EAPC 9.4% "
        "(95% CI: 2.8%-16.3%).",
        "Other groups showed no significant trend.",
    ]
)
EVIDENCE = [passage(TREND, "Although", 1)]


def test_an_annual_percent_change_is_marked() -> None:
    for text in ("(EAPC = 6.6%, 95% CI", "by 9.4% annually", "an APC of 2.5% was", "3% per year"):
        [change] = [q for q in read_quantities(text) if q.role == "value"]
        assert change.subtype == ANNUAL_CHANGE, text
    [total] = read_quantities("a 29% increase")
    assert total.subtype is None


def test_a_total_increase_is_no_wrong_copy_of_an_annual_change() -> None:
    claim = (
        "From 2010 to 2014 incidence was stable overall, but there was a 17% increase in "
        "incidence among people aged 15-24 years, driven by a 29% increase among young women "
        "and a 41% increase among young rural women."
    )
    assert conflicts(TREND, claim, EVIDENCE) == []
    claim = "New infections among young women rose by {}% a year (EAPC) from 2010 to 2014."
    assert conflicts(TREND, claim.format(4.6), EVIDENCE) == [("4.6%", "6.6%")]
