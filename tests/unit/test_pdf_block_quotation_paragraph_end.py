"""A block quotation in a thesis PDF ends with its citation after the final full stop, and the
next body paragraph starts on the following line at the margin. The marker must stay with the
quotation (its claim is the quotation) and the next paragraph must open a sentence of its own.

Issue 25 (seed 13, thesis t009, PDF only; the DOCX was right): the paragraph after the
quotation opened with a narrative citation of a surname with a particle ("van Dijk (2021b, p.
1046) observed that ..."). A lower-case first word read as a sentence going on, so the
quotation's paragraph did not end, the quotation was no block quotation, and its marker
"(de la Cruz and Øberg, 2020)" opened the next sentence: the van Dijk citation was checked
against the de la Cruz quotation (a false CP101 quote-not-found).

The theses are drawn line by line (reportlab canvas): an introduction ending with a colon, the
quotation (indented on both sides without space between paragraphs, or at the margin with
space between paragraphs), its marker at the end of its last line or on a line of its own, the
next paragraph at the margin, then the reference list.
"""

from __future__ import annotations

import io
import re

import pytest

pytest.importorskip("reportlab", reason="needs the pdfgen extra: pip install -e 'devkit'")

from reportlab.lib.pagesizes import A4
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.canvas import Canvas

from citeproof.devkit.pdfgen.fonts import body_font_family
from citeproof.parser.extract import parse_bytes
from citeproof.parser.settings import ParserSettings
from citeproof.parser.thesis import analyze_thesis
from citeproof.parser.thesis.analyze import ThesisAnalysis
from citeproof.text.sentences import split_sentences

WIDTH, HEIGHT = A4
LEFT = 70.0
MEASURE = WIDTH - 2 * LEFT
BODY_SIZE, BODY_PITCH = 10.5, 14.0
LIST_SIZE, LIST_PITCH = 9.5, 12.0
FIRST_LINE_Y = HEIGHT - 80.0
# A block quotation indented on both sides.
BLOCK_INDENT = 28.0

INTRODUCTION = (
    "Adverse events after vaccination were recorded by a smartphone application in a large "
    "cohort, and the reports were analysed by age group and by sex in the weeks after each "
    "dose was given. An earlier analysis described it this way:"
)
QUOTATION = (
    "We observed the same trend for local effects as for systemic effects, whereby app users "
    "aged 55 years or younger reported more local side-effects than participants older than "
    "55 years, and women were more likely to report local side-effects than men in all groups."
)
FOLLOWING = (
    "observed that ‘based on this result, it appears that the epidemic started early’. The "
    "cohort was followed for six months after the second dose, and the reports were linked to "
    "the national register of hospital admissions in the same period."
)
CLOSING = (
    "Local reactions were common but mild in every group, and most resolved within three days "
    "of the dose without any treatment being needed."
)
AUTHOR_YEAR_ENTRIES = {
    "Author": "Author, A. and Other, B. (2020) Side-effects reported by app users. Lancet, 5, 1-9.",
    "Smith": "Smith, J. (2021) When the epidemic started. Journal of Epidemiology, 12, 1-8.",
    "van Dijk": "van Dijk, R. (2021) When the epidemic started. Journal of Epidemiology, 12, 1-8.",
    "de la Cruz": "de la Cruz, M. (2021) When the epidemic started. Epidemiology, 12, 1-8.",
}
NUMERIC_QUOTED, NUMERIC_FOLLOWING = 12, 13


def _wrap(text: str, font: str, size: float, measure: float) -> list[str]:
    lines: list[str] = []
    line = ""
    for word in text.split():
        trial = f"{line} {word}" if line else word
        if line and stringWidth(trial, font, size) > measure:
            lines.append(line)
            line = word
        else:
            line = trial
    return [*lines, line]


def _case(style: str, opener: str) -> tuple[str, str, str, list[str]]:
    """The block quotation's marker, the next paragraph's narrative citation and its marker as
    the parser reads it, the entries."""
    if style == "numeric":
        entries = [
            f"[{n}] A. Writer{n}, B. Other. Title number {n} about vaccines. Journal, 1-5, 2020."
            for n in range(1, NUMERIC_FOLLOWING)
        ]
        entries.append(
            f"[{NUMERIC_FOLLOWING}] {AUTHOR_YEAR_ENTRIES[opener].replace(' (2021)', '')}"
        )
        pinpointed = f"[{NUMERIC_FOLLOWING}, p. 5]"
        return f"[{NUMERIC_QUOTED}]", f"{opener} {pinpointed}", pinpointed, entries
    entries = sorted((AUTHOR_YEAR_ENTRIES["Author"], AUTHOR_YEAR_ENTRIES[opener]), key=str.lower)
    narrative = f"{opener} (2021, p. 5)"
    return "(Author and Other, 2020)", narrative, narrative, entries


def _block_measure(text: str, font: str, layout: str) -> float:
    """The quotation's measure: the body's, or indented on both sides; for "indented-full" the
    right indent is chosen (a point at a time) so that the quotation's last line is full, and
    only the layout can end its paragraph (not a short last line)."""
    if layout == "spaced":
        return MEASURE
    measure = MEASURE - 2 * BLOCK_INDENT
    if layout == "indented":
        return measure
    for narrower in range(120):
        lines = _wrap(text, font, BODY_SIZE, measure - narrower)
        if stringWidth(lines[-1], font, BODY_SIZE) > 0.92 * (measure - narrower):
            return measure - narrower
    raise AssertionError("no measure fills the quotation's last line")


