"""CP201 number-conflict on a changed year of a claim that lists value-year pairs against a
'respectively' sentence (issue 25, build seed 97: "56,000 (95% CI: ...) in 2003" for the
source's "56,000 (...), 47,800 (...) and 48,100 (...) infected in 2007, 2008 and 2009,
respectively"). The claim's other values placed its year at three places at once; the value in
the year's own clause names the place, and a year's place in the list says what it dates as
words near both would. Failed before."""

from __future__ import annotations

from citeproof.retriever.content_rules import SourceText
from tests.unit.content_rules_support import conflicts, passage

REGISTRY = SourceText.from_pages(
    [
        "New diagnoses were extrapolated to the whole country.",
        "An estimated 31,200 adults were newly infected in 2011 (95% CI: 27,400–35,000), with "
        "a further 34,900 (95% CI: 30,100–39,700), 30,800 (95% CI: 26,900–34,700) and 29,700 "
        "(95% CI: 25,800–33,600) infected in 2012, 2013 and 2014, respectively.",
        "Incidence was stable overall.",
    ]
)
EVIDENCE = [passage(REGISTRY, "An estimated", 1)]
CLAIM = (
    "Yearly estimates were 31,200 (95% CI: 27,400–35,000) in 2011, 34,900 (95% CI: "
    "30,100–39,700) in {}, 30,800 (95% CI: 26,900–34,700) in 2013 and 29,700 (95% CI: "
    "25,800–33,600) in 2014."
)


def test_a_changed_year_of_a_listed_pair_conflicts() -> None:
    assert conflicts(REGISTRY, CLAIM.format(2009), EVIDENCE) == [("2009", "2012")]
    assert conflicts(REGISTRY, CLAIM.format(2012), EVIDENCE) == []
