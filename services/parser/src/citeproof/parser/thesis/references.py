"""The reference list of a document as `Reference` records."""

from __future__ import annotations

from citeproof.contracts.thesis import Reference
from citeproof.parser.thesis.entries import entry_text, mask_footnotes, split_entries
from citeproof.parser.thesis.fields import parse_entry
from citeproof.parser.thesis.sections import Section
from citeproof.parser.thesis.textview import TextView
from citeproof.text.names import name_key


def author_year_label(authors: list[str], year: int | None, suffix: str | None, raw: str) -> str:
    """ "Smith2020a": first author's surname (ASCII, no spaces) + year (or "nd") + suffix."""
    surname = authors[0] if authors else raw.split(maxsplit=1)[0] if raw.split() else "anon"
    key = "".join(part.capitalize() for part in name_key(surname).split()) or "Anon"
    key = key[:1].upper() + key[1:]
    return f"{key}{year if year is not None else 'nd'}{suffix or ''}"


def unique_label(label: str, used: set[str]) -> str:
    """``label``, or ``label-2``, ``label-3``... if taken (same surname and year, no suffix)."""
    candidate, counter = label, 2
    while candidate in used:
        candidate = f"{label}-{counter}"
        counter += 1
    used.add(candidate)
    return candidate


def extract_references(view: TextView, section: Section) -> tuple[list[Reference], int]:
    """Split and parse the entries of ``section``; offsets in the result index the original.

    Also returns the view offset where the last entry ends.
    """
    references: list[Reference] = []
    list_end = section.start
    used_labels: set[str] = set()
    text = mask_footnotes(view.text, section.start, section.end)
    for entry in split_entries(text, section.start, section.end):
        body = entry_text(text, entry)
        if not body:
            continue
        fields = parse_entry(body)
        if entry.number is not None:
            label = str(entry.number)
        else:
            label = author_year_label(fields.authors, fields.year, fields.year_suffix, body)
        label = unique_label(label, used_labels)
        trimmed_end = entry.end
        while trimmed_end > entry.start and view.text[trimmed_end - 1].isspace():
            trimmed_end -= 1
        char_start, char_end = view.original_span(entry.start, trimmed_end)
        list_end = max(list_end, entry.end)
        references.append(
            Reference(
                ordinal=len(references) + 1,
                label=label,
                raw=body,
                authors=fields.authors,
                year=fields.year,
                year_suffix=fields.year_suffix,
                title=fields.title,
                venue=fields.venue,
                doi=fields.doi,
                arxiv_id=fields.arxiv_id,
                char_start=char_start,
                char_end=char_end,
            )
        )
    return references, list_end
