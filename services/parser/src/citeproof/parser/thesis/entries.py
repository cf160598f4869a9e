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

from citeproof.text.names import SURNAME_PARTICLES, is_organisation

# Label styles. A label opens a line, or follows the end of the previous entry on the same line
# (extractors that join lines into paragraphs merge short entries: "... 2010. [6] C. Craye").
_LINE_START = r"(?:(?<=\n)|(?<=\A))[ \t]*"
_AFTER_ENTRY = r"(?:(?<=\n)|(?<=\A)|(?<=[.)\]]\s))[ \t]*"
_NUMBER_LABELS = (
    # Bracketed labels are distinctive enough to follow any whitespace ("...2532457 [9] Isabel").
    re.compile(r"(?:(?<=\s)|(?<=\A))\[(\d{1,4})\][ \t]*"),
    re.compile(
        _AFTER_ENTRY
        + r"(\d{1,4})\.[ \t]+(?=[A-Z\u00c0-\u024f])|"
        + _LINE_START
        + r"(\d{1,4})\.[ \t]+(?=\S)"
    ),
    re.compile(_LINE_START + r"\((\d{1,4})\)[ \t]*"),
    re.compile(_LINE_START + r"(\d{1,4})[ \t]+(?=[A-Z\u00c0-\u024f])"),
)
# Fewer consecutive numbered labels than this is not a numbered list.
MIN_NUMBERED_ENTRIES = 3
# Labels a run of bracketed labels may skip (a label lost in extraction).
BRACKETED_LABEL_GAP = 1
# An author-year entry's year must appear within this many characters of its start.
MAX_AUTHOR_BLOCK_CHARS = 700
# The same for an entry found in the middle of a line (less context, so less room for error).
MAX_MID_LINE_AUTHOR_BLOCK_CHARS = 600
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
_BULLET = re.compile(r"[ \t]*(?:[-*•–·▪][ \t]+)?")
_PAGE_NUMBER_LINE = re.compile(r"^\s*(?:page\s+)?\d{1,4}\s*$", re.IGNORECASE)
_FOOTNOTE_LINE = re.compile(r"^\s*\d{1,2}[A-Z][a-z]")
_AUTHOR_YEAR_HEAD = re.compile(
    # A run of spaces is taken as the separator only from its start (from its second character
    # when the authors are one space): the lazy authors never re-read it (linear).
    r"(?P<authors>.+?)(?:[.,]\s*+|(?<!\s)\s++|(?<=^\s)\s++)\(?"
    r"(?P<year>(?:1[6-9]|20)\d\d[a-z]?|n\.\s?d\.|in press|forthcoming)\)?(?=[.,:;)\s])",
    re.IGNORECASE | re.DOTALL,
)
_NAME_WORD = re.compile(r"^[A-Z\u00c0-\u024f\u0400-\u04ff][\w'’\u00c0-\u024f.\-]*$|^[A-Z]\.?$")
# Lower-case words of titles that no list of names has ("From April to July 2021: ...");
# organisations may have some ("Centers for Disease Control").
_TITLE_WORDS = re.compile(
    r"\b(?:of|for|the|on|in|to|from|at|with|by|during|between|among|after|before|versus|vs)\b"
)
_CONNECTIVES = frozenset("and & et al. al others of for the on in und y e et".split())
# Leading spaces only from the start of their run: a long run is scanned once, not per space.
_END_OF_AUTHOR_PIECE = re.compile(r"(?:(?<!\s)\s++)?(?:,|;|\band\b|&|\bund\b)\s*+")


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


