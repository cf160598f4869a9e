"""RIS exports (Zotero, Mendeley, EndNote) via rispy, one record at a time.

rispy parses a whole file or fails; records are cut here first (at each `TY  -` line, whose line
number is kept) so a broken record is reported by line and the others are still read.
"""

from __future__ import annotations

import re
from typing import Any

import rispy

from citeproof.library.attachments import attachment_from_ris
from citeproof.library.fields import clean_doi, clean_isbn, generated_key, parse_year, surname
from citeproof.library.model import RIS, Library, LibraryEntry, LibraryProblem

_RECORD_START = re.compile(r"^TY  - ", re.MULTILINE)
_END = re.compile(r"^ER  -", re.MULTILINE)
# L1/L2 (attached files) may repeat; rispy keeps only the last value of a non-list tag.
_LIST_TAGS = [*rispy.LIST_TYPE_TAGS, "L1", "L2", "A2"]
_TITLE_KEYS = ("title", "primary_title", "translated_title")
_AUTHOR_KEYS = ("authors", "first_authors", "secondary_authors")
_YEAR_KEYS = ("year", "publication_year", "date")
_VENUE_KEYS = ("secondary_title", "journal_name", "alternate_title3", "alternate_title1")


def _records(text: str) -> list[tuple[int, str]]:
    starts = [m.start() for m in _RECORD_START.finditer(text)]
    return [
        (
            text.count("\n", 0, start) + 1,
            text[start : starts[i + 1] if i + 1 < len(starts) else None],
        )
        for i, start in enumerate(starts)
    ]


def _first(record: dict[str, Any], keys: tuple[str, ...]) -> str | None:
    for key in keys:
        value = record.get(key)
        if isinstance(value, list):
            value = value[0] if value else None
        if value:
            return str(value).strip()
    return None


def _isbn(value: str | None) -> str | None:
    isbn = clean_isbn(value)
    return isbn if isbn and (len(isbn) == 10 or isbn.startswith(("978", "979"))) else None


def _entry(record: dict[str, Any], line: int, used: set[str]) -> LibraryEntry:
    authors: list[str] = []
    for key in _AUTHOR_KEYS:
        if record.get(key):
            authors = [s for s in (surname(a) for a in record[key]) if s]
            break
    year = parse_year(_first(record, _YEAR_KEYS))
    attachments = []
    for tag in ("file_attachments1", "file_attachments2"):
        values = record.get(tag) or []
        for value in values if isinstance(values, list) else [values]:
            attachment = attachment_from_ris(str(value))
            if attachment is not None:
                attachments.append(attachment)
    urls = record.get("urls") or []
    doi = clean_doi(_first(record, ("doi",))) or next(
        (d for d in (clean_doi(u) for u in urls if "doi.org" in u) if d), None
    )
    key = (_first(record, ("id",)) or "").strip()
    if not key or key in used:
        key = generated_key(authors, year, used)
    else:
        used.add(key)
    return LibraryEntry(
        key=key,
        entry_type=(_first(record, ("type_of_reference",)) or "GEN").lower(),
        title=_first(record, _TITLE_KEYS),
        authors=authors,
        year=year,
        doi=doi,
        venue=_first(record, _VENUE_KEYS),
        # RIS keeps ISBNs and ISSNs in one tag (SN): only an ISBN's length and prefix pass.
        isbn=_isbn(_first(record, ("issn",))),
        attachments=attachments,
        line=line,
    )


def parse_ris(text: str) -> Library:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    entries: list[LibraryEntry] = []
    problems: list[LibraryProblem] = []
    used: set[str] = set()
    for line, chunk in _records(text):
        if not _END.search(chunk):
            problems.append(
                LibraryProblem(line=line, message="the record has no 'ER  -' end line; read anyway")
            )
            chunk = chunk.rstrip("\n") + "\nER  - \n"
        try:
            records = rispy.loads(chunk, list_tags=_LIST_TAGS)
        except Exception as exc:  # rispy raises plain exceptions on malformed records
            problems.append(
                LibraryProblem(line=line, message=f"this record could not be read: {exc}")
            )
            continue
        for record in records:
            entries.append(_entry(record, line, used))
    return Library(format=RIS, entries=entries, problems=problems)
