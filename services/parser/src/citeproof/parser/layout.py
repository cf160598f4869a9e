"""Plain page lines to structural blocks: drop running headers, footers and page numbers, then
group lines into headings and paragraphs.

Used for PDFs (pypdfium2 gives lines in reading order but no structure). The rules are deliberately
conservative: a false heading only starts a new chunk early, a missed one only leaves the heading
inside the paragraph chunk; neither loses text.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from itertools import pairwise

from citeproof.parser.blocks import CAPTION, HEADING, LIST_ITEM, PARAGRAPH, Block, LineBox
from citeproof.parser.paragraph_layout import ends_a_sentence
from citeproof.parser.thesis.entries import can_end_entry, is_authors_only, is_head_only
from citeproof.text.names import opens_with_particle_surname

# How many lines at the top and bottom of a page can hold a running header/footer.
EDGE_LINES = 3
# A line that repeats (page numbers and other digits ignored) at a page edge on this share of
# the pages is boilerplate; on at most MAX_REPEATS_NEEDED pages whatever the length, so that a
# chapter's running header ("Chapter 3. Methods" on its 12 pages of 200) goes too; never on
# fewer than MIN_REPEATS pages.
REPEAT_SHARE = 0.4
MIN_REPEATS = 2
MAX_REPEATS_NEEDED = 3
# A repeated edge line needs this many letters: bare numbers, "(3)" or table cells are content.
MIN_REPEATED_LETTERS = 3
# A running header that names the chapter repeats its heading, printed inside one page.
MAX_HEADINGS_INSIDE = 1
# A running header printed once (page 2 of a two-page paper) is told by typography: set smaller
# than the body lines below it (by at least this many points) and separated from them by at
# least this many body line pitches of white space. Only from page 2 on: page 1 opens with a
# title block whose venue and DOI lines matter for metadata.
HEADER_SIZE_DROP_PT = 0.5
HEADER_GAP_PITCHES = 1.0
MAX_HEADER_LINES = 2
# Body lines measured below a header candidate to learn the page's usual size and line pitch.
# One is enough: the last page of a short paper may carry only a sentence's tail under its
# header, and with a single body line its own box height (ascent to descent, a little less than
# the line pitch) stands in for the pitch, which only makes the gap test stricter.
MIN_BODY_LINES_MEASURED = 1
# A line shorter than this share of the page's typical line ends its paragraph (when it also ends
# in terminal punctuation): the last line of a justified paragraph is short.
SHORT_LINE_SHARE = 0.75
MAX_HEADING_CHARS = 90
MAX_HEADING_WORDS = 12

_PAGE_NUMBER = re.compile(
    r"^(?:page\s+)?(?:\d{1,4}|[ivxlc]{1,7})(?:\s*(?:/|of)\s*\d{1,4})?$", re.IGNORECASE
)
_NUMBERED_HEADING = re.compile(
    r"^(?:(?:\d{1,2}(?:\.\d{1,2}){0,3}\.?)|(?:[IVX]{1,5}\.)|(?:[A-H]\.?(?:\d{1,2}(?:\.\d+)*)?))"
    r"\s+[A-Z][^\n]*$"
)
_KNOWN_HEADING_WORDS = re.compile(
    r"^(?:abstract|introduction|background|related work|methods?|methodology|approach|"
    r"experiments?|experimental setup|evaluation|results(?: and discussion)?|discussion|"
    r"conclusions?(?: and future work)?|limitations|future work|acknowledge?ments?|references|"
    r"bibliography|works cited|literature cited|appendix(?: [a-z])?|appendices|summary|"
    r"zusammenfassung|literaturverzeichnis|bibliographie|références|referencias|bibliografía)$",
    re.IGNORECASE,
)
_ABSTRACT_OPENING = re.compile(r"^abstract\s*[:.—–-]", re.IGNORECASE)
_CAPTION = re.compile(r"^(?:Figure|Fig\.|Table|Tab\.|Algorithm|Listing)\s*\d+[.:]", re.IGNORECASE)
_BULLET = re.compile(r"^(?:[•◦▪‣∙·\-–*]|\(?[a-z0-9]{1,3}[.)])\s+")
_TERMINAL = re.compile(r"[.!?:;)\]\"”’]$")
# A full stop that ends a sentence (not "et al.", "e.g.", "i.e.", "cf.", "vs.").
_SENTENCE_END = re.compile(r"(?<!\bal)(?<!\be\.g)(?<!\bi\.e)(?<!\bcf)(?<!\bvs)[.!?][\"”’)]?$")
# A paragraph ending like this stops in the middle of a sentence: a lower-case word at the end
# (tried from the start of each run of letters and hyphens only, so a long run costs one scan).
_MID_SENTENCE_END = re.compile(r"(?<![a-z\-])(?:\b[a-z]|(?>[a-z\-]*?-[a-z]))[a-z\-]*+$|,$")
# Footnotes are looked for in this many last lines of a page.
FOOTNOTE_ZONE_LINES = 4
# A footnote as extracted: its number, glued or not, then a capital or a link.
_FOOTNOTE_BLOCK = re.compile(r"^\d{1,2}\s?(?:[A-Z]|https?://|www\.)")
_DIGITS = re.compile(r"\d+")
# A line ending in a number and a dash ("Vaccine 26, 133–") breaks a page range over two lines:
# a bare number on the next line ("809") ends that range and is no page number.
_BROKEN_RANGE = re.compile(r"\d[–-]$")
_SPACES = re.compile(r"\s+")
_CLOSING_QUOTES = "\"”’»'"
# The rest of a printed line after a raised marker, which the text layer puts on a line of its
# own: it opens with the sentence's punctuation.
_SPLIT_TAIL = re.compile(r"[.,;:](?:\s|$)")
# A citation marker alone on its line, closing the quotation above it ("... on metastasis." /
# "(Fernández, 2015)", "[12]"): a year or a number inside, a full stop at most after it.
_MARKER_LINE = re.compile(
    r"(?:\[\d[^\[\]]{0,80}\]|\([^()]{0,200}\b(?:1[6-9]|20)\d\d[a-z]?\b[^()]{0,80}\))\.?"
)


# Typographic variants that a producer may print differently on different pages.
_VARIANTS = str.maketrans({"–": "-", "—": "-", "‒": "-", "−": "-", "‐": "-", "’": "'", "…": "..."})


def boilerplate_key(line: str) -> str:
    return _DIGITS.sub("#", _SPACES.sub(" ", line.strip().lower().translate(_VARIANTS)))


def repeated_edge_lines(pages: list[list[str]]) -> set[str]:
    """Keys of lines that repeat at page edges often enough to be running headers/footers."""
    if len(pages) < MIN_REPEATS:
        return set()
    # Counted per edge: a running header repeats at the tops of pages, a footer at the feet.
    # A line at the foot of one page and the top of the next is the list or text running on
    # (a work listed twice: its two entries' first lines on either side of a page break).
    tops: Counter[str] = Counter()
    feet: Counter[str] = Counter()
    # Pages on which the line is printed inside the page.
    inside: Counter[str] = Counter()
    headings: set[str] = set()
    numbers: dict[str, set[tuple[str, ...]]] = {}
    for lines in pages:
        content = [line for line in lines if line.strip()]
        tops.update({boilerplate_key(line) for line in content[:EDGE_LINES]})
        feet.update({boilerplate_key(line) for line in content[-EDGE_LINES:]})
        for line in content[:EDGE_LINES] + content[-EDGE_LINES:]:
            numbers.setdefault(boilerplate_key(line), set()).add(tuple(_DIGITS.findall(line)))
            if is_heading_line(line.strip()):
                headings.add(boilerplate_key(line))
        inside.update({boilerplate_key(line) for line in content[EDGE_LINES:-EDGE_LINES]})
    needed = min(MAX_REPEATS_NEEDED, max(MIN_REPEATS, math.ceil(REPEAT_SHARE * len(pages))))
    # Content that happens to fall at page edges is no furniture: a line also printed inside a
    # page, or one whose numbers differ in more than one place (a reference list's "Journal of
    # Infection 12(3), 40-55." and "... 9(1), 7-19." at two page feet; a running footer's
    # numbers differ in the page number at most). Except a header naming the chapter, which
    # repeats the chapter's heading ("2 Methods"), printed inside the page the chapter begins
    # on: a line that reads as a heading may be printed inside one page.
    return {
        key
        for key in numbers
        if max(tops[key], feet[key]) >= needed
        and sum(char.isalpha() for char in key) >= MIN_REPEATED_LETTERS
        and inside[key] <= (MAX_HEADINGS_INSIDE if key in headings else 0)
        and _numbers_vary_at_most_once(numbers[key])
    }


def _numbers_vary_at_most_once(occurrences: set[tuple[str, ...]]) -> bool:
    """The numbers of a line's occurrences differ in one position at most (the page number)."""
    if len(occurrences) < 2:
        return True
    varying = sum(1 for values in zip(*occurrences, strict=True) if len(set(values)) > 1)
    return varying <= 1


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


