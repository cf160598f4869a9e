"""Chicago notes–bibliography: a superscript number in the text, the citation in its note.

The notes are a numbered list under a "Notes" (or "Endnotes", "Footnotes") heading before the
bibliography. A note cites one or more works, separated by semicolons: in full the first time
("Ana García, Masks at Home (Madrid: Prensa, 2020), 12"), shortened after ("García, Masks at
Home, 14"), or "Ibid., 15" for the work of the note before. A note part links to a bibliography
entry only when the entry's first author's surname is among the part's first words and the
entry's title opens the rest of the part; otherwise the citation is left unlinked with the
entries of that surname as candidates (the strict rule of `resolve`).
"""

from __future__ import annotations

import re

import msgspec

from citeproof.contracts.thesis import Reference
from citeproof.parser.thesis.resolve import MAX_CANDIDATES, Resolution
from citeproof.text.names import name_key, surname_keys
from citeproof.text.normalize import comparison_key

# Alone on its line, or run into the first note when the block builder joined them ("Notes 1.").
_NOTES_HEADING = re.compile(
    r"^[ \t]*(?:\d+\.?[ \t]+)?(?:notes|endnotes|footnotes)[ \t]*(?:$|(?=1\.?[ \t]))",
    re.IGNORECASE | re.MULTILINE,
)
_NOTE_START = re.compile(r"^[ \t]*(\d{1,4})\.?[ \t]+(?=\S)", re.MULTILINE)
# The first note, right after the heading it was joined to.
# Leading spaces only from the start of their run (the heading's match ends after its own).
_FIRST_NOTE = re.compile(r"(?:(?<![ \t])[ \t]++)?(\d{1,4})\.?[ \t]++(?=\S)")
_IBID = re.compile(r"^\s*ibid\b\.?", re.IGNORECASE)
# Possessive: the spaces around an optional full stop are read one way only (linear).
# "..., 14.", "..., 14–15.", "..., p. 14.", "..., pp. 14–15."
_PINPOINT = re.compile(
    r",\s*+(?P<pin>(?:pp?\.\s*+)?+\d{1,4}+(?:\s*+[-–]\s*+\d{1,4}+)?+)\s*+\.?+\s*+$"
)
# Words of an entry's title that must open the note's title (fewer if the title is shorter).
TITLE_WORDS = 3
# The surname is looked for among this many first words of a note part.
NAME_WORDS = 8


class Notes(msgspec.Struct, frozen=True):
    """View offsets of the notes section and of each note's text, by note number."""

    heading_start: int
    end: int
    texts: dict[int, str]


def find_notes(text: str, before: int) -> Notes | None:
    """The numbered notes under the last notes heading before ``before`` (the bibliography)."""
    headings = [h for h in _NOTES_HEADING.finditer(text, 0, before)]
    if not headings:
        return None
    heading = headings[-1]
    first = _FIRST_NOTE.match(text, heading.end(), before)
    starts = ([first] if first else []) + [
        m
        for m in _NOTE_START.finditer(text, heading.end(), before)
        if not first or m.start() > first.start()
    ]
    texts: dict[int, str] = {}
    expected = 1
    numbered: list[tuple[int, re.Match[str]]] = []
    for match in starts:
        if int(match.group(1)) == expected:
            numbered.append((expected, match))
            expected += 1
    for position, (number, match) in enumerate(numbered):
        end = numbered[position + 1][1].start() if position + 1 < len(numbered) else before
        texts[number] = " ".join(text[match.end() : end].split())
    if not texts:
        return None
    return Notes(heading_start=heading.start(), end=before, texts=texts)


def _title_opens(reference: Reference, part: str) -> bool:
    if not reference.title:
        return False
    words = comparison_key(reference.title).split()[:TITLE_WORDS]
    return bool(words) and " ".join(words) in comparison_key(part)


def _names_first_author(reference: Reference, part: str) -> bool:
    if not reference.authors:
        return False
    keys = surname_keys(reference.authors[0])
    return any(name_key(word) in keys for word in part.split()[:NAME_WORDS])


def resolve_note(
    note: str, references: list[Reference], previous: Reference | None
) -> list[tuple[Resolution, str | None]]:
    """Each work the note cites: its entry (or candidates) and the pinpoint."""
    resolved: list[tuple[Resolution, str | None]] = []
    for part in (piece.strip() for piece in note.split(";")):
        if not part:
            continue
        pin = _PINPOINT.search(part)
        pinpoint = pin.group("pin") if pin else None
        if _IBID.match(part):
            resolved.append((Resolution(previous), pinpoint))
            continue
        same_name = [ref for ref in references if _names_first_author(ref, part)]
        matching = [ref for ref in same_name if _title_opens(ref, part)]
        if len(matching) == 1:
            previous = matching[0]
            resolved.append((Resolution(matching[0]), pinpoint))
        else:
            resolved.append((Resolution(None, same_name[:MAX_CANDIDATES]), pinpoint))
    return resolved
