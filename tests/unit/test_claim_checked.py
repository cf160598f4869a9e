"""The claim sent to retrieval and the judge does not depend on the marker style."""

from citeproof.parser.thesis import analyze_thesis
from citeproof.text.claims import checked_claim

NUMERIC = """1 Introduction

Masks reduce household transmission by a third [2]. Ventilation matters too [1, 2].

References
[1] A. Smith, B. Jones, C. Lee. Ventilation. Journal, 2019.
[2] P. García, M. Novak. Masks at home. Journal, 2020.
"""

AUTHOR_YEAR = """1 Introduction

Masks reduce household transmission by a third (García and Novak, 2020). Ventilation matters
too (Smith et al., 2019; García and Novak, 2020). García and Novak (2020) showed that masks
reduce household transmission by a third.

References
García, P. and Novak, M. 2020. Masks at home. Journal 3.
Smith, A., Jones, B. and Lee, C. 2019. Ventilation. Journal 2.
"""


def _checked(text: str) -> list[str]:
    return [c.claim_checked for c in analyze_thesis(text, [0]).citations]


def test_the_same_claim_reads_the_same_in_numeric_and_author_year_styles():
    numeric = _checked(NUMERIC)
    author_year = _checked(AUTHOR_YEAR)
    assert numeric[0] == author_year[0] == "Masks reduce household transmission by a third."
    assert numeric[1] == author_year[2] == "Ventilation matters too."
    # A narrative marker goes with its author names and the "showed that" it leads into.
    assert author_year[-1] == "Masks reduce household transmission by a third."


def test_a_narrative_lead_is_dropped_and_the_rest_is_kept():
    claim = "As Smith et al. (2020) showed, masks work at home."
    assert checked_claim(claim, [(3, 22)]) == "Masks work at home."
    claim = "Smith (2020) has recently found that masks work."
    assert checked_claim(claim, [(0, 12)]) == "Masks work."
    claim = "According to Smith (2020), masks work."
    assert checked_claim(claim, [(13, 25)]) == "Masks work."
    claim = "Smith (2020) recently found that masks work, unlike Jones (2019)."
    assert checked_claim(claim, [(0, 12), (52, 64)]) == "Masks work, unlike."


def test_orphaned_separators_are_tidied():
    claim = "Streets cool down [1], [2] at night, as shown (Smith, 2020)."
    spans = [(18, 21), (23, 26), (46, 59)]
    assert [claim[s:e] for s, e in spans] == ["[1]", "[2]", "(Smith, 2020)"]
    assert checked_claim(claim, spans) == "Streets cool down at night, as shown."