def _printed_header_lines(lines: list[str], boxes: list[LineBox | None]) -> set[int]:
    """Indexes of the running header at the top of one page, told by typography alone.

    The header's lines are smaller than the body below them and followed by a gap of at least
    a body line pitch; lines without a box (blank) and bare page numbers are passed over.
    """
    measured = [
        (index, box)
        for index, box in enumerate(boxes[: len(lines)])
        if box is not None and lines[index].strip() and not _PAGE_NUMBER.match(lines[index].strip())
    ]
    for header_count in range(1, MAX_HEADER_LINES + 1):
        header, body = measured[:header_count], measured[header_count:]
        if len(body) < MIN_BODY_LINES_MEASURED:
            return set()
        pitches = [
            above.bottom - below.bottom
            for (_, above), (_, below) in pairwise(body)
            if above.bottom > below.bottom
        ] or [box.top - box.bottom for _, box in body[:1]]
        if not pitches or pitches[0] <= 0:
            return set()
        body_size = _median([box.size for _, box in body])
        pitch = _median(pitches)
        last_header_box, first_body_box = header[-1][1], body[0][1]
        small = all(box.size <= body_size - HEADER_SIZE_DROP_PT for _, box in header)
        if not small:
            return set()
        gap = last_header_box.bottom - first_body_box.top
        if gap >= HEADER_GAP_PITCHES * pitch and not any(
            _CAPTION.match(lines[index].strip()) for index, _ in header
        ):
            return {index for index, _ in header}
    return set()


