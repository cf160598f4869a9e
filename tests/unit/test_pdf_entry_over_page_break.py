"""An author-year entry that a page break cuts in two is read whole, and so is the entry after it,
whatever page furniture the break puts between the two parts: a page number at the foot or the
top of the page, a running header of one or two lines that reads like a title (several words,
no full stop), a header naming the chapter, different headers on odd and even pages.

The theses are drawn line by line (reportlab canvas), so that the page break falls exactly
where the case needs it: after an entry's second line, the entry's tail alone at the hanging
indent on the next page. Two defects of the list's layout reader (`reference_layout`), not of
the furniture removal: on a list's second and last page holding the tail and one entry, two
lines at the hanging indent outnumbered the entry's one line at the margin, the indent was
taken for the edge and the entry merged into the tail (its citations named no entry); and a
running header "References" on the list's later pages was taken for the list's heading, so
the entries before it had no layout starts. Issue 25: "The list itself must parse entry by
entry on layouts you have not generated yet."

A running header set like the list (or like the body) at its margin, printed once (a list on two
pages) or naming the chapter "References" that the heading inside a page repeats, is told by
neither its repetition nor its type: it was read as an entry start (or, larger than the list,
ended the list). Its place tells it: above the page's list lines, apart from them by a gap the
list never leaves between its lines.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable

import msgspec
import pytest

pytest.importorskip("reportlab", reason="needs the pdfgen extra: pip install -e 'devkit'")

from reportlab.lib.pagesizes import A4
from reportlab.pdfgen.canvas import Canvas

from citeproof.devkit.pdfgen.fonts import body_font_family
from citeproof.parser.extract import parse_bytes
from citeproof.parser.settings import ParserSettings
from citeproof.parser.thesis.analyze import ThesisAnalysis

WIDTH, HEIGHT = A4
LEFT = 70.0
HANGING_INDENT = 14.0
BODY_SIZE, BODY_PITCH = 10.5, 14.0
LIST_SIZE, LIST_PITCH = 9.5, 12.0
FIRST_LINE_Y = HEIGHT - 80.0
BOTTOM_Y = 60.0

TITLE = "Small regulatory transcripts and what they tell us about tumours"
SUBTITLE = "Doctoral thesis, Faculty of Health"
SURNAMES = (
    "Abernethy", "Bergström", "Castellano", "Dąbrowski", "Esposito", "Fairweather", "Grönholm",
    "Hartmann", "Ishikawa", "Jovanović", "Kristiansen", "Laurent", "Mwangi", "Nørgaard",
    "Oyelaran", "Pereira", "Quintana", "Ramaswamy", "Şimşek", "Sakamoto", "Thorvaldsen",
)  # fmt: skip


class Furniture(msgspec.Struct, frozen=True):
    """What a page prints besides its text: header lines at the top, the page number."""

    header: tuple[str, ...] = ()
    number_at_top: bool = False
    # Small italics a little left of the text, or set like the list and at its margin.
    header_size: float = 8.5
    header_left: float = LEFT - 6


class Entry(msgspec.Struct, frozen=True):
    surname: str
    year: int
    lines: tuple[str, ...]

    @property
    def text(self) -> str:
        return " ".join(self.lines)


def _entries(count: int, full_stop: bool) -> list[Entry]:
    entries = []
    for index, surname in enumerate(SURNAMES[:count]):
        year = 1998 + index
        end = "." if full_stop else ""
        entries.append(
            Entry(
                surname=surname,
                year=year,
                lines=(
                    f"{surname}, H., Okonjo, P. and Lindgren, T. ({year}) Short regulatory",
                    f"transcripts in {index + 3} kinds of tumour cell. Nucleic Acids Research,",
                    f"{20 + index}, {101 + index}–{109 + index}{end}",
                ),
            )
        )
    return entries


def _body(entries: list[Entry], lines: int) -> list[str]:
    """``lines`` body lines (at least one per entry) citing every entry once, narratively."""
    body = [
        f"The pattern was described by {entry.surname} et al. ({entry.year}) in most tissues."
        for entry in entries
    ]
    filler = "Expression was measured in every sample with the same assay and the same cut-off."
    while len(body) < lines:
        body.insert(0, filler)
    return body


def _render(
    body: list[str],
    entries: list[Entry],
    furniture: Callable[[int, str], Furniture],
    break_inside: str,
    break_after_line: int = 1,
    template_last: bool = False,
) -> bytes:
    """Body, "References", the entries with a hanging indent; a page ends when it is full, and
    the page that holds the entry of ``break_inside`` ends after that entry's second line (its
    line ``break_after_line``, counted from 0). The page template (number, header) is drawn
    before the page's text, or after it with ``template_last``."""
    fonts = body_font_family()
    flow: list[tuple[str, float, float, float]] = [("1 Introduction", 12.0, 0.0, 18.0)]
    flow += [(line, BODY_SIZE, 0.0, BODY_PITCH) for line in body]
    flow.append(("References", 12.0, 0.0, 20.0))
    breaks: set[int] = set()
    for entry in entries:
        for number, line in enumerate(entry.lines):
            indent = 0.0 if number == 0 else HANGING_INDENT
            flow.append((line, LIST_SIZE, indent, LIST_PITCH))
            if entry.surname == break_inside and number == break_after_line:
                breaks.add(len(flow))
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=A4, invariant=1)
    page = 0
    position = 0
    page_ends: set[int] = set()
    while position < len(flow):
        page += 1
        placed: list[tuple[tuple[str, float, float, float], float]] = []
        y = FIRST_LINE_Y
        while position < len(flow) and y > BOTTOM_Y:
            placed.append((flow[position], y))
            y -= flow[position][3]
            position += 1
            if position in breaks:
                break
        page_ends.add(position)
        # The chapter a header names: the last heading begun by the end of the page.
        headings = [text for text, size, _, _ in flow[:position] if size > BODY_SIZE]
        printed = furniture(page, headings[-1])
        # As a word processor's page template: the furniture first in the content stream
        # (LaTeX's output routine ships the head after the text).
        if not template_last:
            _draw_template(canvas, printed, page)
        for (text, size, indent, _), line_y in placed:
            canvas.setFont(fonts.bold if size > BODY_SIZE else fonts.regular, size)
            canvas.drawString(LEFT + indent, line_y, fonts.printable(text))
        if template_last:
            _draw_template(canvas, printed, page)
        canvas.showPage()
    canvas.save()
    assert breaks <= page_ends, "the page filled up before the planned break"
    return buffer.getvalue()


