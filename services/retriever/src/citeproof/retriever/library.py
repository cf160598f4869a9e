"""Planning's view of the session's bibliography uploads: their entries, and what they say about
each thesis reference (see `citeproof.linking.library` for the rules)."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import asyncpg
import msgspec

from citeproof.contracts.thesis import Reference, SourceMeta
from citeproof.linking.library import LibraryLink, link_through_library

BIBLIOGRAPHY_KIND = "bibliography"

# Entries of the run's bibliography documents (the caller passes only the user's own ids).
SELECT_LIBRARY_ENTRIES = """
SELECT ordinal, label, raw, authors, year, year_suffix, title, venue, doi, arxiv_id, attachments
FROM "references" WHERE document_id = ANY($1::uuid[])
ORDER BY document_id, ordinal
"""

MISSING_ATTACHMENT_RATIONALE = (
    "The library entry {key} attaches {files}, but no uploaded source has that file name; "
    "upload it as a source."
)
WEAK_MATCH_RATIONALE = (
    "The reference matches no entry of the uploaded library closely enough to link it; "
    "closest entries: {candidates}."
)


def _decode(value: Any) -> list[str]:
    if not value:
        return []
    decoded = msgspec.json.decode(value) if isinstance(value, str | bytes) else value
    return [str(item) for item in decoded]


def library_reference(row: asyncpg.Record) -> Reference:
    return Reference(
        ordinal=row["ordinal"],
        label=row["label"],
        raw=row["raw"],
        authors=_decode(row["authors"]),
        year=row["year"],
        year_suffix=row["year_suffix"],
        title=row["title"],
        venue=row["venue"],
        doi=row["doi"],
        arxiv_id=row["arxiv_id"],
        attachments=_decode(row["attachments"]),
        char_start=0,
        char_end=len(row["raw"]),
    )


async def load_library(
    pool: asyncpg.Pool, documents: dict[UUID, asyncpg.Record]
) -> list[Reference]:
    """Every entry of the run's parsed bibliography documents; a key seen twice keeps its
    first entry (two exports of the same library are common)."""
    ids = [
        doc_id
        for doc_id, row in documents.items()
        if row["kind"] == BIBLIOGRAPHY_KIND and row["state"] == "parsed"
    ]
    if not ids:
        return []
    seen: set[str] = set()
    entries = []
    for row in await pool.fetch(SELECT_LIBRARY_ENTRIES, ids):
        if row["label"] not in seen:
            seen.add(row["label"])
            entries.append(library_reference(row))
    return entries


def library_decisions(
    references: list[Reference],
    reference_ids: list[int],
    library: list[Reference],
    sources: list[SourceMeta],
    documents: dict[UUID, asyncpg.Record],
) -> dict[int, LibraryLink]:
    """reference id -> the library's link (or weak match) for every reference it decides."""
    filenames = {
        doc_id: row["filename"]
        for doc_id, row in documents.items()
        if row["kind"] == "source" and row["state"] in ("parsed", "failed")
    }
    decisions = {}
    for reference_id, reference in zip(reference_ids, references, strict=True):
        decision = link_through_library(reference, library, sources, filenames)
        if decision is not None:
            decisions[reference_id] = decision
    return decisions
