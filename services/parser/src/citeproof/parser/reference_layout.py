"""Where reference-list entries start, read from the page layout of a PDF.

Punctuation alone cannot split a bibliography whose entries end without a full stop (a title
ending in "?", a web page without a journal, a DOI) and whose lines the block builder joins into
one paragraph. The page says where entries start, in three ways, tried in this order:

1. indentation: with a hanging indent the first line of an entry sits left of its continuation
   lines; with a first-line indent, right of them. The first line after the heading is an entry
   start and tells which of the two positions starts entries;
2. vertical gaps: space after an entry larger than the line pitch inside entries;
3. line starts: when neither tells (single-line entries, no gap, no indent), a line that opens
   with a number label or with an author list followed by a year starts an entry.

The result names entry-starting lines by their text on each page, which survives the removal of
page furniture and front matter between here and the block builder (`layout.lines_to_blocks`).
It also names, by their index on each page, the lines at a list page's top that its place tells
are page furniture (a running header printed once, or repeating a heading), for the furniture
removal (`layout.remove_page_furniture`) to drop.
"""

from __future__ import annotations

import re
from collections import Counter
from statistics import median

import msgspec

from citeproof.parser.blocks import LineBox
from citeproof.parser.layout import (
    EDGE_LINES,
    boilerplate_key,
    breaks_a_range,
    repeated_edge_lines,
)
from citeproof.parser.page_columns import INDENT_TOLERANCE_PT, column_of, shared_edge
from citeproof.parser.thesis.entries import (
    HeadShape,
    can_end_entry,
    is_authors_only,
    is_head_only,
    looks_like_entry_start,
    opens_like,
    usual_head,
)
from citeproof.parser.thesis.sections import is_reference_heading
from citeproof.text.names import is_organisation

# Lines printed this much smaller than the list's entries are footnotes; this much larger, the
# heading or text after the list. The entries' size is read from the first lines after the heading.
SIZE_STEP_PT = 0.8
SIZE_SAMPLE_LINES = 20
# An organisation named as author has at most this many words.
MAX_ORGANISATION_WORDS = 8
# Lines read together when judging from text whether a line opens an entry; while no year has
# come, up to MAX_LINES_READ_FOR_A_HEAD (a long author list in a narrow column puts its year on
# the fourth line or later: "Nuñez, M., M. Søndergaard, P." / "Villanueva, C. Schmidt, E." /
# "Okonkwo, and P. Łukasiewicz" / "(2020). An orally ...").
LINES_READ_FOR_A_START = 3
MAX_LINES_READ_FOR_A_HEAD = 6
# Lines that must share a left position for it to be a column's edge.
MIN_LINES_AT_EDGE = 2
# An indent deeper than this is not a hanging indent (a centred line, a table).
MAX_INDENT_PT = 60.0
# A gap between lines this much larger than the pitch inside entries separates two entries.
GAP_FACTOR = 1.2
GAP_SLACK_PT = 1.0
# A gap this much larger than that pitch separates entries when the next line opens like one.
CONFIRMED_GAP_PT = 2.0
# Entries are set apart by space when wide gaps number at least this share of the entry starts
# the text tells.
MIN_GAP_SHARE = 0.3
# A running header at a list page's top is told by its place whatever its type and however often
# it is printed: the line (or the two lines) above the page's other list lines, separated from
# them by more than HEADER_GAP_PITCHES of the list's line pitches and by more than any gap
# between the list's entries elsewhere, and not opening like an entry. (Headers sit 2.6 to 3.5
# pitches above a single-spaced list's first line in LaTeX and word-processor templates; a
# line pdfium joined at a hyphen spans two.)
HEADER_GAP_PITCHES = 2.5
MAX_HEADER_LINES = 2
# Share of the entry starts the indentation tells that must open like entries by their text for
# the text to confirm the starts of a page column whose lines all sit at one position.
MIN_TEXT_CONFIRMED_SHARE = 0.8
# A bibliography entry of notes styles (Chicago, MLA) opens with the first author inverted and
# the year at its end: "García, Ana. Masks ...", "van Dijk, Pieter, and Ana García. ...".
_INVERTED_NAME_START = re.compile(
    r"(?:[a-z]+\s)*[A-Z\u00c0-\u024f][\w'’\-]+,\s[A-Z\u00c0-\u024f][\w'’\-]+(?:\s[A-Z]\.)?(?:\.\s|,\s)"
)
# A number label opening a numbered list's entry: "[12]", "12.", "(12)".
_NUMBER_LABEL = re.compile(r"\s*(?:\[\d{1,4}\]|\d{1,4}\.\s|\(\d{1,4}\))")
# A page number printed in the list's region is furniture, not a line of it.
_PAGE_NUMBER = re.compile(r"(?:page\s+)?\d{1,4}", re.IGNORECASE)
# An appendix heading in ACL style: "A Background & Terminology" (a letter and a few words).
_LETTERED_HEADING = re.compile(r"[A-H](?:\.\d+)?\s+[A-Z][^.,:;]{2,50}(?<!\s)")
_YEAR = re.compile(r"\b(?:1[6-9]|20)\d\d\b")
# Headings after the list that end it (its entries never look like this).
_AFTER_LIST = re.compile(
    r"^(?:[A-Z]\.?\s+|\d+\.?\s+)?(?:appendix|appendices|annex|supplementary|acknowledge?ments?)\b",
    re.IGNORECASE,
)