def remove_page_furniture(
    pages: list[list[str]],
    top_boxes: list[list[LineBox | None]] | None = None,
    entry_starts: list[list[str]] | None = None,
    list_furniture: list[list[int]] | None = None,
) -> list[list[str]]:
    """Drop running headers/footers and bare page numbers.

    A running header/footer is an edge line repeating across pages (digits ignored), or - with
    the PDF's line boxes - a header printed once, recognised by its size and the gap below it.
    ``entry_starts[p]``: lines of page p+1 that open a reference entry by the list's layout
    (`reference_layout`); never furniture, however they repeat (a work listed twice whose two
    entries begin two pages: "[10] Rossi A, ..." and "[27] Rossi A, ..."), nor are the lines
    after such a repeated entry's start on its page, up to the line that can end it (its two
    copies' second lines at two page feet). ``list_furniture[p]``: indexes of lines of page p+1
    that the reference list's layout tells are page furniture by their place (a running header
    set like the list, printed once or repeating a heading), dropped.
    """
    repeated = repeated_edge_lines(pages)
    starts_by_page = [set(starts) for starts in entry_starts or []]
    start_counts = Counter(
        boilerplate_key(start) for starts in entry_starts or [] for start in starts
    )
    cleaned: list[list[str]] = []
    for page_index, lines in enumerate(pages):
        printed_header: set[int] = set()
        if top_boxes is not None and page_index > 0 and page_index < len(top_boxes):
            printed_header = _printed_header_lines(lines, top_boxes[page_index])
        starts = starts_by_page[page_index] if page_index < len(starts_by_page) else set()
        placed_furniture = (
            set(list_furniture[page_index])
            if list_furniture and page_index < len(list_furniture)
            else set()
        )
        content = [index for index, line in enumerate(lines) if line.strip()]
        edge = set(content[:EDGE_LINES] + content[-EDGE_LINES:])
        keep: list[str] = []
        in_repeated_entry = False
        for index, line in enumerate(lines):
            stripped = line.strip()
            if not stripped or index in placed_furniture:
                continue
            entry_line = stripped in starts
            if entry_line:
                in_repeated_entry = start_counts[boilerplate_key(stripped)] > 1
            elif in_repeated_entry:
                entry_line = True
            if index in printed_header and not entry_line:
                continue
            page_number = _PAGE_NUMBER.match(stripped) and not (keep and breaks_a_range(keep[-1]))
            repeats = boilerplate_key(line) in repeated and not entry_line
            if index in edge and (page_number or repeats):
                continue
            keep.append(stripped)
            if in_repeated_entry and can_end_entry(stripped):
                in_repeated_entry = False
        cleaned.append(keep)
    return cleaned


