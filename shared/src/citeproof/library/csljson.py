"""CSL-JSON (Zotero's and Better BibTeX's "CSL JSON" export, and the item data Zotero and
Mendeley store inside Word citation fields)."""

from __future__ import annotations

import json
from typing import Any

from citeproof.library.fields import (
    clean_doi,
    clean_isbn,
    clean_pmid,
    generated_key,
    parse_year,
)
from citeproof.library.model import (
    CSL_JSON,
    Library,
    LibraryEntry,
    LibraryFormatError,
    LibraryProblem,
)
from citeproof.text.names import surname_of

_KEY_FIELDS = ("citation-key", "citationKey", "id")
_VENUE_FIELDS = ("container-title", "publisher", "collection-title")


def _surname(person: Any) -> str:
    if not isinstance(person, dict):
        return surname_of(str(person))
    if person.get("family"):
        particle = person.get("non-dropping-particle")
        family = str(person["family"]).strip()
        return f"{particle} {family}" if particle else family
    return str(person.get("literal") or "").strip()


def _year(item: dict[str, Any]) -> int | None:
    for field in ("issued", "original-date", "submitted"):
        value = item.get(field)
        if isinstance(value, dict):
            parts = value.get("date-parts")
            if parts and parts[0]:
                return parse_year(parts[0][0])
            if value.get("raw") or value.get("literal"):
                return parse_year(value.get("raw") or value.get("literal"))
    return None


def csl_item_entry(item: dict[str, Any], used: set[str], line: int | None = None) -> LibraryEntry:
    """One CSL-JSON item as a library entry; `used` keeps keys unique within one library."""
    authors = [s for s in (_surname(p) for p in item.get("author") or []) if s]
    if not authors:
        authors = [s for s in (_surname(p) for p in item.get("editor") or []) if s]
    year = _year(item)
    key = next((str(item[f]) for f in _KEY_FIELDS if item.get(f) not in (None, "")), "")
    if not key or key in used:
        key = generated_key(authors, year, used)
    else:
        used.add(key)
    title = item.get("title")
    venue = next((str(item[f]) for f in _VENUE_FIELDS if item.get(f)), None)
    return LibraryEntry(
        key=key,
        entry_type=str(item.get("type") or "document"),
        title=str(title).strip() if title else None,
        authors=authors,
        year=year,
        doi=clean_doi(item.get("DOI") or item.get("doi")) or clean_doi(item.get("URL")),
        venue=venue,
        pmid=clean_pmid(item.get("PMID")),
        isbn=clean_isbn(item.get("ISBN")),
        line=line,
    )


def parse_csl_json(text: str) -> Library:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise LibraryFormatError(
            f"The CSL-JSON file is not valid JSON: {exc.msg} (line {exc.lineno}, column "
            f"{exc.colno}).",
            line=exc.lineno,
        ) from None
    items = data.get("items", [data]) if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise LibraryFormatError("The CSL-JSON file must hold a list of items.")
    entries: list[LibraryEntry] = []
    problems: list[LibraryProblem] = []
    used: set[str] = set()
    for number, item in enumerate(items, start=1):
        if not isinstance(item, dict):
            problems.append(LibraryProblem(line=None, message=f"item {number} is not an object"))
            continue
        entries.append(csl_item_entry(item, used))
    return Library(format=CSL_JSON, entries=entries, problems=problems)
