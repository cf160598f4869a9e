"""Where body paragraphs start, read from the page layout of a PDF.

The block builder (`layout.lines_to_blocks`) ends a paragraph at a short line that ends a
sentence: the last line of a justified paragraph is short. A paragraph whose last line is full
("... as the authors put it:" filling the measure) runs into the next one, and a block
quotation after it is then no paragraph of its own (`block_quotes` needs the break after the
colon and after the quotation's marker). The page says where paragraphs start, in two ways:

1. a first-line indent: the line sits right of its column's left edge, the lines of the same
   column otherwise at the edge;
2. space between paragraphs: a gap above the line clearly wider than the column's line pitch;
3. the end of an indented block (a block quotation): a line back at the column's edge after two
   or more lines indented alike, the paragraph after the quotation set without indent or space.

Only after a line that ends a sentence (or a colon), and only for lines set in the body's size
that open like a sentence: a sentence never breaks there, so a misread layout costs at most a
paragraph break where a sentence ended anyway. The result names the lines by their text on each
page, like `reference_layout`'s entry starts (it survives the removal of page furniture).
"""

from __future__ import annotations

import re
from itertools import pairwise
from statistics import median

from citeproof.parser.blocks import LineBox
from citeproof.parser.page_columns import INDENT_TOLERANCE_PT, column_of, shared_edge
from citeproof.text.names import opens_with_particle_surname

# A first-line indent is at most this deep (about 13 mm); deeper is a centred line or a table.
MAX_INDENT_PT = 36.0
# A block quotation is indented at most this deep (Word's 1.27 cm to 2.54 cm, LaTeX's 2.5 em).
MAX_BLOCK_INDENT_PT = 75.0
# Lines that must share a left position for it to be a column's edge.
MIN_LINES_AT_EDGE = 3
# A line is in the body's size within this many points (headings are larger, notes smaller).
BODY_SIZE_TOLERANCE = 0.6
# Space between paragraphs: the pitch above the line exceeds the column's usual pitch by this
# share of the font size (at least MIN_GAP_PT). Word and LaTeX put 0.5-1 line between
# paragraphs set apart by space; a line raised by a superscript moves its box a few tenths.
GAP_SHARE_OF_SIZE = 0.35
MIN_GAP_PT = 2.0
# The line before ends a sentence, a colon, a closing mark or bracket (a marker: "[6, p. 18]",
# "(Smith, 2020)"), or a sentence and its superscript marker ("... patients.14", "... world.¹²").
_ENDS_SENTENCE = re.compile(
    r"(?:[.!?:;)\]\"”’»]|[.!?][\"”’»)]?\s?[\d⁰¹²³⁴⁵⁶⁷⁸⁹][\d⁰¹²³⁴⁵⁶⁷⁸⁹,⁻–-]*)$"
)
# The line opens like a sentence: a capital, a digit, or an opening quotation mark or bracket
# (or a surname led by its particles, `opens_with_particle_surname`: "van Dijk (2021) found").
_OPENS_SENTENCE = re.compile(r"[\"“‘„«(\[]{0,2}[A-Z\u00c0-\u00de\d]")


def _opens_sentence(line: str) -> bool:
    return bool(_OPENS_SENTENCE.match(line)) or opens_with_particle_surname(line)


def ends_a_sentence(line: str) -> bool:
    """``line`` can be the last of a paragraph: no sentence runs on after it."""
    return bool(_ENDS_SENTENCE.search(line.rstrip()))


def _column(box: LineBox, width: float) -> int:
    return column_of(box.left, width)


def _edge(lefts: list[float]) -> float | None:
    """The leftmost position at least MIN_LINES_AT_EDGE lines share."""
    return shared_edge(lefts, MIN_LINES_AT_EDGE)


class _Printed:
    """A printed line: its first text line's index and box, and its text with any lines of
    punctuation alone that follow it (a full stop after a superscript marker is a text line of
    its own: "... fat cells²⁸" / ".")."""

    __slots__ = ("box", "first", "last", "text")

    def __init__(self, index: int, box: LineBox, text: str) -> None:
        self.first = self.last = index
        self.box = box
        self.text = text


