"""The seeded findings benchmark's number-changed citations (issue 25, rule 2) change a number
the source states as the claim's quantity. Found classifying CP201's misses on build seeds 3, 11
and 97, where the generator changed what is no such number (each test failed before):
- a number the claim's evidence sentences do not hold, which another sentence of the document
  prints about something else ("(0, 3, and 6 months after)" for a "6" of a figure label);
- a name ("coronavirus disease 2019", "coronavirus 2", "herpes simplex virus type 2") or the
  exponent of a power of ten whose superscript the data set's text lost ("1×109 cells" for
  1×10^9);
- a new value the source states after all, written otherwise ("2.0" for "0.2" where the source
  has "an MOI of 0.2 or 2")."""

from __future__ import annotations

import random
from types import SimpleNamespace

from citeproof.devkit.seeded.compose import Composer, _names, _numerals, changed_numeral


def test_names_and_lost_exponents_are_not_changed() -> None:
    def named(text: str) -> dict[str, bool]:
        return {match.group(1): _names(text, match) for match in _numerals(text)}

    assert named("in heart regeneration, 1×109 cardiomyocytes are needed") == {
        "1": False,
        "109": True,
    }
    assert named("coronavirus disease 2019 (COVID-19) illness") == {"2019": True}
    assert named("herpes simplex virus type 2 and influenza") == {"2": True}
    assert named("severe acute respiratory syndrome coronavirus 2 (SARS-CoV-2)") == {"2": True}
    assert named("Figure 6 shows 24 h after 3 days") == {"6": True, "24": False, "3": False}


def test_a_changed_value_is_no_value_the_source_states() -> None:
    stated = {"0.2", "2", "24"}
    for seed in range(200):
        changed = changed_numeral("0.2", random.Random(seed), stated)
        assert changed is None or float(changed[0]) not in (0.2, 2.0, 24.0), changed


def _cite(text: str, evidence: tuple[int, ...], own: int) -> SimpleNamespace:
    return SimpleNamespace(
        text=text,
        evidence=evidence,
        work=SimpleNamespace(source=SimpleNamespace(own=own)),
        extra={},
        marker_at=None,
        variant=None,
        detail="",
    )


def test_only_a_number_of_the_claims_evidence_is_changed() -> None:
    sentences = [
        "Deep sequencing of samples from blood and lymph tissue is shown in Figure 6.",
        "Samples were taken at 0, 3 and 9 months after ART was started.",
        "A filler sentence of another document, with 12 patients.",
    ]
    claim = "Samples were closely spaced near the time ART was started (0, three and 6 months)."
    cite = _cite(claim, evidence=(1,), own=2)
    # Its "6" is the figure's label; the evidence states 0, 3 and 9 months.
    assert not Composer._change_number(None, cite, random.Random(1), sentences)  # type: ignore[arg-type]
    # A number the evidence states is changed.
    cite = _cite(claim.replace(" 6 months", " 9 months"), evidence=(1,), own=2)
    assert Composer._change_number(None, cite, random.Random(1), sentences)  # type: ignore[arg-type]
    assert cite.detail.startswith("9 -> ")
