"""Where the reference list is: its heading, and where it stops (appendix or end of text)."""

from __future__ import annotations

import re

import msgspec

from citeproof.parser.thesis.entries import (
    can_end_entry,
    is_authors_only,
    is_head_only,
    looks_like_entry_start,
)

# Reference-list headings in the languages theses are commonly written in. Matched as a whole
# line, optionally numbered ("7 References", "VII. REFERENCES").
REFERENCE_HEADINGS = (
    "references",
    "reference list",
    "list of references",
    "bibliography",
    "select bibliography",
    "works cited",
    "literature cited",
    "cited literature",
    "literature",
    "sources",
    "literaturverzeichnis",
    "literatur",
    "quellenverzeichnis",
    "références",
    "références bibliographiques",
    "bibliographie",
    "referencias",
    "referencias bibliográficas",
    "bibliografía",
    "bibliografia",
    "riferimenti bibliografici",
    "referências",
    "referências bibliográficas",
    "literatuur",
    "literatuurlijst",
    "litteratur",
    "referenser",
    "källor",
    "kirjallisuus",
    "lähteet",
    "bibliografie",
    "literatura",
    "piśmiennictwo",
    "kaynakça",
    "参考文献",
    "список литературы",
    "литература",
)

_HEADING = re.compile(
    # Possessive, and each run of spaces read one way only: linear in the line's length.
    r"^[ \t]*+(?:#{1,6}[ \t]*+)?(?:\*\*|__)?(?:(?:\d++|[IVXLC]++)\.?[ \t]++)?(?P<name>"
    + "|".join(re.escape(heading) for heading in sorted(REFERENCE_HEADINGS, key=len, reverse=True))
    # Alone on its line, or run into the first numbered entry ("REFERENCES [1] 2019. ...").
    + r")[ \t]*+(?::[ \t]*+)?(?:(?:\*\*|__)[ \t]*+)?(?:$|(?<=[ \t])(?=\[1\][ \t]|1\.[ \t]+[A-Z]))",
    re.IGNORECASE | re.MULTILINE,
)

# Headings that end the reference list when they follow it.
_SECTION_AFTER = re.compile(
    r"^[ \t]*(?:#{1,6}[ \t]*)?(?:(?:[A-Z]|\d+)\.?[ \t]+)?"
    r"(?:appendix|appendices|supplementary material|supplemental material|"
    r"supplementary information|anhang|annexe?s?|anexo|"
    r"list of figures|list of tables|index|acknowledge?ments?|author contributions|"
    r"curriculum vitae)\b.{0,80}$",
    re.IGNORECASE | re.MULTILINE,
)


# An ACL-style appendix heading ("A  Background & Terminology"): a letter and a few words.
_LETTERED_APPENDIX = re.compile(
    r"^[ \t]*[A-H](?:\.\d+)?[ \t]+[A-Z][^\n.,:;]{2,50}$(?<=\S)", re.MULTILINE
)
# More words than this on such a line is a wrapped title line inside an entry, not a heading.
MAX_APPENDIX_HEADING_WORDS = 7
# How far back the line before such a heading is read.
MAX_ENTRY_HEAD_CHARS = 400


# Less text than this after a heading cannot hold a reference list.
MIN_LIST_CHARS = 200


# Prose: a paragraph this long with fewer than one year per this many characters.
MIN_PROSE_CHARS = 300
MAX_PROSE_CHARS_PER_YEAR = 400
MIN_PROSE_CHARS_PER_COMMA = 40
_YEAR = re.compile(r"(?<!\d)(?:1[6-9]|20)\d\d(?!\d)")
_ENTRY_LABEL = re.compile(r"\s*(?:\[\d{1,4}\]|\d{1,4}\.\s|\(\d{1,4}\))")
_PARAGRAPH = re.compile(r"[^\n]*(?:\n(?![ \t]*\n)[^\n]*)*")


class Section(msgspec.Struct, frozen=True):
    """View offsets: heading start, first character after the heading, end of the list."""

    heading_start: int
    start: int
    end: int