def _render(layout: str, marker: str, own_line: bool, narrative: str, entries: list[str]) -> bytes:
    fonts = body_font_family()
    # Space between paragraphs, or none (the quotation told by its indent alone).
    paragraph_space = 7.0 if layout == "spaced" else 0.0
    block_left = LEFT + (0.0 if layout == "spaced" else BLOCK_INDENT)
    block_text = QUOTATION if own_line else f"{QUOTATION} {marker}"
    block_measure = _block_measure(block_text, fonts.regular, layout)
    # (text, size, left, space above)
    flow: list[tuple[str, float, float, float]] = [("1 Introduction", 12.0, LEFT, 0.0)]

    def paragraph(text: str, left: float, measure: float) -> None:
        for number, line in enumerate(_wrap(text, fonts.regular, BODY_SIZE, measure)):
            flow.append((line, BODY_SIZE, left, 0.0 if number else paragraph_space))

    paragraph(INTRODUCTION, LEFT, MEASURE)
    paragraph(block_text, block_left, block_measure)
    if own_line:
        flow.append((marker, BODY_SIZE, block_left, 0.0))
    paragraph(f"{narrative} {FOLLOWING}", LEFT, MEASURE)
    paragraph(CLOSING, LEFT, MEASURE)
    flow.append(("References", 12.0, LEFT, 20.0))
    for entry in entries:
        for number, line in enumerate(_wrap(entry, fonts.regular, LIST_SIZE, MEASURE - 14)):
            flow.append((line, LIST_SIZE, LEFT + (14 if number else 0), 4.0 if not number else 0))
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=A4, invariant=1)
    y = FIRST_LINE_Y
    for text, size, left, space in flow:
        y -= space
        canvas.setFont(fonts.bold if size > BODY_SIZE else fonts.regular, size)
        canvas.drawString(left, y, fonts.printable(text))
        y -= LIST_PITCH if size == LIST_SIZE else BODY_PITCH
    assert y > 40, "the thesis must fit on one page"
    canvas.showPage()
    canvas.save()
    return buffer.getvalue()


def _analysis(data: bytes) -> ThesisAnalysis:
    parsed = parse_bytes(data, "thesis.pdf", None, ParserSettings(), kind="thesis")
    assert parsed.analysis is not None
    return parsed.analysis


def _flat(text: str | None) -> str:
    return re.sub(r"\s+", " ", text or "").strip()


@pytest.mark.parametrize("layout", ["indented", "indented-full", "spaced"])
@pytest.mark.parametrize("style", ["author-year", "numeric"])
@pytest.mark.parametrize("own_line", [False, True], ids=["marker-at-end", "marker-own-line"])
@pytest.mark.parametrize("opener", ["Smith", "van Dijk", "de la Cruz"])
def test_a_block_quotation_keeps_its_marker_and_the_next_paragraph_opens_a_sentence(
    layout: str, style: str, own_line: bool, opener: str
) -> None:
    marker, narrative, narrative_marker, entries = _case(style, opener)
    analysis = _analysis(_render(layout, marker, own_line, narrative, entries))
    by_marker = {citation.marker_text: citation for citation in analysis.citations}
    assert set(by_marker) == {marker, narrative_marker}
    quoted, following = by_marker[marker], by_marker[narrative_marker]
    # The quotation's marker closes the quotation: its claim is the quotation.
    assert _flat(quoted.block_quote) == QUOTATION
    assert _flat(quoted.claim_checked) == QUOTATION
    assert _flat(quoted.claim_text).startswith("We observed")
    # The next paragraph opens its own sentence with the narrative citation.
    assert _flat(following.claim_text).startswith(f"{narrative} observed that")
    assert marker not in following.claim_text
    assert following.block_quote is None


# Without a paragraph break (a layout that shows none): the marker printed after the quotation's
# full stop still closes that sentence, and a surname led by its particles opens the next.
RUNNING_ON = (
    "Women were more likely to report local side-effects than men in all groups. {marker} "
    "{opener} (2021, p. 5) observed that the epidemic started early."
)


@pytest.mark.parametrize("opener", ["van Dijk", "de la Cruz", "von der Leyen"])
@pytest.mark.parametrize("marker", ["[12]", ""])
def test_a_particle_surname_opens_a_sentence(opener: str, marker: str) -> None:
    text = " ".join(RUNNING_ON.format(marker=marker, opener=opener).split())
    following = text.index(opener)
    assert sentences(text) == [text[:following].strip(), text[following:]]


@pytest.mark.parametrize("opener", ["van Dijk", "de la Cruz"])
@pytest.mark.parametrize("marker", ["(Author and Other, 2020)", "[12]"])
def test_a_marker_after_a_full_stop_closes_the_sentence_before_a_particle_surname(
    opener: str, marker: str
) -> None:
    text = RUNNING_ON.format(marker=marker, opener=opener)
    if marker.startswith("["):
        entries = [f"[{n}] A. Writer{n}. Title {n}. Journal, 1-5, 2020." for n in range(1, 13)]
    else:
        entries = [AUTHOR_YEAR_ENTRIES["Author"], AUTHOR_YEAR_ENTRIES[opener]]
    references = "\n".join(entries)
    analysis = analyze_thesis(f"1 Introduction\n\n{text}\n\nReferences\n{references}", [0])
    [claim] = {c.claim_text for c in analysis.citations if c.marker_text == marker}
    assert claim == text[: text.index(opener)].strip()


def test_a_lower_case_word_after_a_full_stop_goes_on() -> None:
    # No particle before a name: "de novo", "la carte" (small letters after), "and".
    for following in ("de novo synthesis followed.", "and so it went on.", "la carte was read."):
        assert len(sentences(f"It was measured in the cohort. {following}")) == 1


def sentences(text: str) -> list[str]:
    return [text[start:end] for start, end in split_sentences(text)]
