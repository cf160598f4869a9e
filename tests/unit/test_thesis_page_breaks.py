"""A claim that a page break (and the footnote at the foot of that page) cuts in two stays whole."""

from citeproof.parser.document import assemble
from citeproof.parser.layout import lines_to_blocks
from citeproof.parser.thesis import analyze_thesis

REFERENCES = ["References"] + [
    f"[{n}] A. Author{n}. Title number {n}. Journal, 2019." for n in range(1, 23)
]
FIRST_HALF = (
    "The virus kept spreading in Europe throughout the first months of the year and it reached",
    "most countries by the end of the winter, as surveillance showed for Europe in",
)
FOOTNOTE = "12 See https://www.ecdc.europa.eu/en/covid-19 for the data."


def _claims(first_page: list[str]) -> dict[str | None, str]:
    pages = [first_page, ["February 2020 [22]. Masks were then recommended [3].", *REFERENCES]]
    document = assemble(lines_to_blocks(pages), len(pages))
    analysis = analyze_thesis(document.text, document.page_starts)
    return {c.reference_label: " ".join(c.claim_text.split()) for c in analysis.citations}


def test_a_sentence_broken_by_a_page_break_is_one_claim():
    claims = _claims(["1 Introduction", *FIRST_HALF])
    assert claims["22"] == " ".join(FIRST_HALF) + " February 2020 [22]."
    assert claims["3"] == "Masks were then recommended [3]."


def test_a_footnote_at_the_page_foot_does_not_cut_the_claim():
    claims = _claims(["1 Introduction", *FIRST_HALF, FOOTNOTE])
    assert claims["22"] == " ".join(FIRST_HALF) + " February 2020 [22]."
    assert FOOTNOTE not in claims["22"]
