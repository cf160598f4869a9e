"""Field values shared by every format: years, DOIs, surnames, generated keys."""

from __future__ import annotations

import re

from citeproof.text.names import name_key, surname_of

_YEAR = re.compile(r"(?<!\d)(1[5-9]\d\d|20\d\d)(?!\d)")
_DOI = re.compile(r"10\.\d{4,9}/\S+")


def parse_year(value: object) -> int | None:
    match = _YEAR.search(str(value or ""))
    return int(match.group(1)) if match else None


def clean_doi(value: str | None) -> str | None:
    """The bare DOI from a DOI field or a doi.org URL, lower-cased; None when there is none."""
    if not value:
        return None
    match = _DOI.search(value.strip())
    return match.group(0).rstrip(".,;").lower() if match else None


def clean_pmid(value: object) -> str | None:
    """A PubMed id: digits only ("PMID: 9500320" -> "9500320")."""
    match = re.search(r"\b(\d{1,9})\b", str(value or ""))
    return match.group(1) if match and match.group(1).strip("0") else None


def clean_isbn(value: object) -> str | None:
    """The first ISBN-10 or ISBN-13 of a field, digits (and a final X) only."""
    for part in re.split(r"[;,]|\s(?=97[89])", str(value or "")):
        digits = re.sub(r"[^0-9Xx]", "", part).upper()
        if len(digits) in (10, 13):
            return digits
    return None


def clean_arxiv(value: object) -> str | None:
    """An arXiv id from an eprint field ("arXiv:1706.03762v5" -> "1706.03762")."""
    match = re.search(r"(\d{4}\.\d{4,5}|[a-z\-]+(?:\.[A-Z]{2})?/\d{7})", str(value or ""))
    return match.group(1).lower() if match else None


def surname(person: str) -> str:
    return surname_of(person)


def generated_key(authors: list[str], year: int | None, used: set[str]) -> str:
    """An author+year key ("kowalczyk2021", then "kowalczyk2021a") for exports without keys."""
    base = (name_key(authors[0]) if authors else "anon") + (str(year) if year else "")
    key = base or "entry"
    suffix = 0
    while key in used:
        suffix += 1
        key = f"{base}{chr(ord('a') + suffix - 1)}" if suffix <= 26 else f"{base}_{suffix}"
    used.add(key)
    return key