def breaks_a_range(line: str) -> bool:
    """``line`` ends inside a number range ("133–"): the next line's bare number belongs to it."""
    return bool(_BROKEN_RANGE.search(line.rstrip()))


def is_heading_line(line: str) -> bool:
    """A line that names a section by itself ("Abstract", "1 Introduction", "IV. RESULTS"),
    whatever surrounds it; `Abstract: We ...` and `Abstract—We ...` open the abstract too."""
    if _ABSTRACT_OPENING.match(line):
        return True
    if len(line) > MAX_HEADING_CHARS or len(line.split()) > MAX_HEADING_WORDS:
        return False
    return bool(_KNOWN_HEADING_WORDS.match(line.rstrip(".:")) or _NUMBERED_HEADING.match(line))


def _is_heading(line: str, previous_ended: bool, typical: float) -> bool:
    if len(line) > MAX_HEADING_CHARS or len(line.split()) > MAX_HEADING_WORDS:
        return False
    if _KNOWN_HEADING_WORDS.match(line.rstrip(".:")):
        return True
    if not previous_ended or line.endswith((".", ",", ";")) or len(line) > typical * 0.8:
        return False
    match = _NUMBERED_HEADING.match(line)
    # "2 Related Work", "3.1 Data", "IV. RESULTS"; not "3 The model runs ..." prose lines.
    # Ends in a number: tried from the start of each run of digits and .,% only (linear).
    return match is not None and not re.search(r"(?<![\d.,%])[.,%]*+\d[\d.,%]*+\s*+$", line)


def _typical_length(lines: list[str]) -> float:
    lengths = sorted(len(line) for line in lines if len(line) > 10)
    if not lengths:
        return 80.0
    return float(lengths[int(len(lengths) * 0.8) - 1 if len(lengths) > 1 else 0])


# A link or DOI broken over two lines (narrow columns, long identifiers): the line ends inside
# it ("https://doi.org/10.2763/s" / "eed.1258.51959", "https://doi.org/10.32" / "01/seed...",
# "htt" / "ps://doi.org/...", "...seed.1260.738" / "28") and the next line's first word goes
# on with it.
_IDENTIFIER_START = re.compile(r"(?:https?://|www\.|doi:|10\.\d{2,9}/?)", re.IGNORECASE)
_IDENTIFIER_PIECE = re.compile(r"[\w./:%#?=&~+()\-]+")
_IDENTIFIER_BREAK_AFTER = "/.:-_=?&#"


def _continues_identifier(text: str, line: str) -> bool:
    """``line`` opens with the rest of a link or DOI that ``text`` ends with."""
    last = text.rsplit(maxsplit=1)[-1] if text.strip() else ""
    first = line.split(maxsplit=1)[0] if line.strip() else ""
    if not last or not first or not _IDENTIFIER_PIECE.fullmatch(first) or first.endswith(","):
        return False
    if re.match(r"(?i)https?://", last + first) and not re.match(r"(?i)https?://\S", last):
        # "htt" / "ps://doi.org/...", "https:/" / "/doi.org/...": the scheme itself was broken.
        return True
    if not _IDENTIFIER_START.match(last) or last.endswith((",", ";")):
        # No identifier, or one a comma closed ("https://example.org/w6," / "2020.").
        return False
    word = first.rstrip(".")
    if word.isalpha() and (word[0].isupper() or last.endswith(".")):
        # A sentence after a link that ended it ("... https://example.org/a." / "The ...").
        return False
    if last.endswith(tuple(_IDENTIFIER_BREAK_AFTER)) or first.startswith((".", "/", ":")):
        return True
    # Digits go on with a number ("seed.1260.738" / "28"); a lower-case or numeric piece with a
    # dot, a slash or a colon is the rest of a host or path ("https://d" / "oi.org/10...",
    # "10.32" / "01/seed..."); a capitalised word after a whole identifier ("PMID: 1234",
    # "Accessed ...") is none.
    inner = first.rstrip(".,;")
    return first.isdigit() or (
        (first[:1].islower() or first[:1].isdigit()) and any(mark in inner for mark in "./:")
    )