def _printed_lines(
    lines: list[str], boxes: list[LineBox | None], width: float, body: float
) -> dict[int, list[_Printed]]:
    """The body-size lines of each page column, in order."""
    by_column: dict[int, list[_Printed]] = {}
    for index, box in enumerate(boxes[: len(lines)]):
        text = lines[index].strip()
        if box is None or not text or abs(box.size - body) > BODY_SIZE_TOLERANCE:
            continue
        column = by_column.setdefault(_column(box, width), [])
        if not any(char.isalnum() for char in text) and column and column[-1].last == index - 1:
            column[-1].text += text
            column[-1].last = index
            continue
        column.append(_Printed(index, box, text))
    return by_column


def _page_starts(
    lines: list[str], boxes: list[LineBox | None], width: float, body: float
) -> list[str]:
    starts: list[str] = []
    for column_lines in _printed_lines(lines, boxes, width, body).values():
        edge = _edge([line.box.left for line in column_lines])
        pitches = [
            above.box.bottom - below.box.bottom
            for above, below in pairwise(column_lines)
            if below.first == above.last + 1 and above.box.bottom > below.box.bottom
        ]
        pitch = median(pitches) if pitches else None
        above_starts = False
        previous: _Printed | None = None
        # The line before ``previous``, when it runs on into it (no heading or note between).
        before_previous: _Printed | None = None
        for line in column_lines:
            indent = line.box.left - edge if edge is not None else 0.0
            indented = INDENT_TOLERANCE_PT < indent <= MAX_INDENT_PT and edge is not None
            opens = _opens_sentence(line.text)
            if previous is None or line.first != previous.last + 1:
                # A column's first line, or the first after a heading: indented, it opens a
                # paragraph (the block builder still keeps a sentence the column break cut).
                is_start = indented and opens
            elif previous.box.bottom > line.box.bottom and ends_a_sentence(previous.text) and opens:
                # After a line at the edge, or after a paragraph of one line ("In the words of
                # the authors:") indented as much.
                after = abs(previous.box.left - edge) <= INDENT_TOLERANCE_PT if edge else False
                same_indent = abs(previous.box.left - line.box.left) <= INDENT_TOLERANCE_PT
                gap = pitch is not None and (previous.box.bottom - line.box.bottom) > pitch + max(
                    MIN_GAP_PT, GAP_SHARE_OF_SIZE * line.box.size
                )
                is_start = (
                    (indented and (after or (above_starts and same_indent)))
                    or gap
                    or _ends_indented_block(line, previous, before_previous, above_starts, edge)
                )
            else:
                is_start = False
            if is_start:
                starts.append(line.text if line.first == line.last else lines[line.first].strip())
            above_starts = is_start
            runs_on = previous is not None and line.first == previous.last + 1
            before_previous = previous if runs_on else None
            previous = line
    return starts


def _ends_indented_block(
    line: _Printed,
    previous: _Printed,
    before_previous: _Printed | None,
    previous_starts: bool,
    edge: float | None,
) -> bool:
    """``line`` is back at the column's edge after an indented block of two lines or more (a
    block quotation) that ends with ``previous``. A paragraph's indented first line is one line
    and starts its paragraph: the line after it at the edge goes on with it."""
    if edge is None or before_previous is None or previous_starts:
        return False
    indent = previous.box.left - edge
    return (
        abs(line.box.left - edge) <= INDENT_TOLERANCE_PT
        and INDENT_TOLERANCE_PT < indent <= MAX_BLOCK_INDENT_PT
        and abs(before_previous.box.left - previous.box.left) <= INDENT_TOLERANCE_PT
    )


def paragraph_starts(
    pages: list[list[str]],
    boxes: list[list[LineBox | None]],
    widths: list[float],
    body: float | None,
) -> list[list[str]]:
    """Per page, the stripped texts of body lines that start a paragraph by the layout.
    ``boxes[p][i]`` is the box of ``pages[p][i]`` (None: not measured, or not body text)."""
    if body is None:
        return [[] for _ in pages]
    return [
        _page_starts(lines, page_boxes, width, body)
        for lines, page_boxes, width in zip(pages, boxes, widths, strict=True)
    ]
