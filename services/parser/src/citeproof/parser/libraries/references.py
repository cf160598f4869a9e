"""Library entries as `Reference` rows: the key is the label every explicit link uses."""

from __future__ import annotations

from citeproof.contracts.thesis import Reference
from citeproof.library import LibraryEntry
from citeproof.library.attachments import is_absolute, relative_inside


def usable_attachments(entry: LibraryEntry) -> tuple[list[str], list[str]]:
    """(PDF paths kept, paths refused). A path climbing out of the export with `..` is refused;
    an absolute path (Zotero's storage folder on the user's machine) is kept, because only its
    file name is ever compared with uploaded files: the server opens no path from a library."""
    kept: list[str] = []
    refused: list[str] = []
    for attachment in entry.attachments:
        if not attachment.is_pdf:
            continue
        if is_absolute(attachment.path) or relative_inside(attachment.path) is not None:
            kept.append(attachment.path)
        else:
            refused.append(attachment.path)
    return kept, refused


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
    # Identifiers reference verification reads from the entry (ADR 0024).
    if entry.arxiv_id:
        parts.append(f"arXiv:{entry.arxiv_id}.")
    if entry.pmid:
        parts.append(f"PMID: {entry.pmid}.")
    if entry.isbn:
        parts.append(f"ISBN {entry.isbn}.")
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
        arxiv_id=entry.arxiv_id,
        attachments=usable_attachments(entry)[0],
        char_start=0,
        char_end=len(raw),
    )


def library_references(entries: list[LibraryEntry]) -> list[Reference]:
    return [entry_reference(entry, ordinal) for ordinal, entry in enumerate(entries, start=1)]