def _join(lines: list[str]) -> str:
    text = ""
    for line in lines:
        if not text:
            text = line
        elif text.endswith("-") and line[:1].islower():
            # A hyphen kept at a line end belongs to a compound ("state-of-" + "the-art").
            text += line
        elif _continues_identifier(text, line):
            text += line
        else:
            text += " " + line
    return text


def lines_to_blocks(
    pages: list[list[str]],
    entry_starts: list[list[str]] | None = None,
    paragraph_starts: list[list[str]] | None = None,
) -> list[Block]:
    """Group each page's lines into blocks; a paragraph cut by a page break `continues`.

    ``entry_starts[p]``: texts of lines on page p+1 that open a reference entry by the page
    layout (`reference_layout`); each starts a block, whatever the punctuation before it.
    ``paragraph_starts[p]``: texts of body lines on page p+1 that open a paragraph by the page
    layout (`paragraph_layout`); each starts a block after a line that ends a sentence.
    """
    blocks: list[Block] = []
    # Inside a reference list whose entry starts the layout told, a block that does not open at
    # one continues the entry before it (a page or column broke it, or a short line ended a
    # block early, "... 208-425." before its DOI line): an entry is never cut there.
    in_entries = False
    for page_number, lines in enumerate(pages, start=1):
        starts = (
            set(entry_starts[page_number - 1])
            if entry_starts and page_number <= len(entry_starts)
            else set()
        )
        paragraphs = (
            set(paragraph_starts[page_number - 1])
            if paragraph_starts and page_number <= len(paragraph_starts)
            else set()
        )
        typical = _typical_length(lines)
        current: list[str] = []
        kind = PARAGRAPH
        first_on_page = True
        opened_at_start = False

        def flush(current: list[str] = current, page_number: int = page_number) -> None:
            nonlocal kind, first_on_page, opened_at_start
            if not current:
                return
            text = _join(current)
            follows_paragraph = kind == PARAGRAPH and bool(blocks) and blocks[-1].kind == PARAGRAPH
            # A block the layout opened at an entry start never continues the one before.
            continues = (
                follows_paragraph
                and not opened_at_start
                and (
                    (first_on_page and _breaks_off(blocks[-1].text, text))
                    # Read at call time, within the iteration that calls it: the current state.
                    or (in_entries and not opened_at_start)  # noqa: B023
                )
            )
            blocks.append(Block(kind, text, page_number, continues))
            first_on_page = False
            opened_at_start = False
            current.clear()
            kind = PARAGRAPH

        previous_ended = True
        footnote_zone = len(lines) - FOOTNOTE_ZONE_LINES
        for line_index, line in enumerate(lines):
            # In a reference list, the line after an entry's authors and year is its title,
            # however much it looks like a heading ("A SARS-CoV-2 interaction map") or a
            # footnote ("1 January 2019 – 30 June 2019: ..."); so is the line after a numbered
            # entry's authors ("[11] H. McDonald, P. Moreau, P. Haddad." / "A Study ...").
            entry = _join(current) if current else (blocks[-1].text if blocks else "")
            title_due = in_entries and (is_head_only(entry) or is_authors_only(entry))
            # Nor is a line a footnote that goes on with an entry whose line stopped without a
            # sentence end ("... SARS-CoV-2 in" / "10 Sites in the United States", "... (2021).
            # 1 January 2021 –" / "30 June 2021: ...").
            goes_on_entry = in_entries and bool(current) and not _TERMINAL.search(current[-1])
            if (
                line_index >= footnote_zone
                and _FOOTNOTE_BLOCK.match(line)
                and current
                and not title_due
                and not goes_on_entry
            ):
                # A footnote at the page foot is a block of its own, never the end of the
                # paragraph above it (see `_move_floats_out_of_sentences`).
                flush()
            if _is_heading(line, previous_ended, typical) and line not in starts and not title_due:
                flush()
                in_entries = False
                blocks.append(Block(HEADING, line, page_number))
                first_on_page = False
                previous_ended = True
                continue
            if _CAPTION.match(line) or (_BULLET.match(line) and previous_ended):
                flush()
                kind = CAPTION if _CAPTION.match(line) else LIST_ITEM
            elif line in starts:
                flush()
                opened_at_start = in_entries = True
            elif line in paragraphs and not in_entries and current and ends_a_sentence(current[-1]):
                flush()
            current.append(line)
            ended = bool(_TERMINAL.search(line))
            following = lines[line_index + 1] if line_index + 1 < len(lines) else ""
            # "Ivanova and Okafor (2020)" / "reported that ...": a short line ending in a
            # bracket is no paragraph end when the sentence goes on in lower case (not with a
            # surname's particles: "van Dijk (2021) found ...").
            goes_on = _goes_on_in_lower_case(following) and not _SENTENCE_END.search(line)
            # '... higher than found in"' / "(Søndergaard et al., 1994, p." - a quotation closed
            # without a full stop: its marker and the sentence's end follow.
            goes_on = goes_on or (
                following[:1] in "(["
                and line.rstrip()[-1:] in _CLOSING_QUOTES
                and not _SENTENCE_END.search(line)
            )
            # A quotation's marker on a line of its own after the full stop goes with it.
            goes_on = goes_on or (not in_entries and bool(_MARKER_LINE.fullmatch(following)))
            # A raised marker splits its printed line in the text layer ("... cases⁹" /
            # ". “METHODS:"): the tail is as short as the printed line only with the text before.
            printed = len(line)
            if _SPLIT_TAIL.match(line) and len(current) >= 2:
                printed += len(current[-2])
            if ended and printed < typical * SHORT_LINE_SHARE and not goes_on:
                flush()
            previous_ended = ended
        flush()
    return _move_floats_out_of_sentences(blocks)