def _numbered_entries(text: str, start: int, end: int) -> list[tuple[int, int, int]]:
    """Best run of consecutive labels as (label offset, number, body offset), or []."""
    best: list[tuple[int, int, int]] = []
    for index, pattern in enumerate(_NUMBER_LABELS):
        # A bracketed label is distinctive enough that one lost label ("[10]" dropped with a
        # page's first lines) does not end the list; "10." labels must follow each other.
        gap = BRACKETED_LABEL_GAP if index == 0 else 0
        run: list[tuple[int, int, int]] = []
        expected: int | None = None
        for match in pattern.finditer(text, start, end):
            number = int(next(group for group in match.groups() if group is not None))
            if expected is None and number in (0, 1):
                expected = number
            if expected is not None and expected <= number <= expected + gap:
                label_start = match.start() + (len(match.group(0)) - len(match.group(0).lstrip()))
                run.append((label_start, number, match.end()))
                expected = number + 1
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
    if re.search(r"\d", block):
        # Names have no digits: "COVID-19, 2019: ..." is a title line, not "COVID-19" + year.
        return False
    # A full word ending a sentence inside the block: it spans the end of another entry.
    if re.search(r"(?<!\bal)(?<!\bJr)(?<!\bSr)[A-Za-z\u00c0-\u024f\d]{2}\.\s", block):
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
        # "et al." with or without its full stop (the separator before a year may take it).
        if capitalised == 0 and piece.strip().lower().rstrip(".") not in ("et al", "others"):
            bad += 1 if number else len(pieces)
    if re.search(_TITLE_WORDS, block) and not is_organisation(block):
        # "Findings of EMNLP 2020": connectives belong to organisation names only.
        return False
    # Long author lists survive a name or two mangled by extraction; the first must be clean.
    return bad <= len(pieces) * MAX_BAD_AUTHOR_SHARE


def _author_year_start(text: str, start: int, limit: int, strict: bool = False) -> bool:
    """Does an author list followed by a year start at ``start``?

    ``strict`` (for starts in the middle of a line): the year must close the author list
    directly, as in "Hal Daumé. 2007." or "Smith, J. (2020).", and the list must be short.
    """
    window = MAX_MID_LINE_AUTHOR_BLOCK_CHARS if strict else MAX_AUTHOR_BLOCK_CHARS
    match = _AUTHOR_YEAR_HEAD.match(text[start : min(limit, start + window)])
    if match is None:
        return False
    first = text[start : start + 1]
    first_word = text[start:].split(maxsplit=1)[0].lower() if text[start:].strip() else ""
    if not (first.isupper() or first_word in SURNAME_PARTICLES):
        return False
    return looks_like_author_block(match.group("authors"))


# A link or identifier that closes an entry: a URL, "doi:10.1234/x", or a bare DOI.
_IDENTIFIER = r"(?:https?://|www\.|(?i:doi):[ \t]*|(?<!\S)10\.\d{4,9}/)\S+"
_IDENTIFIER_AT_END = re.compile(_IDENTIFIER + r"$")


def _can_end_entry(line: str) -> bool:
    """Entries end with a full stop, a closing bracket, a number or a URL/DOI."""
    stripped = line.rstrip()
    if not stripped:
        return True
    # "Smith, J." at a line end is an author list still running.
    if re.search(r"(?:^|[\s,])[A-Z]\.$", stripped):
        return False
    # "... Infections in 9" at a line end is a title running on ("9 Long-Term Care Facilities"):
    # an entry's last number follows punctuation, a name or "pp.", not a lower-case word.
    number_after = _NUMBER_AFTER_WORD.search(stripped)
    if number_after and number_after.group(1).lower() not in _IMPRINT_WORDS:
        return False
    return stripped[-1] in ".)]}0123456789" or bool(_IDENTIFIER_AT_END.search(stripped))


_NUMBER_AFTER_WORD = re.compile(r"(?:^|\s)([a-z]+)\s+\d+$")
# Lower-case words an entry's last number may follow: "pp 12", "vol 3", "no 4", "art 12".
_IMPRINT_WORDS = frozenset("pp p vol no nr art pages page issue suppl".split())


def is_head_only(entry: str) -> bool:
    """The entry so far is its author list and year and nothing else ("Smith, J. (2020)."):
    its title is still to come, so it cannot end here."""
    head = _AUTHOR_YEAR_HEAD.match(entry)
    return head is not None and not entry[head.end() :].strip(" \t\n.,:;)]")


# A number label opening an entry: "[11]", "11.", "(11)".
_LABEL_AT_START = re.compile(r"\s*(?:\[\d{1,4}\]|\d{1,4}\.|\(\d{1,4}\))\s+")