def _draw_template(canvas: Canvas, printed: Furniture, page: int) -> None:
    fonts = body_font_family()
    canvas.setFont(fonts.regular, 9)
    if printed.number_at_top:
        canvas.drawRightString(WIDTH - LEFT, HEIGHT - 40, str(page))
    else:
        canvas.drawCentredString(WIDTH / 2, 34, str(page))
    canvas.setFont(fonts.italic, printed.header_size)
    for number, line in enumerate(printed.header):
        canvas.drawString(printed.header_left, HEIGHT - 40 - 11 * number, line)


def _analysis(data: bytes) -> ThesisAnalysis:
    parsed = parse_bytes(data, "thesis.pdf", None, ParserSettings(), kind="thesis")
    assert parsed.analysis is not None
    return parsed.analysis


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _check(analysis: ThesisAnalysis, entries: list[Entry]) -> None:
    """Every entry read whole and alone (no page number, no header inside), every citation
    linked to its own entry."""
    found = [_flat(reference.raw) for reference in analysis.references]
    assert found == [entry.text for entry in entries]
    for reference in analysis.references:
        for text in (TITLE, SUBTITLE, "References", "Introduction"):
            assert text not in reference.raw
    labels = [reference.label for reference in analysis.references]
    linked = [citation.reference_label for citation in analysis.citations]
    assert linked == labels


def _title_header(page: int, chapter: str) -> Furniture:
    return Furniture(header=(TITLE,) if page > 1 else ())