def _goes_on_in_lower_case(line: str) -> bool:
    """``line`` opens in lower case, as a sentence going on does; a surname led by its
    particles ("van Dijk (2021) found ...") opens a sentence."""
    return line[:1].islower() and not opens_with_particle_surname(line)


def _breaks_off(previous: str, following: str) -> bool:
    """The paragraph ending a page stops mid-sentence and the next page's first block goes on
    with it: "... spreading in Europe in" / "February 2020 [22]." (a lower-case last word or a
    comma says so whatever the next word is), or "... Chen et al." / "(2022) reported that" (a
    lower-case or bracketed start goes on after anything but a sentence end)."""
    if _goes_on_in_lower_case(following) or following[:1] in "([":
        # "... Haddad and Nguyen (2021)" / "reported that ...": only a sentence end stops it.
        return not _SENTENCE_END.search(previous)
    if _TERMINAL.search(previous):
        return False
    return bool(_MID_SENTENCE_END.search(previous))


def _is_float(block: Block, blocks: list[Block], index: int) -> bool:
    """A caption, or a footnote ("12 See https://..." as the last block of its page), that
    layout put between a sentence and its continuation."""
    if block.kind == CAPTION:
        return True
    following = blocks[index + 1] if index + 1 < len(blocks) else None
    return (
        block.kind == PARAGRAPH
        and bool(_FOOTNOTE_BLOCK.match(block.text))
        and following is not None
        and following.page > block.page
    )


def _move_floats_out_of_sentences(blocks: list[Block]) -> list[Block]:
    """A figure/table caption typeset in the middle of a paragraph ("... (e.g., Xiong et al.,"
    / "Figure 1: ..." / "2017). We ...") or a footnote at the foot of the page a sentence
    breaks over is moved after the paragraph's continuation, which is then joined to the
    paragraph so that the sentence and its citation stay whole."""
    out = list(blocks)
    index = 1
    while index < len(out) - 1:
        previous, current = out[index - 1], out[index]
        if (
            _is_float(current, out, index)
            and previous.kind == PARAGRAPH
            and not _TERMINAL.search(previous.text)
        ):
            follow = index + 1
            while follow < len(out) and _is_float(out[follow], out, follow):
                follow += 1
            if follow < len(out) and out[follow].kind == PARAGRAPH:
                continuation = out[follow]
                floats = out[index:follow]
                out[index : follow + 1] = [
                    Block(PARAGRAPH, continuation.text, continuation.page, continues=True),
                    *floats,
                ]
                index += len(floats) + 1
                continue
        index += 1
    return out
