"""CP201 number-conflict on one estimate of a list whose items each carry a CI (issue 25; the
"Incidence estimates of 13.2 per 100,000 ... both in 2008" misses of build seeds 3, 11, 13, 97,
7019, 424242): "The rate ... for 2006 through 2009 was estimated to be 19.8 (95% CI: ...),
22.5 (95% CI: ...), 19.0 (95% CI: ...), and 19.0 (95% CI: ...) per 100,000 individuals,
respectively". Three readings were missing: the unit printed once after the last interval
belongs to every item; "2006 through 2009" is a list of four years; and where the claim holds
several values of the kind, the one whose words are nearest the list's is the list's. Failed
before."""

from __future__ import annotations

from citeproof.retriever.content_rules import SourceText
from citeproof.retriever.content_rules.source import read_quantities
from citeproof.text.quantities import PERCENT, VALUE
from tests.unit.content_rules_support import conflicts, passage

SURVEILLANCE = SourceText.from_pages(
    [
        "Diagnoses were reported by all state health departments.",
        "The rate of new diagnoses overall for 2011 through 2014 was estimated to be 14.6 "
        "(95% CI: 12.1–17.0), 16.2 (95% CI: 13.8–18.9), 15.1 (95% CI: 12.9–17.4), and 15.4 "
        "(95% CI: 13.0–17.7) per 100,000 residents, respectively.",
        "Rates were highest in the southern states.",
    ]
)
EVIDENCE = [passage(SURVEILLANCE, "The rate", 1)]


def test_the_unit_after_the_last_interval_is_every_items() -> None:
    text = SURVEILLANCE.sentence_text(1)
    values = [q for q in read_quantities(text) if q.role == VALUE and q.kind != "year"]
    assert [(q.kind, q.text) for q in values] == [
        (PERCENT, "14.6"),
        (PERCENT, "16.2"),
        (PERCENT, "15.1"),
        (PERCENT, "15.4"),
    ]


def test_a_changed_estimate_of_a_year_conflicts() -> None:
    claim = (
        "Diagnosis rates of {} per 100,000 were reported for the US and of 9 per 100,000 for "
        "Spain, both in 2013."
    )
    assert conflicts(SURVEILLANCE, claim.format(11.8), EVIDENCE) == [("11.8 per 100,000", "15.1")]
    assert conflicts(SURVEILLANCE, claim.format(15.1), EVIDENCE) == []
