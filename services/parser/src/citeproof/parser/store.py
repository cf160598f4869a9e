"""Writes of the parse stage: the parsed document, its chunks with embeddings, and (for a
thesis) its references and citations. All run inside the item's completing transaction."""

from __future__ import annotations

from uuid import UUID

import asyncpg
import msgspec
import numpy as np

from citeproof.contracts.thesis import ThesisAnalysis
from citeproof.parser.parsed import ParsedDocument

_UPDATE_DOCUMENT = """
UPDATE documents
SET state = 'parsed', error_code = NULL, error_detail = NULL, detected_type = $2,
    notes = notes || $3::jsonb, pages = $4, title = $5, authors = $6::jsonb, year = $7,
    doi = $8, text_content = $9, page_starts = $10, page_labels = $11,
    page_label_offset = $12, parsed_at = now()
WHERE id = $1
"""

_INSERT_CHUNK = """
INSERT INTO chunks (document_id, user_id, ordinal, page_start, page_end, char_start, char_end,
                    heading, text, embedding, role)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
"""

_INSERT_REFERENCES = """
INSERT INTO "references" (document_id, ordinal, label, raw, authors, year, year_suffix, title,
                          venue, doi, arxiv_id, attachments)
SELECT $1, r.* FROM unnest($2::int[], $3::text[], $4::text[], $5::jsonb[], $6::int[],
                           $7::text[], $8::text[], $9::text[], $10::text[], $11::text[],
                           $12::jsonb[]) AS r
RETURNING id, label
"""

_INSERT_CITATION = """
INSERT INTO citations (document_id, ordinal, reference_id, reference_label, marker_text,
                       marker_start, marker_end, claim_text, claim_start, claim_end,
                       context_text, page, pinpoint, candidate_labels, source_file,
                       source_line, claim_checked, cited, pinpoint_pages, block_quote)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17,
        $18::jsonb, $19, $20)
"""


def _json(value: object) -> str:
    return msgspec.json.encode(value).decode()


async def store_document(
    conn: asyncpg.Connection,
    document_id: UUID,
    user_id: UUID,
    parsed: ParsedDocument,
    vectors: np.ndarray | None,
) -> None:
    """`vectors` is None for documents stored without embeddings (theses, by default)."""
    notes = list(parsed.notes)
    if parsed.analysis is not None:
        notes.extend(parsed.analysis.notes)
    meta = parsed.meta
    await conn.execute(
        _UPDATE_DOCUMENT,
        document_id,
        parsed.detected_type,
        _json(notes),
        parsed.pages,
        meta.title,
        _json(meta.authors),
        meta.year,
        meta.doi,
        parsed.text,
        parsed.page_starts,
        parsed.page_labels or None,
        parsed.page_label_offset,
    )
    # A retry after a commit that reported failure to us must not duplicate rows.
    await conn.execute("DELETE FROM chunks WHERE document_id = $1", document_id)
    await conn.executemany(
        _INSERT_CHUNK,
        [
            (
                document_id,
                user_id,
                chunk.ordinal,
                chunk.page_start,
                chunk.page_end,
                chunk.char_start,
                chunk.char_end,
                chunk.heading,
                chunk.text,
                None if vectors is None else vectors[index],
                chunk.role,
            )
            for index, chunk in enumerate(parsed.chunks)
        ],
    )
    if parsed.analysis is not None:
        await store_analysis(conn, document_id, parsed.analysis)


async def store_analysis(
    conn: asyncpg.Connection, document_id: UUID, analysis: ThesisAnalysis
) -> None:
    await conn.execute("DELETE FROM citations WHERE document_id = $1", document_id)
    await conn.execute('DELETE FROM "references" WHERE document_id = $1', document_id)
    refs = analysis.references
    rows = await conn.fetch(
        _INSERT_REFERENCES,
        document_id,
        [r.ordinal for r in refs],
        [r.label for r in refs],
        [r.raw for r in refs],
        [_json(r.authors) for r in refs],
        [r.year for r in refs],
        [r.year_suffix for r in refs],
        [r.title for r in refs],
        [r.venue for r in refs],
        [r.doi for r in refs],
        [r.arxiv_id for r in refs],
        [_json(r.attachments) for r in refs],
    )
    reference_ids = {row["label"]: row["id"] for row in rows}
    await conn.executemany(
        _INSERT_CITATION,
        [
            (
                document_id,
                c.ordinal,
                reference_ids.get(c.reference_label) if c.reference_label else None,
                c.reference_label,
                c.marker_text,
                c.marker_start,
                c.marker_end,
                c.claim_text,
                c.claim_start,
                c.claim_end,
                c.context_text,
                c.page,
                c.pinpoint,
                c.candidates,
                c.source_file,
                c.source_line,
                c.claim_checked,
                None if c.cited is None else _json(c.cited),
                c.pinpoint_pages,
                c.block_quote,
            )
            for c in analysis.citations
        ],
    )
