"""Library entries as `Reference` rows: the key is the label every explicit link uses."""

from __future__ import annotations

from citeproof.contracts.thesis import Reference
from citeproof.library import LibraryEntry


def _raw(entry: LibraryEntry) -> str:
    """A one-line rendering for reports: "Kowalczyk, Brandt, Ferrer (2021). Title. Venue."."""
    parts = [", ".join(entry.authors) or "(no author)"]
    parts[0] += f" ({entry.year})." if entry.year else "."
    if entry.title:
        parts.append(entry.title.rstrip(".") + ".")
    if entry.venue:
        parts.append(entry.venue.rstrip(".") + ".")
    if entry.doi:
        parts.append(f"https://doi.org/{entry.doi}")
    return " ".join(parts)


def entry_reference(entry: LibraryEntry, ordinal: int) -> Reference:
    raw = _raw(entry)
    return Reference(
        ordinal=ordinal,
        label=entry.key,
        raw=raw,
        authors=list(entry.authors),
        year=entry.year,
        title=entry.title,
        venue=entry.venue,
        doi=entry.doi,
        attachments=[a.path for a in entry.attachments if a.is_pdf],
        char_start=0,
        char_end=len(raw),
    )


def library_references(entries: list[LibraryEntry]) -> list[Reference]:
    return [entry_reference(entry, ordinal) for ordinal, entry in enumerate(entries, start=1)]