def is_authors_only(entry: str) -> bool:
    """The entry so far is its label and author list and nothing else ("[11] H. McDonald, P.
    Moreau, P. Haddad."): its title comes next (a numbered entry's year comes at its end, so
    `is_head_only` cannot tell)."""
    label = _LABEL_AT_START.match(entry)
    authors = entry[label.end() :] if label else entry
    authors = authors.strip().rstrip(".").strip()
    return bool(authors) and looks_like_author_block(authors)


def _author_year_entries(text: str, lines: list[Line], end: int) -> list[int]:
    """View offsets where author-year entries start: by punctuation and breaks first; then,
    where most entries open alike, also a line opening that way right after an entry that
    already has its title, even one ending without punctuation (`usual_head`)."""
    starts = _scan_author_year_entries(text, lines, end)
    usual = usual_head([text[offset : offset + MAX_HEAD_READ_CHARS] for offset in starts])
    if usual is None:
        return starts
    return _scan_author_year_entries(text, lines, end, usual)


def _scan_author_year_entries(
    text: str, lines: list[Line], end: int, usual: HeadShape | None = None
) -> list[int]:
    starts: list[int] = []
    entry_so_far = ""
    previous_content: str | None = None
    in_footnote = False
    after_break = False
    for line in lines:
        content = line.text.strip()
        if _is_junk(line.text):
            # A blank line: the page layout put a break here (an entry's end, or a page end).
            after_break = after_break or not content
            continue
        # Skip indentation and a list bullet ("- Smith, J. (2020)." in Markdown or plain text).
        offset = line.start + _BULLET.match(line.text).end()
        if _FOOTNOTE_LINE.match(line.text):
            # A footnote spilled into the list: skip it up to the next line that reads like an
            # entry start, and judge that line against what preceded the footnote.
            in_footnote = True
            continue
        looks_like_start = _author_year_start(text, offset, end)
        if in_footnote and not looks_like_start:
            continue
        in_footnote = False
        opening = text[offset : offset + MAX_HEAD_READ_CHARS]
        after_a_break = (
            after_break
            and previous_content is not None
            and not (_continues_author_list(previous_content) and _in_author_list(entry_so_far))
        )
        if after_a_break and usual is not None and not _can_end_entry(previous_content or ""):
            # A break after a line that cannot end an entry is a page or column break as often
            # as an entry's end ("... Conditions -" / "- United States, January-May 2020"):
            # where the list's entries open alike, the line must open that way too.
            after_a_break = opens_like(opening, usual, entry_so_far)
        if (
            looks_like_start
            and (previous_content is None or _can_end_entry(previous_content) or after_a_break)
            and not (starts and is_head_only(entry_so_far))
        ) or (
            usual is not None
            and previous_content is not None
            and opens_like(opening, usual, entry_so_far)
        ):
            starts.append(offset)
            entry_so_far = ""
        entry_so_far = f"{entry_so_far} {content}" if entry_so_far else content
        previous_content = content
        after_break = False
    return starts


# Characters read after a line start to find an entry's head (authors and year).
MAX_HEAD_READ_CHARS = 300
# The usual head must open at least this many entries, and this share of the starts found.
MIN_USUAL_HEADS = 4
USUAL_HEAD_SHARE = 0.6
# First-author forms: "Smith, J." / "Smith J" / "J. Smith" (a person with initials), or other.
FORM_INVERTED = "inverted"
FORM_COMPACT = "compact"
FORM_GIVEN_FIRST = "given_first"
FORM_OTHER = "other"
_PERSON_FORMS = frozenset({FORM_INVERTED, FORM_COMPACT, FORM_GIVEN_FIRST})
_UPPER = "A-Z\\u00c0-\\u00de"
_LETTERS = "\\w'’\\u00c0-\\u024f"
_SURNAME = (
    r"(?:(?:van|von|de|der|den|du|da|di|la|le|del|della|dos|ten|ter)\s)*"
    rf"[{_UPPER}][{_LETTERS}]*(?:-[{_UPPER}][{_LETTERS}]*)?"
)
_INITIALS = rf"(?:[{_UPPER}]\.(?:\s?-?[{_UPPER}]\.)*|[{_UPPER}](?:-?[{_UPPER}]){{0,2}})"
_FIRST_AUTHOR_FORMS = (
    (FORM_INVERTED, re.compile(rf"{_SURNAME},\s{_INITIALS}(?=[\s,.;&]|$)")),
    (FORM_COMPACT, re.compile(rf"{_SURNAME}\s{_INITIALS}(?=[,.;&]|\s(?:and|&)\s|\s\(|$)")),
    (FORM_GIVEN_FIRST, re.compile(rf"{_INITIALS}\s{_SURNAME}(?=[\s,.;&]|$)")),
)


