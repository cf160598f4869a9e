"""CP201 number-conflict on a changed age bound ("those 58 and older" for the source's "aged ≥85
years", issue 25; misses of the build seeds 3, 11, 7019, 97). The shared reading took "58 and
older" for a count of 58 things: only "or older" bounded a number, and a bare number bounded by
an age was no age. "N and older/over/above" now bounds like "N or older", and a bare number
bounded by "older" or "younger" is an age in years. Failed before."""

from __future__ import annotations

from citeproof.retriever.content_rules import SourceText
from citeproof.text.quantities import COUNT, DURATION, EXACT, LOWER, UPPER, extract_quantities
from tests.unit.content_rules_support import conflicts, passage

SURVEILLANCE = SourceText.from_pages(
    [
        "Surveillance data were collected from all reporting states.",
        "In all, 28% of cases, 41% of hospital admissions and 77% of deaths were among adults "
        "aged ≥65 years, with the highest share of severe outcomes among persons aged ≥85 years.",
        "Younger adults rarely needed intensive care.",
    ]
)
EVIDENCE = [passage(SURVEILLANCE, "In all", 1)]


def test_a_number_and_older_is_an_age_bound() -> None:
    [older] = extract_quantities("most severe for those 58 and older")
    assert (older.kind, older.bound, older.value) == (DURATION, LOWER, 58 * 365.25)
    [younger] = extract_quantities("children 12 or younger were excluded")
    assert (younger.kind, younger.bound) == (DURATION, UPPER)
    [over] = extract_quantities("teams of 10 and over were split")
    assert (over.kind, over.bound) == (COUNT, LOWER)
    # "and more" may open a phrase of its own: no bound.
    [three] = extract_quantities("with 3 and more severe comorbidities")
    assert (three.kind, three.bound) == (COUNT, EXACT)


def test_a_changed_age_bound_conflicts() -> None:
    claim = (
        "Federal data show that the risk of dying from the disease rises from about age 50 and "
        "is most severe for those {} and older."
    )
    assert conflicts(SURVEILLANCE, claim.format(58), EVIDENCE) == [("58", "≥85 years")]
    assert conflicts(SURVEILLANCE, claim.format(85), EVIDENCE) == []
