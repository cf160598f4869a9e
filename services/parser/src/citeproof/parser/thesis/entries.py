"""Splitting a reference section into entries: numbered labels first, hanging author-year next.

Works line by line on the text view. Numbered styles are recognised by a run of consecutive labels
(``[1]``, ``1.``, ``(1)``, ``1 ``) at line starts; the style with the longest run starting at 1
wins, so page numbers and numbers inside entries cannot break the sequence. Author-year lists have
no labels: an entry starts on a line that begins with an author list followed by a year, and only
after a line that can end an entry (not ``Smith, J.,`` or ``and``).
"""

from __future__ import annotations

import re

import msgspec

from citeproof.text.names import SURNAME_PARTICLES

_NUMBER_LABELS = (
    re.compile(r"[ \t]*\[(\d{1,4})\][ \t]*"),
    re.compile(r"[ \t]*(\d{1,4})\.[ \t]+(?=\S)"),
    re.compile(r"[ \t]*\((\d{1,4})\)[ \t]*"),
    re.compile(r"[ \t]*(\d{1,4})[ \t]+(?=[A-Z\u00c0-\u024f])"),
)
# Fewer consecutive numbered labels than this is not a numbered list.
MIN_NUMBERED_ENTRIES = 3
# An author-year entry's year must appear within this many characters of its start.
MAX_AUTHOR_BLOCK_CHARS = 700
# The last entry runs to the section end, but no further than this many median entry lengths.
MAX_LAST_ENTRY_FACTOR = 3.0

# Share of author-list pieces that may fail the name test (extraction damage) in long lists.
MAX_BAD_AUTHOR_SHARE = 0.2
# First words of lines that continue an entry (venue, publisher) rather than start one.
NOT_ENTRY_START_WORDS = frozenset(
    """in proceedings proc journal association conference workshop pages pp vol volume
    springer ieee acm available retrieved accessed url doi isbn issn press publishing
    transactions advances arxiv preprint editors eds ed technical report thesis see""".split()
)
# Accents that PDF extraction prints as separate characters ("Mart´ın").
_SPACING_ACCENTS = str.maketrans("", "", "´`¨˜ˆˇ˘˚¸˝")
_PAGE_NUMBER_LINE = re.compile(r"^\s*(?:page\s+)?\d{1,4}\s*$", re.IGNORECASE)
_FOOTNOTE_LINE = re.compile(r"^\s*\d{1,2}[A-Z][a-z]")
_AUTHOR_YEAR_HEAD = re.compile(
    r"(?P<authors>.+?)(?:[.,]\s*|\s+)\(?"
    r"(?P<year>(?:1[6-9]|20)\d\d[a-z]?|n\.\s?d\.|in press|forthcoming)\)?(?=[.,:;)\s])",
    re.IGNORECASE | re.DOTALL,
)
_NAME_WORD = re.compile(r"^[A-Z\u00c0-\u024f\u0400-\u04ff][\w'’\u00c0-\u024f.\-]*$|^[A-Z]\.?$")
_CONNECTIVES = frozenset("and & et al. al others of for the on in und y e et".split())
_END_OF_AUTHOR_PIECE = re.compile(r"\s*(?:,|;|\band\b|&|\bund\b)\s*")


class Line(msgspec.Struct, frozen=True):
    start: int
    end: int
    text: str


class EntrySpan(msgspec.Struct, frozen=True):
    """One entry: view offsets, the label printed before it (numbered styles) and its body."""

    start: int
    end: int
    number: int | None
    # View offset where the entry text after the label begins.
    body_start: int


def _lines(text: str, start: int, end: int) -> list[Line]:
    lines: list[Line] = []
    position = start
    while position < end:
        newline = text.find("\n", position, end)
        line_end = end if newline < 0 else newline
        lines.append(Line(position, line_end, text[position:line_end]))
        position = line_end + 1
    return lines


def _is_junk(line: str) -> bool:
    """Blank lines and page numbers (running headers are already out of the text view)."""
    stripped = line.strip()
    return not stripped or bool(_PAGE_NUMBER_LINE.match(stripped))


def _numbered_entries(lines: list[Line]) -> list[tuple[int, int, int]]:
    """Best run of consecutive labels as (line index, number, body offset), or []."""
    best: list[tuple[int, int, int]] = []
    for pattern in _NUMBER_LABELS:
        run: list[tuple[int, int, int]] = []
        expected: int | None = None
        for index, line in enumerate(lines):
            match = pattern.match(line.text)
            if match is None:
                continue
            number = int(match.group(1))
            if expected is None and number in (0, 1):
                expected = number
            if number == expected:
                run.append((index, number, line.start + match.end()))
                expected += 1
        if len(run) > len(best):
            best = run
    return best if len(best) >= MIN_NUMBERED_ENTRIES else []