class HeadShape(msgspec.Struct, frozen=True):
    """How an entry opens: its first author's form and the punctuation around its year
    ("inverted", " (", ")." for "Smith, J. (2020).")."""

    form: str
    before_year: str
    after_year: str


def head_shape(line: str) -> HeadShape | None:
    """The shape of the entry head ``line`` opens with, or None when it opens none."""
    match = _AUTHOR_YEAR_HEAD.match(line)
    if match is None or not looks_like_author_block(match.group("authors")):
        return None
    form = next((name for name, pattern in _FIRST_AUTHOR_FORMS if pattern.match(line)), FORM_OTHER)
    between = line[match.end("authors") : match.start("year")]
    # The year's own opening: a bracket, else a comma, else a full stop (one that closes
    # "et al." or an initial is the authors' own: "Smith, J. (2020)" opens like "Smith J (2020)").
    before = next((mark for mark in "(,." if mark in between), "")
    after = "".join(line[match.end("year") : match.end("year") + 2].split())[:2]
    return HeadShape(form, before, "".join(c for c in after if not c.isalnum()))


def usual_head(openings: list[str]) -> HeadShape | None:
    """The head shape most entries open with, when most do and it names a person with
    initials (organisations and full given names vary too much to go by)."""
    shapes = [shape for shape in map(head_shape, openings) if shape is not None]
    if not shapes:
        return None
    usual = max(set(shapes), key=shapes.count)
    count = shapes.count(usual)
    if count < MIN_USUAL_HEADS or count < len(openings) * USUAL_HEAD_SHARE:
        return None
    return usual if usual.form in _PERSON_FORMS else None


def opens_like(line: str, usual: HeadShape, entry_so_far: str) -> bool:
    """``line`` opens an entry the usual way, and the entry before it is complete: past its
    author list and its year, with a title. A line breaking inside a title never opens with
    "Surname, I. (2020)."."""
    if not entry_so_far or is_head_only(entry_so_far) or _in_author_list(entry_so_far):
        return False
    shape = head_shape(line)
    if shape == usual:
        return True
    # An organisation as author ("World Health Organization (2020).") has no initials; it opens
    # like the others when the year is set the same way.
    head = _AUTHOR_YEAR_HEAD.match(line)
    return (
        shape is not None
        and head is not None
        and shape.form == FORM_OTHER
        and shape.after_year == usual.after_year
        and shape.before_year[-1:] == usual.before_year[-1:]
        and is_organisation(head.group("authors"))
        # One organisation, not a title's last words run into it ("Meta-Analysis, World
        # Health Organization").
        and "," not in head.group("authors")
    )


def _in_author_list(entry: str) -> bool:
    """The entry so far has not reached its year: a comma or "and" at its end continues the
    author list. After the year, a trailing comma ends a title ("..., 2020,")."""
    return _AUTHOR_YEAR_HEAD.match(entry) is None


def _continues_author_list(line: str) -> bool:
    """ "Smith, J.," / "Smith, J. and" / "Smith, J." at a line end: the author list runs on."""
    stripped = line.rstrip()
    return (
        stripped.endswith((",", ";", "&"))
        or bool(re.search(r"\b(?:and|und|et)$", stripped))
        or bool(re.search(r"(?:^|[\s,])[A-Z]\.$", stripped))
    )


