"""CP201 number-conflict on a changed day ("on day 9 post infection" for the source's "day 7",
issue 25, rule 2; two of the misses seed 424242 reported, Citation-Integrity train text). The
number after "day" was a label ("Figure 2", "type 1") and never compared; the content rules now
read it as the time point it is (`source.read_quantities`). Failed before."""

from __future__ import annotations

from citeproof.retriever.content_rules import SourceText
from citeproof.retriever.content_rules.source import read_quantities
from citeproof.text.quantities import DURATION
from tests.unit.content_rules_support import conflicts as source_conflicts

FERRETS = SourceText.from_pages(
    [
        "Questionnaires covered symptoms, treatment and the use of health services.",
        "Transcription of cytokines and chemokines continued to expand and included CCL2, CCL8, "
        "and CXCL9, among others (Figure 3B; Table S3). Nasal washes were collected from "
        "anesthetized ferrets challenged with influenza A/California/04/2009 (pH1N1) virus on "
        "day 7 post infection and preserved at -80°C. Trachea were collected from euthanized "
        "ferrets challenged with influenza A/Texas/71/2017 (H3N2) virus on day 3 post infection "
        "and preserved at -80°C.",
    ]
)


def conflicts(claim: str) -> list[tuple[str, str]]:
    return source_conflicts(FERRETS, claim)


def test_a_changed_day_conflicts_with_the_day_the_source_names() -> None:
    [day] = read_quantities("collected on day 7 post infection")
    assert (day.kind, day.value) == (DURATION, 7.0)
    claim = "Nasal washes were collected from challenged ferrets on day 9 post infection."
    assert conflicts(claim) == [("9", "7")]
    assert conflicts(claim.replace("day 9", "day 7")) == []
    # Both days as the source gives them, in one claim.
    both = "Nasal washes were collected on day 7 post infection, trachea on day 3 post infection."
    assert conflicts(both) == []