def looks_like_author_block(block: str) -> bool:
    """True when ``block`` reads as a list of names (people or an organisation)."""
    block = " ".join(block.translate(_SPACING_ACCENTS).split())
    first_word = block.split(maxsplit=1)[0].strip(",.:").lower() if block else ""
    if first_word in NOT_ENTRY_START_WORDS:
        return False
    if not block or len(block) > MAX_AUTHOR_BLOCK_CHARS:
        return False
    if " " not in block and not block.isupper():
        # One plain word ("Database, 2016.") is a venue line; organisations have several words
        # or are acronyms ("UNESCO").
        return False
    # A full word ending a sentence inside the block: it spans the end of another entry.
    if re.search(r"(?<!\bal)(?<!\bJr)(?<!\bSr)[A-Za-z\u00c0-\u024f]{2}\.\s", block):
        return False
    pieces = [piece for piece in _END_OF_AUTHOR_PIECE.split(block) if piece.strip()]
    if not pieces:
        return False
    bad = 0
    for number, piece in enumerate(pieces):
        words = piece.split()
        if len(words) > 6:
            bad += 1 if number else len(pieces)
            continue
        capitalised = sum(1 for word in words if _NAME_WORD.match(word))
        for word in words:
            lowered = word.lower()
            if _NAME_WORD.match(word) or lowered in SURNAME_PARTICLES or lowered in _CONNECTIVES:
                continue
            # "Xiang qian Qi": a lower-case middle name between capitalised ones.
            if capitalised >= 2 and len(words) <= 4 and word.isalpha():
                continue
            bad += 1 if number else len(pieces)
            break
        if capitalised == 0 and piece.strip().lower() not in ("et al.", "others"):
            bad += 1 if number else len(pieces)
    # Long author lists survive a name or two mangled by extraction; the first must be clean.
    return bad <= len(pieces) * MAX_BAD_AUTHOR_SHARE


def _author_year_start(text: str, start: int, limit: int) -> bool:
    match = _AUTHOR_YEAR_HEAD.match(text, start, min(limit, start + MAX_AUTHOR_BLOCK_CHARS))
    if match is None:
        return False
    first = text[start : start + 1]
    first_word = text[start:].split(maxsplit=1)[0].lower() if text[start:].strip() else ""
    if not (first.isupper() or first_word in SURNAME_PARTICLES):
        return False
    return looks_like_author_block(match.group("authors"))


def _can_end_entry(line: str) -> bool:
    """Entries end with a full stop, a closing bracket, a number or a URL."""
    stripped = line.rstrip()
    if not stripped:
        return True
    # "Smith, J." at a line end is an author list still running.
    if re.search(r"(?:^|[\s,])[A-Z]\.$", stripped):
        return False
    return stripped[-1] in ".)]}0123456789" or bool(re.search(r"(?:https?://|www\.)\S+$", stripped))


def _author_year_entries(text: str, lines: list[Line], end: int) -> list[int]:
    """View offsets where author-year entries start."""
    starts: list[int] = []
    previous_content: str | None = None
    in_footnote = False
    for line in lines:
        content = line.text.strip()
        if _is_junk(line.text):
            continue
        offset = line.start + (len(line.text) - len(line.text.lstrip()))
        if _FOOTNOTE_LINE.match(line.text):
            # A footnote spilled into the list: skip it up to the next line that reads like an
            # entry start, and judge that line against what preceded the footnote.
            in_footnote = True
            continue
        looks_like_start = _author_year_start(text, offset, end)
        if in_footnote and not looks_like_start:
            continue
        in_footnote = False
        if looks_like_start and (previous_content is None or _can_end_entry(previous_content)):
            starts.append(offset)
        previous_content = content
    return starts


def split_entries(text: str, start: int, end: int) -> list[EntrySpan]:
    """Entries of the reference section ``text[start:end]`` (view offsets)."""
    lines = _lines(text, start, end)
    numbered = _numbered_entries(lines)
    spans: list[tuple[int, int | None, int]] = []
    if numbered:
        spans = [(lines[index].start, number, body) for index, number, body in numbered]
    else:
        spans = [(offset, None, offset) for offset in _author_year_entries(text, lines, end)]
    entries: list[EntrySpan] = []
    for position, (entry_start, number, body_start) in enumerate(spans):
        entry_end = spans[position + 1][0] if position + 1 < len(spans) else end
        entries.append(EntrySpan(entry_start, entry_end, number, body_start))
    if len(entries) >= 2:
        lengths = sorted(entry.end - entry.start for entry in entries[:-1])
        cap = int(lengths[len(lengths) // 2] * MAX_LAST_ENTRY_FACTOR) + 200
        last = entries[-1]
        if last.end - last.start > cap:
            cut = text.find("\n", last.start + cap)
            entries[-1] = EntrySpan(
                last.start, cut if 0 < cut < last.end else last.end, last.number, last.body_start
            )
    return entries


def entry_text(text: str, entry: EntrySpan) -> str:
    """The entry's body with page numbers, running headers and line breaks removed."""
    kept = [
        line.text.strip()
        for line in _lines(text, entry.body_start, entry.end)
        if not _is_junk(line.text)
    ]
    return " ".join(part for part in kept if part)