def is_reference_heading(line: str) -> bool:
    return _HEADING.fullmatch(line.strip()) is not None


def find_reference_sections(text: str) -> list[Section]:
    """Every reference heading with text after it, each running to the next such heading.

    Article-based theses have one list per chapter; which of these hold a real list (not a
    table-of-contents line) is decided by the caller from the entries found.
    """
    headings = [h for h in _HEADING.finditer(text) if len(text) - h.end() >= MIN_LIST_CHARS]
    sections: list[Section] = []
    for position, heading in enumerate(headings):
        end = headings[position + 1].start() if position + 1 < len(headings) else len(text)
        end = list_extent(text, heading.end(), end)
        sections.append(Section(heading_start=heading.start(), start=heading.end(), end=end))
    return sections


def is_prose(paragraph: str) -> bool:
    """Long text with few years: body prose, not reference entries (which date every entry)."""
    if len(paragraph) < MIN_PROSE_CHARS:
        return False
    years = len(_YEAR.findall(paragraph))
    # Author lists are dense with commas; prose is not.
    commas = paragraph.count(",")
    return (
        years * MAX_PROSE_CHARS_PER_YEAR < len(paragraph)
        and commas * MIN_PROSE_CHARS_PER_COMMA < len(paragraph)
        and not _ENTRY_LABEL.match(paragraph)
        # One long entry on its own (the page layout split the list into entries) is no prose.
        and not looks_like_entry_start(paragraph)
    )


def list_extent(text: str, start: int, end: int) -> int:
    """Where the list after a heading stops: at the first prose paragraph, or at a heading line
    followed by prose (the next chapter), whichever comes first; else at ``end``."""
    paragraphs = [
        (match.start(), match.group(0))
        for match in _PARAGRAPH.finditer(text, start, end)
        if match.group(0).strip()
    ]
    seen_entry = False
    for number, (offset, paragraph) in enumerate(paragraphs):
        if is_prose(paragraph):
            if seen_entry:
                return offset
            continue
        first_line = paragraph.strip().split("\n", 1)[0]
        is_heading = len(first_line) <= 80 and not first_line.rstrip().endswith((".", ","))
        following = paragraphs[number + 1][1] if number + 1 < len(paragraphs) else ""
        if (
            seen_entry
            and is_heading
            and not _ENTRY_LABEL.match(paragraph)
            and (is_prose(following) or not following)
        ):
            return offset
        seen_entry = seen_entry or bool(_YEAR.search(paragraph))
    return end


def find_reference_section(text: str) -> Section | None:
    """The last reference heading that is followed by a list; the end is the next appendix."""
    headings = list(_HEADING.finditer(text))
    if not headings:
        return None
    # Tables of contents and running headers also say "References"; the list is the last one
    # with enough text after it to hold entries.
    chosen = headings[-1]
    for heading in reversed(headings):
        if len(text) - heading.end() >= MIN_LIST_CHARS:
            chosen = heading
            break
    start = chosen.end()
    end = len(text)
    after = _SECTION_AFTER.search(text, start)
    if after is not None:
        end = after.start()
    for lettered in _LETTERED_APPENDIX.finditer(text, start, end):
        if len(lettered.group(0).split()) > MAX_APPENDIX_HEADING_WORDS:
            continue
        before = text[max(start, lettered.start() - MAX_ENTRY_HEAD_CHARS) : lettered.start()]
        last_line = before.rstrip().rsplit("\n", 1)[-1]
        if is_head_only(last_line) or is_authors_only(last_line) or not can_end_entry(last_line):
            # "A SARS-CoV-2 interaction map" after "Okafor, P. and Haddad, L. (2020)" or after
            # "[11] H. McDonald, P. Haddad.", or "A Review" after "...System:": the entry's
            # title goes on, this is no appendix.
            continue
        end = lettered.start()
        break
    return Section(heading_start=chosen.start(), start=start, end=end)