# What an entry's first word looks like: a capital, or a name particle ("van Dijk").
_ENTRY_FIRST_WORD = r"(?=[A-Z\u00c0-\u024f]|(?:van|von|de|der|den|du|da|di|la|le)\s)"
# After the full stop of a word of two or more letters, a number or a bracket - not after an
# initial ("Alex D. Wade") or "et al.".
_MID_LINE_CANDIDATE = re.compile(
    r"(?:(?<=[a-z\u00e0-\u024f\d]{2}\.)|(?<=[A-Z]{2}\.)|(?<=[)\]]\.)|(?<=[)\]]))(?<!\bal\.)[ \t]+"
    + _ENTRY_FIRST_WORD
)
# After a URL or DOI, which ends many entries without a full stop ("... 155-170.
# https://doi.org/10.5555/ucl.2019.0031 van Dijk, P. ...").
# Where no entry follows, the rest of the identifier's run of non-spaces (but its last four
# characters, where a "doi:" could open the next run) is consumed as group "skip", so no search
# starts again inside it (linear); callers drop those matches.
_AFTER_IDENTIFIER_CANDIDATE = re.compile(
    _IDENTIFIER
    + r"[ \t]+"
    + _ENTRY_FIRST_WORD
    + r"|(?P<skip>(?:https?://|www\.|(?i:doi):|(?<!\S)10\.\d{4,9}/)\S*?(?=\S{4}(?!\S)))"
)


def _mid_line_candidates(text: str, start: int, end: int) -> list[int]:
    """Offsets in ``text[start:end]`` where an entry could begin after the end of another."""
    offsets = {match.end() for match in _MID_LINE_CANDIDATE.finditer(text, start, end)}
    offsets.update(
        match.end()
        for match in _AFTER_IDENTIFIER_CANDIDATE.finditer(text, start, end)
        if match.group("skip") is None
    )
    return sorted(offsets)


def _with_mid_line_starts(text: str, starts: list[int], end: int) -> list[int]:
    """Add entries that begin after the end of another one on the same line or paragraph."""
    result: list[int] = []
    for position, entry_start in enumerate(starts):
        result.append(entry_start)
        entry_end = starts[position + 1] if position + 1 < len(starts) else end
        # The entry's own author block and year come first; look for starts after its year.
        own_head = _AUTHOR_YEAR_HEAD.match(text[entry_start:entry_end])
        cursor = entry_start + own_head.end() if own_head else entry_start
        for offset in _mid_line_candidates(text, cursor, entry_end):
            if offset <= cursor or not _author_year_start(text, offset, entry_end, strict=True):
                continue
            if not text[cursor:offset].strip(" \t\n.,:;)]"):
                # Right after an entry's authors and year comes its title, whatever it looks
                # like ("Smith (2020). South Korea, 2021: ...").
                continue
            result.append(offset)
            head = _AUTHOR_YEAR_HEAD.match(text[offset:entry_end])
            cursor = offset + head.end() if head else offset
    return result


# A footnote that page layout dropped into the list: its number glued to its first word.
_FOOTNOTE_START = re.compile(r"(?<=\s)\d{1,2}(?=[A-Z][a-z]+\s)")
_BLOCK_BREAK = re.compile(r"\n\s*")
# A footnote runs over at most this many lines/paragraphs.
MAX_FOOTNOTE_BLOCKS = 3


def mask_footnotes(text: str, start: int, end: int) -> str:
    """``text`` with footnotes inside ``[start, end)`` blanked out (same length, same offsets).

    A footnote runs from its glued number to the next line that does not read as footnote prose
    (a line starting with "See", "In", ... continues it).
    """
    pieces: list[str] = []
    cursor = 0
    for footnote in _FOOTNOTE_START.finditer(text, start, end):
        if footnote.start() < cursor:
            continue
        stop = footnote.start()
        for _ in range(MAX_FOOTNOTE_BLOCKS):
            newline = _BLOCK_BREAK.search(text, stop, end)
            if newline is None:
                stop = end
                break
            stop = newline.end()
            next_word = text[stop:].split(maxsplit=1)[0].lower() if text[stop:].strip() else ""
            if next_word not in NOT_ENTRY_START_WORDS:
                break
        pieces.append(text[cursor : footnote.start()])
        pieces.append(re.sub(r"[^\n]", " ", text[footnote.start() : stop]))
        cursor = stop
    pieces.append(text[cursor:])
    return "".join(pieces)