# The list on two pages, the broken entry's tail and the last entry alone on the second (there
# the list's left edge is one line's, the hanging indent two lines'); two entries after the tail;
# a list over three pages; the break early in the list.
CASES = {
    "tail-and-last-entry": (16, 12, -2),
    "tail-and-two-entries": (14, 12, -3),
    "three-list-pages": (20, 21, -2),
    "early-in-the-list": (16, 12, 4),
}


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("full_stop", [True, False], ids=["stop", "no-stop"])
def test_an_entry_broken_by_a_page_break_reads_whole(case: str, full_stop: bool) -> None:
    body_lines, count, broken = CASES[case]
    entries = _entries(count, full_stop)
    data = _render(_body(entries, body_lines), entries, _title_header, entries[broken].surname)
    _check(_analysis(data), entries)


FURNITURE: dict[str, Callable[[int, str], Furniture]] = {
    "number-at-top": lambda page, chapter: Furniture(header=(TITLE,), number_at_top=True),
    "two-line-header": lambda page, chapter: Furniture(
        header=(TITLE, "Doctoral thesis in molecular medicine, Faculty of Health")
        if page > 1
        else ()
    ),
    "header-set-like-the-list": lambda page, chapter: Furniture(
        header=(TITLE,) if page > 1 else (), header_size=LIST_SIZE, header_left=LEFT
    ),
    "chapter-header": lambda page, chapter: Furniture(header=(chapter,) if page > 1 else ()),
    # "References" at the top of the list's pages, set like the list and at its margin: the
    # repetition rule refuses it (the same text is the list's heading, inside a page).
    "chapter-header-set-like-the-list": lambda page, chapter: Furniture(
        header=(chapter,) if page > 1 else (), header_size=LIST_SIZE, header_left=LEFT
    ),
    # Set like the body, larger than the list: the list's region must not end at it.
    "chapter-header-set-like-the-body": lambda page, chapter: Furniture(
        header=(chapter,) if page > 1 else (), header_size=BODY_SIZE, header_left=LEFT
    ),
    "odd-title-even-chapter": lambda page, chapter: Furniture(
        header=(TITLE if page % 2 else chapter,) if page > 1 else ()
    ),
}


# On "tail-and-last-entry" a header is printed once, on the list's second page: neither its
# repetition nor (set like the list) its type tells it from the list's lines; its place does.
FURNITURE_CASES = [
    (case, furniture)
    for case in ("tail-and-last-entry", "three-list-pages")
    for furniture in FURNITURE
]


@pytest.mark.parametrize(("case", "furniture"), FURNITURE_CASES)
def test_an_entry_broken_under_other_page_furniture_reads_whole(case: str, furniture: str) -> None:
    body_lines, count, broken = CASES[case]
    entries = _entries(count, full_stop=False)
    data = _render(
        _body(entries, body_lines), entries, FURNITURE[furniture], entries[broken].surname
    )
    _check(_analysis(data), entries)


# Headers set like the list and at its margin, printed once or repeating the list's heading,
# over a page that opens with a new entry (the break after an entry's last line) or with an
# entry's tail, the page template drawn before or after the page's text.
SET_LIKE_THE_LIST = ("header-set-like-the-list", "chapter-header-set-like-the-list")


@pytest.mark.parametrize("furniture", SET_LIKE_THE_LIST)
@pytest.mark.parametrize("case", ["tail-and-last-entry", "three-list-pages"])
@pytest.mark.parametrize("break_after_line", [1, 2], ids=["tail", "new-entry"])
@pytest.mark.parametrize("template_last", [False, True], ids=["template-first", "template-last"])
def test_a_header_set_like_the_list_is_no_entry_start(
    furniture: str, case: str, break_after_line: int, template_last: bool
) -> None:
    body_lines, count, broken = CASES[case]
    entries = _entries(count, full_stop=True)
    data = _render(
        _body(entries, body_lines),
        entries,
        FURNITURE[furniture],
        entries[broken].surname,
        break_after_line,
        template_last,
    )
    _check(_analysis(data), entries)