class _Line:
    __slots__ = ("box", "column", "index", "page", "text")

    def __init__(self, page: int, index: int, text: str, box: LineBox, column: int) -> None:
        self.page = page
        self.index = index
        self.text = text
        self.box = box
        self.column = column


class ReferenceListLayout(msgspec.Struct, frozen=True):
    """What the page layout says about a PDF's reference list, per page."""

    # The stripped texts of the lines that start an entry.
    entry_starts: list[list[str]]
    # Indexes of lines at the list's page tops that are page furniture by their place.
    furniture_lines: list[list[int]]


def _list_lines(
    pages: list[list[str]], boxes: list[list[LineBox | None]], widths: list[float]
) -> tuple[list[_Line], list[_Line]]:
    """(the list's own lines, the running headers at its page tops that their place tells)."""
    region, heading_size = _region(pages, boxes, widths)
    tops = _page_tops(region)
    # The list's line pitches, measured without the lines a header could be.
    measured = _entries_only(
        [line for position, line in enumerate(region) if position not in _top_lines(tops)]
    )
    furniture = _page_top_furniture(region, tops, measured, heading_size)
    lines = _entries_only(
        [line for position, line in enumerate(region) if position not in furniture]
    )
    # A header counts only on a page that holds lines of the list (not after the list ends).
    kept = {id(line) for line in lines}
    furniture = {
        position
        for position in furniture
        if any(id(region[below]) in kept for below in tops[region[position].page])
    }
    lines = _entries_only(
        [line for position, line in enumerate(region) if position not in furniture]
    )
    return lines, [region[position] for position in sorted(furniture)]


def _region(
    pages: list[list[str]], boxes: list[list[LineBox | None]], widths: list[float]
) -> tuple[list[_Line], float | None]:
    """The lines after the last reference heading, up to a heading that ends the list, of
    every size; and the heading's size."""
    heading = _last_reference_heading(pages, boxes)
    if heading is None:
        return [], None
    heading_box = boxes[heading[0]][heading[1]] if heading[1] < len(boxes[heading[0]]) else None
    heading_size = heading_box.size if heading_box is not None else None
    region: list[_Line] = []
    furniture = repeated_edge_lines(pages)
    for page_index in range(heading[0], len(pages)):
        lines = pages[page_index]
        first = heading[1] + 1 if page_index == heading[0] else 0
        content = [index for index, line in enumerate(lines) if line.strip()]
        edge = set(content[:EDGE_LINES] + content[-EDGE_LINES:])
        for line_index in range(first, len(lines)):
            text = lines[line_index].strip()
            if (
                line_index in edge
                and boilerplate_key(text) in furniture
                and not looks_like_entry_start(text)
            ):
                # A running header or footer, set like the list and at its margin: no entry
                # start (which the furniture removal would keep) and no line of an entry. A
                # work listed twice, its entries opening two pages, opens like an entry.
                continue
            box = boxes[page_index][line_index] if line_index < len(boxes[page_index]) else None
            page_number = _PAGE_NUMBER.fullmatch(text) and not (
                region and breaks_a_range(region[-1].text)
            )
            if not text or box is None or page_number:
                continue
            if _AFTER_LIST.match(text) or _lettered_heading(text, region):
                return region, heading_size
            column = column_of(box.left, widths[page_index])
            region.append(_Line(page_index, line_index, text, box, column))
    return region, heading_size


