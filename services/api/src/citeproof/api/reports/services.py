"""Assemble a run's report from citations, references, links, verdicts and documents."""

from __future__ import annotations

import uuid

import asyncpg
import msgspec

from citeproof.api.reports.schemas import (
    Report,
    ReportCitation,
    ReportReference,
    ReportSource,
    ReportSummary,
    ReportThesis,
    ReportVerdict,
)
from citeproof.api.runs.services import get_run_status
from citeproof.pipeline import VERDICT_LABELS

CITATIONS_SQL = """
SELECT c.id AS citation_id, c.ordinal, c.marker_text, c.claim_text, c.context_text, c.page,
       COALESCE(rf.label, c.reference_label) AS ref_label, rf.raw AS ref_raw,
       rf.title AS ref_title,
       sd.id AS source_id, sd.title AS source_title, sd.filename AS source_filename,
       l.method AS link_method, l.score AS link_score, c.source_file, c.source_line,
       (SELECT coalesce(array_agg(DISTINCT orf.label ORDER BY orf.label), '{}')
        FROM run_reference_links ol JOIN "references" orf ON orf.id = ol.reference_id
        WHERE ol.run_id = $1 AND ol.document_id = l.document_id
          AND ol.reference_id <> l.reference_id) AS shared_with,
       v.label, v.confidence, v.rationale, v.quote, v.quote_page, v.backend, v.model,
       v.downgrade_reason,
       (SELECT coalesce(json_agg(json_build_object('label', cr.label, 'raw', cr.raw,
                                                   'title', cr.title)
                                 ORDER BY array_position(c.candidate_labels, cr.label)), '[]')
        FROM "references" cr
        WHERE cr.document_id = c.document_id AND cr.label = ANY(c.candidate_labels)
       ) AS candidates
FROM citations c
LEFT JOIN "references" rf ON rf.id = c.reference_id
LEFT JOIN run_reference_links l ON l.run_id = $1 AND l.reference_id = c.reference_id
LEFT JOIN documents sd ON sd.id = l.document_id AND sd.user_id = $2
LEFT JOIN verdicts v ON v.run_id = $1 AND v.citation_id = c.id
WHERE c.document_id = $3
ORDER BY c.ordinal
"""


def _candidates(value: str | list | None) -> list[ReportReference]:
    """The entries an unlinked marker nearly matched (json_agg arrives as JSON text)."""
    entries = msgspec.json.decode(value) if isinstance(value, str | bytes) else value or []
    return [
        ReportReference(label=entry["label"], raw=entry["raw"], title=entry["title"])
        for entry in entries
    ]


def _citation(row: asyncpg.Record) -> ReportCitation:
    source = None
    if row["source_id"] is not None:
        source = ReportSource(
            document_id=row["source_id"],
            title=row["source_title"],
            filename=row["source_filename"],
            link_method=row["link_method"],
            link_score=round(float(row["link_score"]), 3),
            shared_with=list(row["shared_with"]),
        )
    verdict = None
    if row["label"] is not None:
        verdict = ReportVerdict(
            label=row["label"],
            confidence=round(float(row["confidence"]), 4),
            rationale=row["rationale"],
            quote=row["quote"],
            quote_page=row["quote_page"],
            backend=row["backend"],
            model=row["model"],
            downgrade_reason=row["downgrade_reason"],
        )
    return ReportCitation(
        citation_id=row["citation_id"],
        ordinal=row["ordinal"],
        marker=row["marker_text"],
        claim=row["claim_text"],
        context=row["context_text"],
        page=row["page"],
        reference=ReportReference(
            label=row["ref_label"], raw=row["ref_raw"], title=row["ref_title"]
        ),
        source=source,
        verdict=verdict,
        candidates=_candidates(row["candidates"]),
        source_file=row["source_file"],
        source_line=row["source_line"],
    )


async def build_report(
    pool: asyncpg.Pool, user_id: uuid.UUID, run_id: uuid.UUID, stale_after_s: float
) -> Report:
    async with pool.acquire() as conn:
        # One snapshot, so the summary always matches the rows listed beneath it.
        async with conn.transaction(isolation="repeatable_read", readonly=True):
            run = await get_run_status(conn, user_id, run_id, stale_after_s)
            thesis = await conn.fetchrow(
                "SELECT id, title, filename FROM documents WHERE id = $1 AND user_id = $2",
                run.thesis_document_id,
                user_id,
            )
            rows = await conn.fetch(CITATIONS_SQL, run_id, user_id, run.thesis_document_id)
    citations = [_citation(row) for row in rows]
    counts = dict.fromkeys(VERDICT_LABELS, 0)
    for citation in citations:
        if citation.verdict is not None:
            counts[citation.verdict.label] = counts.get(citation.verdict.label, 0) + 1
    return Report(
        run=run,
        thesis=ReportThesis(id=thesis["id"], title=thesis["title"], filename=thesis["filename"]),
        summary=ReportSummary(total=len(citations), counts=counts),
        citations=citations,
    )