def _paragraph_starts(text: str, start: int, end: int) -> list[int]:
    """Offsets of the non-empty paragraphs (blank-line separated) of ``text[start:end]``."""
    starts: list[int] = []
    for match in re.finditer(r"(?:\A|\n[ \t]*\n)\s*(?=\S)", text[start:end]):
        position = start + match.end()
        line_end = text.find("\n", position, end)
        if not _is_junk(text[position : line_end if line_end >= 0 else end]):
            starts.append(position)
    return starts


_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n\s*")
_YEAR_IN_ENTRY = re.compile(r"(?<!\d)(?:1[6-9]|20)\d\d(?!\d)")


def _last_entry_end(text: str, start: int, end: int) -> int:
    """The last entry stops at a paragraph break followed by a heading or by long prose.

    Otherwise the text after the list (the next chapter, an appendix) would be read as part
    of the last entry.
    """
    for paragraph_break in _PARAGRAPH_BREAK.finditer(text, start, end):
        if not _YEAR_IN_ENTRY.search(text, start, paragraph_break.start()):
            continue
        following = paragraph_break.end()
        next_break = _PARAGRAPH_BREAK.search(text, following, end)
        paragraph = text[following : next_break.start() if next_break else end]
        first_line = paragraph.split("\n", 1)[0].strip()
        looks_like_heading = (
            0 < len(first_line) <= 80
            and not first_line.endswith((".", ","))
            # The entry's DOI or URL on a line of its own after its last full stop.
            and not _IDENTIFIER_AT_END.fullmatch(first_line)
        )
        looks_like_prose = len(paragraph) > 400 and first_line[:1].isupper()
        if (looks_like_heading and not _looks_like_entry_start(paragraph)) or looks_like_prose:
            return paragraph_break.start()
    return end


def can_end_entry(line: str) -> bool:
    """A line that can be the last of an entry (see `_can_end_entry`)."""
    return _can_end_entry(line)


def looks_like_entry_start(line: str) -> bool:
    """A line or paragraph that opens a reference entry: a number label, or an author list
    followed by a year."""
    return _looks_like_entry_start(line)


def _looks_like_entry_start(paragraph: str) -> bool:
    # Labels have at most three digits: "(2019): 225-423." is an imprint wrapped to a new line.
    return bool(re.match(r"\s*(?:\[\d{1,3}\]|\d{1,3}\.\s|\(\d{1,3}\))", paragraph)) or bool(
        _AUTHOR_YEAR_HEAD.match(paragraph[:300])
        and looks_like_author_block(_AUTHOR_YEAR_HEAD.match(paragraph[:300]).group("authors"))
    )


def split_entries(text: str, start: int, end: int) -> list[EntrySpan]:
    """Entries of the reference section ``text[start:end]`` (view offsets)."""
    numbered = _numbered_entries(text, start, end)
    spans: list[tuple[int, int | None, int]] = []
    if numbered:
        spans = list(numbered)
    else:
        lines = _lines(text, start, end)
        starts = _author_year_entries(text, lines, end)
        starts = _with_mid_line_starts(text, starts, end)
        paragraphs = _paragraph_starts(text, start, end)
        if len(paragraphs) >= MIN_NUMBERED_ENTRIES and len(starts) < len(paragraphs) / 2:
            # Word's automatic list numbering is lost in extraction, and IEEE/Vancouver entries
            # (year at the end) have no author-year head: one paragraph per entry then.
            starts = paragraphs
        spans = [(offset, None, offset) for offset in starts]
    entries: list[EntrySpan] = []
    for position, (entry_start, number, body_start) in enumerate(spans):
        entry_end = spans[position + 1][0] if position + 1 < len(spans) else end
        entries.append(EntrySpan(entry_start, entry_end, number, body_start))
    if entries:
        last = entries[-1]
        entries[-1] = EntrySpan(
            last.start, _last_entry_end(text, last.start, last.end), last.number, last.body_start
        )
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
