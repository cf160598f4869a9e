"""Planning's view of the session's bibliography uploads: their entries, and what they say about
each thesis reference (see `citeproof.retriever.linking.through_library` for the rules)."""

from __future__ import annotations

from collections.abc import Callable
from uuid import UUID

import asyncpg

from citeproof.contracts.thesis import Reference, SourceMeta
from citeproof.retriever.linking.through_library import LibraryLink, link_through_library

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


async def load_library(
    pool: asyncpg.Pool,
    documents: dict[UUID, asyncpg.Record],
    to_reference: Callable[[asyncpg.Record], Reference],
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
            entries.append(to_reference(row))
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
