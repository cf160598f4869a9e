"""Block quotations in a thesis PDF: the paragraph before ends with a colon on a full line, so
punctuation alone ran it into the quotation, and `block_quote_before` found no quotation (the
seeded findings benchmark, seed 424242: CP101 recall 0.890 in PDF against 0.959 in DOCX, the
misses block quotations). The page layout tells the paragraphs apart (`paragraph_layout`):
a first-line indent, or space between paragraphs."""

from __future__ import annotations

import pytest

from citeproof.devkit.pdfgen.citestyles import RUN_SUPERSCRIPT, Run, StyledThesis
from citeproof.devkit.pdfgen.thesis_layout import Layout, random_layout, render_thesis_pdf
from citeproof.parser.extract import parse_bytes
from citeproof.parser.layout import lines_to_blocks
from citeproof.parser.settings import ParserSettings

_PROSE = (
    "Masks reduce the spread of respiratory viruses in crowded indoor spaces where ventilation "
    "is poor and people stay together for a long time [1]. "
)
_FIRST_QUOTE = (
    "We identified the presence of Prevotella copri as strongly correlated with disease in "
    "new-onset untreated rheumatoid arthritis patients and in a cohort of many other people."
)
_SECOND_QUOTE = (
    "Both overweight and obesity were associated with a significantly increased risk of "
    "coronary heart disease and stroke, compared with normal weight in the pooled cohorts."
)


def _thesis() -> StyledThesis:
    # Each introduction ends a paragraph with a colon on a line the text fills (at 10.5 pt on
    # A4 with 25 mm margins, with and without a first-line indent).
    paragraphs = (
        (Run(_PROSE * 3 + "Another study described it this way:"),),
        (Run(f"{_FIRST_QUOTE} [2, p. 1871]"),),
        (Run(_PROSE * 4),),
        (Run(_PROSE * 2 + "In the words of one team:"),),
        (Run(f"{_SECOND_QUOTE} [3]"),),
        (Run(_PROSE * 3),),
    )
    entries = tuple(
        (f"[{n}]", f"A. Author{n}, B. Other. Title number {n} about masks. Journal {n}, 1-5, 2020.")
        for n in range(1, 4)
    )
    return StyledThesis(
        style="numeric",
        title="A thesis",
        author="A. Student",
        paragraphs=paragraphs,
        entries=entries,
        entry_work_keys=("w1", "w2", "w3"),
        claims=(),
        sentences=(),
        citations=(),
    )


@pytest.mark.parametrize(
    "layout",
    [Layout(first_line_indent_mm=0.0), Layout(first_line_indent_mm=6.0, justify=False)],
    ids=["space-between-paragraphs", "first-line-indent"],
)
def test_a_block_quotation_after_a_full_line_ending_in_a_colon_is_found(layout: Layout) -> None:
    data = render_thesis_pdf(_thesis(), layout)
    parsed = parse_bytes(data, "thesis.pdf", None, ParserSettings(), kind="thesis")
    assert parsed.analysis is not None
    quotes = {
        citation.marker_text: citation.block_quote
        for citation in parsed.analysis.citations
        if citation.marker_text != "[1]"
    }
    assert quotes == {"[2, p. 1871]": _FIRST_QUOTE, "[3]": _SECOND_QUOTE}
    # The prose around them stays in whole sentences: every "[1]" claim is one sentence.
    for citation in parsed.analysis.citations:
        if citation.marker_text == "[1]":
            assert citation.claim_text.startswith("Masks reduce")
            assert " ".join(citation.claim_text.split()).endswith("for a long time [1].")


def test_a_superscript_block_quotation_after_a_one_line_introduction_is_found() -> None:
    # Seed 424242, thesis t030 (two narrow columns, first-line indents, superscript markers):
    # the introduction is a paragraph of one indented line after a marker's lone full stop
    # ("... fat cells²⁸" / "." / "In the words of the authors:"), the quotation ends with its
    # raised marker ("... world.¹²"), and one quotation's next paragraph opens a column.
    prose = "Masks reduce the spread of respiratory viruses in crowded rooms"
    paragraphs = (
        (Run(f"{prose} where people stay for a long time"), Run("3", RUN_SUPERSCRIPT), Run(".")),
        (Run("In the words of the authors:"),),
        (Run(_FIRST_QUOTE), Run("12", RUN_SUPERSCRIPT)),
        (Run(f"{prose} during the winter months"), Run("3", RUN_SUPERSCRIPT), Run(".")),
        (Run(f"{prose}. " * 12 + "One study described it this way:"),),
        (Run(_SECOND_QUOTE), Run("5", RUN_SUPERSCRIPT)),
        (Run(f"{prose}. " * 3 + "Ventilation helps too"), Run("3", RUN_SUPERSCRIPT), Run(".")),
    )
    thesis = StyledThesis(
        style="superscript",
        title="A thesis",
        author="A. Student",
        paragraphs=paragraphs,
        entries=tuple(
            (f"{n}.", f"A. Author{n}, B. Other. Title {n} about masks. Journal {n}, 1-5, 2020.")
            for n in range(1, 13)
        ),
        entry_work_keys=tuple(f"w{n}" for n in range(1, 13)),
        claims=(),
        sentences=(),
        citations=(),
    )
    data = render_thesis_pdf(thesis, random_layout("424242/s424242-t030"))
    parsed = parse_bytes(data, "thesis.pdf", None, ParserSettings(), kind="thesis")
    assert parsed.analysis is not None
    quotes = sorted(
        " ".join(citation.block_quote.split())
        for citation in parsed.analysis.citations
        if citation.block_quote
    )
    assert quotes == sorted([_FIRST_QUOTE, _SECOND_QUOTE])


def test_the_tail_of_a_line_a_raised_marker_split_is_measured_with_its_line() -> None:
    # Seed 424242, thesis t005: the printed line "presymptomatic cases⁹ . “METHODS:" is two text
    # lines; its short tail ending in a colon ended the paragraph, and the quotation lost its
    # first word ("METHODS: Based on ..."): never verified in PDF.
    lines = [
        "Initial COVID-19 modeling in and around China suggested",
        "that 61 percent of transmission came from",
        "presymptomatic cases⁹",
        ". “METHODS:",
        "Based on a comprehensive contact-tracing",
        "dataset from Guangzhou, we estimated”²⁰ .",
    ]
    (block,) = lines_to_blocks([lines])
    assert "cases⁹ . “METHODS: Based on" in block.text


def test_a_short_line_closing_a_quotation_without_a_full_stop_goes_on_with_its_marker() -> None:
    # Seed 424242, thesis t015 (narrow columns): '... higher than found in"' is short and ends
    # with a closing mark, and it ended the paragraph: the marker on the next line lost its
    # quotation, and the wrong page cited for it went unreported (CP102, PDF only).
    lines = [
        'As the authors put it, "Meta-analysis of three',
        "studies indicated that the prevalence of MD in",
        "ASD was 5.0% (95% CI 3.2, 6.9%), which is clearly",
        'higher than found in"',
        "(Søndergaard et al., 1994, p. 2253). Dubois et al.",
        "(2020) stated that the effect was small overall.",
    ]
    (block,) = lines_to_blocks([lines])
    assert 'found in" (Søndergaard et al., 1994, p. 2253).' in block.text
