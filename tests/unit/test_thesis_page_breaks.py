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


def test_a_narrative_marker_broken_from_its_sentence_stays_with_it():
    references = [
        "Fischer, A. and Weber, B. 2021. Vaccine views online. Journal 1.",
        "Ivanova, A. and Okafor, B. 2020. Hospital capacity. Journal 2.",
        "Chen, A., Kim, B. and Lee, C. 2022. Masks at home. Journal 3.",
    ]
    pages = [
        [
            "1 Introduction",
            "Clusters are smaller in size than other clusters (Fischer and Weber, 2021).",
            "Ivanova and Okafor (2020)",
            "reported that hospital capacity had no effect on mortality. Later work by",
            "Chen et al.",
        ],
        ["(2022) found that masks help.", "References", *references],
    ]
    # One entry per line, as the reference layout reads them.
    document = assemble(lines_to_blocks(pages, [[], references]), len(pages))
    analysis = analyze_thesis(document.text, document.page_starts)
    checked = {c.reference_label: c.claim_checked for c in analysis.citations}
    assert checked["Ivanova2020"] == "Hospital capacity had no effect on mortality."
    assert checked["Chen2022"] == "Later work by found that masks help."