def _pitch(above: _Line, below: _Line) -> float:
    """Baseline distance between two lines; from the last printed line of a line pdfium joined
    at a hyphen."""
    bottom = above.box.bottom if above.box.end_bottom is None else above.box.end_bottom
    return bottom - below.box.bottom


def _line_pitches(region: list[_Line]) -> dict[int, float]:
    """Baseline distance from each line to the line before it in the same page column."""
    pitches: dict[int, float] = {}
    for index in range(1, len(region)):
        above, below = region[index - 1], region[index]
        if (above.page, above.column) != (below.page, below.column):
            continue
        pitch = _pitch(above, below)
        if pitch > 0:
            pitches[index] = pitch
    return pitches


def _page_tops(region: list[_Line]) -> dict[int, list[int]]:
    """Per page, the region positions of its lines, highest first: a line's place in the text
    layer does not tell (a producer may draw its page template before the text or after)."""
    by_page: dict[int, list[int]] = {}
    for position, line in enumerate(region):
        by_page.setdefault(line.page, []).append(position)
    return {
        page: sorted(positions, key=lambda position: -region[position].box.top)
        for page, positions in by_page.items()
    }


def _top_lines(tops: dict[int, list[int]]) -> set[int]:
    """Positions of the lines that could be a page's header: its highest MAX_HEADER_LINES,
    with a line below them."""
    return {
        ordered[count]
        for ordered in tops.values()
        for count in range(min(MAX_HEADER_LINES, len(ordered) - 1))
    }


def _page_top_furniture(
    region: list[_Line],
    tops: dict[int, list[int]],
    measured: list[_Line],
    heading_size: float | None,
) -> set[int]:
    """Region positions of running headers at the list's page tops, told by their place.

    Neither repetition nor type tells every header: one printed once (a list on two pages) or
    repeating a heading printed inside a page ("References" at the top of the list's pages),
    set in the list's size at its margin, reads as an entry start; set like the body, larger
    than the list, it ends the list. What the list's own lines never do is stand above a
    page's other lines, apart from them by a gap wider than the list ever leaves between its
    lines (``measured``): gaps between entries, when it sets entries apart, included. A line
    set like the list's heading (or, that size unknown, larger than the list) is a heading
    after the list, not a header.
    """
    inner_pitches = sorted(_line_pitches(measured).values())
    if not inner_pitches:
        return set()
    inner = inner_pitches[len(inner_pitches) // 4]
    threshold = max(HEADER_GAP_PITCHES * inner, inner_pitches[-1] + GAP_SLACK_PT)
    largest = (
        heading_size - SIZE_STEP_PT
        if heading_size is not None
        else _usual_size(measured) + SIZE_STEP_PT
    )
    furniture: set[int] = set()
    for ordered in tops.values():
        for count in range(1, min(MAX_HEADER_LINES, len(ordered) - 1) + 1):
            header = ordered[:count]
            if any(region[position].box.size > largest for position in header):
                break
            # A page's first entry never goes, whatever the space below it. Read alone: with
            # the entry below it, "References" opens like one ("References Laurent, H. (2009)").
            text = " ".join(region[position].text for position in header)
            if (
                _NUMBER_LABEL.match(text)
                or looks_like_entry_start(text)
                or _INVERTED_NAME_START.match(text)
                or _opens_with_organisation(text)
            ):
                break
            if _pitch(region[ordered[count - 1]], region[ordered[count]]) > threshold:
                furniture.update(header)
                break
    return furniture


def _last_reference_heading(
    pages: list[list[str]], boxes: list[list[LineBox | None]]
) -> tuple[int, int] | None:
    """(page, line) of the last reference heading. A running header that names the chapter
    ("References" at the top of the list's later pages) is set smaller than the heading it
    repeats: only lines within SIZE_STEP_PT of the largest such line count."""
    found: list[tuple[int, int, float | None]] = []
    for page_index, lines in enumerate(pages):
        for line_index, line in enumerate(lines):
            if is_reference_heading(line.strip()):
                box = boxes[page_index][line_index] if line_index < len(boxes[page_index]) else None
                found.append((page_index, line_index, box.size if box is not None else None))
    sizes = [size for _, _, size in found if size is not None]
    largest = max(sizes, default=0.0)
    headings = [
        (page_index, line_index)
        for page_index, line_index, size in found
        if size is None or size >= largest - SIZE_STEP_PT
    ]
    return headings[-1] if headings else None


def _lettered_heading(text: str, region: list[_Line]) -> bool:
    """ "A Background & Terminology" after the list - not "C McDonald (2021) Mechanistic", an
    author list going on with a given-name initial (no dots), a year after it; not "A SARS-CoV-2
    Interaction Map", a title after its entry's authors and year ("... Haddad, L. (2020)"); not
    "A Review (40 years on)", a subtitle after a colon."""
    if not _LETTERED_HEADING.fullmatch(text) or _YEAR.search(text):
        return False
    if not region:
        return True
    previous = region[-1].text.rstrip()
    # After a line that cannot end an entry ("...System:", "... Hofer,") it goes on with it;
    # after an entry's authors and year, however many lines they took ("Quispe, L., I.
    # Ferreira, C. Ito, M." / "Jørgensen, S. Silva, and L. Müller" / "(2001)."), it is its title.
    heads = (
        " ".join(line.text for line in region[-count:])
        for count in range(1, min(len(region), MAX_LINES_READ_FOR_A_HEAD) + 1)
    )
    # After a numbered entry's label and authors ("[11] H. McDonald, P. Moreau, P. Haddad."),
    # its title: "A Study Quantifying the".
    return can_end_entry(previous) and not any(
        is_head_only(head) or is_authors_only(head) for head in heads
    )


def _entries_only(region: list[_Line]) -> list[_Line]:
    """The list's own lines: it ends at the first line set larger than its entries (a heading,
    or the body text of an appendix); lines set smaller (footnotes at a page foot) are neither
    entry starts nor continuations and are left out."""
    if not region:
        return region
    usual = _usual_size(region)
    kept: list[_Line] = []
    for line in region:
        if line.box.size > usual + SIZE_STEP_PT:
            break
        if line.box.size >= usual - SIZE_STEP_PT:
            kept.append(line)
    return kept


def _usual_size(region: list[_Line]) -> float:
    """The size of the list's entries, read from its first lines."""
    return median(line.box.size for line in region[:SIZE_SAMPLE_LINES])


def _level(line: _Line, column_left: dict[tuple[int, int], float]) -> int:
    """0 for a line at its column's left edge, 1 for an indented one, 2 for anything else
    (left of the edge, or indented too deep)."""
    offset = line.box.left - column_left[(line.page, line.column)]
    if abs(offset) <= INDENT_TOLERANCE_PT:
        return 0
    if offset < 0:
        return 2
    return 1 if offset <= MAX_INDENT_PT else 2


def _column_lefts(region: list[_Line]) -> dict[tuple[int, int], float]:
    """The left edge of each page column: the leftmost position that at least
    MIN_LINES_AT_EDGE lines share (a running header or a stray glyph does not set it)."""
    lefts: dict[tuple[int, int], list[float]] = {}
    for line in region:
        lefts.setdefault((line.page, line.column), []).append(line.box.left)
    edges: dict[tuple[int, int], float] = {}
    single_position: set[tuple[int, int]] = set()
    for key, values in lefts.items():
        values.sort()
        edge = shared_edge(values, MIN_LINES_AT_EDGE)
        edges[key] = values[0] if edge is None else edge
        if values[-1] - values[0] <= INDENT_TOLERANCE_PT:
            single_position.add(key)
    # A column whose lines all sit at one position may hold only continuation lines (its one
    # entry start was merged into a line of the other column by the text extractor): its edge
    # is then the indent, and the same column on the other pages of the same parity (mirrored
    # margins differ between odd and even pages) says where the edge really is.
    shared: dict[tuple[int, int], float] = {}
    for (page, column), edge in edges.items():
        key = (page % 2, column)
        shared[key] = min(shared.get(key, edge), edge)
    list_indent = _list_indent(lefts, edges)
    adjusted: dict[tuple[int, int], float] = {}
    for (page, column), edge in edges.items():
        candidate = shared[(page % 2, column)]
        indent = edge - candidate
        at_candidate = any(
            abs(left - candidate) <= INDENT_TOLERANCE_PT for left in lefts[(page, column)]
        )
        if INDENT_TOLERANCE_PT < indent <= MAX_INDENT_PT and (
            at_candidate or (page, column) in single_position
        ):
            # A single entry start at the shared edge is one line: too few to set the edge alone.
            edge = candidate
        elif list_indent is not None:
            # No page of the same parity tells (a list on two pages whose second holds the tail
            # of an entry and one entry more): a line one list indent left of the edge found is
            # an entry start at the real edge, the lines at that "edge" are continuations.
            edge = next(
                (
                    left
                    for left in lefts[(page, column)]
                    if abs(edge - list_indent - left) <= INDENT_TOLERANCE_PT
                ),
                edge,
            )
        adjusted[(page, column)] = edge
    return adjusted


def _list_indent(
    lefts: dict[tuple[int, int], list[float]], edges: dict[tuple[int, int], float]
) -> float | None:
    """The list's indent (hanging or first-line): the distance from a column's edge at which
    most of its indented lines sit, over the columns whose edge at least MIN_LINES_AT_EDGE lines
    share; None when no indent is shared so."""
    offsets: Counter[float] = Counter()
    for key, values in lefts.items():
        at_edge = sum(1 for left in values if abs(left - edges[key]) <= INDENT_TOLERANCE_PT)
        if at_edge < MIN_LINES_AT_EDGE:
            continue
        offsets.update(
            round(left - edges[key])
            for left in values
            if INDENT_TOLERANCE_PT < left - edges[key] <= MAX_INDENT_PT
        )
    if not offsets:
        return None
    indent, count = offsets.most_common(1)[0]
    return float(indent) if count >= MIN_LINES_AT_EDGE else None


def _indent_starts(region: list[_Line]) -> set[int] | None:
    """Entry starts told by indentation, or None when all lines share one left edge."""
    column_left = _column_lefts(region)
    levels = [_level(line, column_left) for line in region]
    if 0 not in levels or 1 not in levels:
        return None
    start_level = levels[0]
    if start_level == 2:
        return None
    starts = {index for index, level in enumerate(levels) if level == start_level}
    return starts - _unconfirmed_starts(region, levels, starts)


def _unconfirmed_starts(region: list[_Line], levels: list[int], starts: set[int]) -> set[int]:
    """Starts in a page column whose list lines all sit at one position, that the text does not
    confirm where the list's other starts open like entries: such a column holds starts only, or
    (more often) only the continuation of the entry before it - the tail of a list's last entry
    at the top of a page, beside nothing but a running header at the margin."""
    positions: dict[tuple[int, int], set[int]] = {}
    for index, line in enumerate(region):
        if levels[index] != 2:
            positions.setdefault((line.page, line.column), set()).add(levels[index])
    one_position = {key for key, found in positions.items() if len(found) == 1}
    if not one_position:
        return set()
    elsewhere = [i for i in starts if (region[i].page, region[i].column) not in one_position]
    # A numbered list's starts open with their labels; an author-year list's with a head.
    labelled = sum(1 for i in elsewhere if _NUMBER_LABEL.match(region[i].text))
    numbered = bool(elsewhere) and labelled >= MIN_TEXT_CONFIRMED_SHARE * len(elsewhere)
    opening = [i for i in elsewhere if _opens_an_entry(region, i, numbered)]
    if not elsewhere or len(opening) < MIN_TEXT_CONFIRMED_SHARE * len(elsewhere):
        return set()
    return {
        index
        for index in starts
        if (region[index].page, region[index].column) in one_position
        and not _opens_an_entry(region, index, numbered)
    }


def _opens_an_entry(region: list[_Line], index: int, numbered: bool) -> bool:
    text = region[index].text
    if numbered:
        return bool(_NUMBER_LABEL.match(text))
    return bool(
        looks_like_entry_start(_with_following(region, index))
        or _INVERTED_NAME_START.match(text)
        or _opens_with_organisation(text)
    )


def _gap_starts(region: list[_Line]) -> set[int] | None:
    """Entry starts told by extra vertical space, or None when every gap is the same."""
    pitches = _line_pitches(region)
    if not pitches:
        return None
    values = sorted(pitches.values())
    inner = values[len(values) // 4]
    threshold = inner * GAP_FACTOR + GAP_SLACK_PT
    wide = {index for index, pitch in pitches.items() if pitch > threshold}
    if not wide or len(wide) == len(pitches):
        return None
    by_punctuation, by_usual_head = _text_starts_by_kind(region)
    if len(wide) < MIN_GAP_SHARE * len(by_punctuation | by_usual_head):
        # A few wide gaps among many entries (a running header above a page's first entry, a
        # figure) do not make a list whose entries are set apart by space.
        return None
    starts = {0} | wide
    # A smaller gap (a 4 pt space after entries at a 14 pt pitch, positions rounded by the
    # producer) starts an entry when the text says so too.
    modest = {index for index, pitch in pitches.items() if pitch > inner + CONFIRMED_GAP_PT}
    # A line opening a column or page continues the entry before it unless its text says not.
    starts.update(index for index in by_punctuation if index not in pitches or index in modest)
    # A line opening the way the list's entries open, after an entry that has its title, starts
    # one whatever the space above it.
    starts.update(by_usual_head)
    return starts


def _text_starts(region: list[_Line]) -> set[int]:
    """Lines that open like an entry after a line that can end one (the punctuation rule), and
    never right after an entry that is only its authors and year (its title comes next, even a
    title that opens like an entry: "COVID-19, 2019: ...", "South Korea, 2020: ...").

    The line is read with the few after it: a long author list puts the year on the next line.
    Where most entries found so open alike ("Smith, J. (2020)."), a line opening that way also
    starts one after an entry that has its title, even when that entry ends without
    punctuation (a report's title, a trailing comma): `entries.usual_head`.
    """
    by_punctuation, by_usual_head = _text_starts_by_kind(region)
    return by_punctuation | by_usual_head


def _text_starts_by_kind(region: list[_Line]) -> tuple[set[int], set[int]]:
    """(starts after a line that can end an entry, starts only the usual head tells)."""
    starts = _scan_text_starts(region)
    usual = usual_head([_with_following(region, index) for index in sorted(starts)])
    if usual is None:
        return starts, set()
    with_usual = _scan_text_starts(region, usual)
    return with_usual & starts, with_usual - starts


def _scan_text_starts(region: list[_Line], usual: HeadShape | None = None) -> set[int]:
    starts: set[int] = set()
    entry_so_far = ""
    for index, line in enumerate(region):
        opens = (
            looks_like_entry_start(_with_following(region, index))
            or _INVERTED_NAME_START.match(line.text)
            or _opens_with_organisation(line.text)
        )
        if (
            opens
            and (
                index == 0
                or (
                    _previous_can_end(region, index) and not (starts and is_head_only(entry_so_far))
                )
            )
        ) or (
            usual is not None and opens_like(_with_following(region, index), usual, entry_so_far)
        ):
            starts.add(index)
            entry_so_far = ""
        entry_so_far = f"{entry_so_far} {line.text}" if entry_so_far else line.text
    return starts


def _previous_can_end(region: list[_Line], index: int) -> bool:
    """The line before ``index`` can end an entry; a URL broken over two lines ("https://
    www.example.org/r" + "eports/1zbs") is read whole."""
    previous = region[index - 1].text
    if can_end_entry(previous):
        return True
    return index >= 2 and " " not in previous and can_end_entry(region[index - 2].text + previous)


def _opens_with_organisation(line: str) -> bool:
    """ "World Health Organization. Report on ...": an organisation as author, then a full stop."""
    head, stop, _ = line.partition(". ")
    words = head.split()
    return (
        bool(stop)
        and 0 < len(words) <= MAX_ORGANISATION_WORDS
        and words[0][:1].isupper()
        and is_organisation(head)
    )


def _with_following(region: list[_Line], index: int) -> str:
    lines = [line.text for line in region[index : index + LINES_READ_FOR_A_START]]
    for line in region[index + LINES_READ_FOR_A_START : index + MAX_LINES_READ_FOR_A_HEAD]:
        if _YEAR.search(" ".join(lines)):
            break
        lines.append(line.text)
    return " ".join(lines)


def read_reference_list(
    pages: list[list[str]], boxes: list[list[LineBox | None]], widths: list[float]
) -> ReferenceListLayout:
    """The reference list's entry starts and page furniture, per page (empty lists when the
    document has no reference heading). ``boxes[p][i]`` is the box of ``pages[p][i]``."""
    starts: list[list[str]] = [[] for _ in pages]
    furniture_lines: list[list[int]] = [[] for _ in pages]
    region, furniture = _list_lines(pages, boxes, widths)
    for line in furniture:
        furniture_lines[line.page].append(line.index)
    if not region:
        return ReferenceListLayout(starts, furniture_lines)
    found = _indent_starts(region)
    if found is None:
        found = _gap_starts(region)
    if found is None:
        found = _text_starts(region)
    for index in sorted(found):
        starts[region[index].page].append(region[index].text)
    return ReferenceListLayout(starts, furniture_lines)


def reference_entry_starts(
    pages: list[list[str]], boxes: list[list[LineBox | None]], widths: list[float]
) -> list[list[str]]:
    """Per page, the stripped texts of lines that start a reference entry."""
    return read_reference_list(pages, boxes, widths).entry_starts
