"""Assemble a run's report from citations, references, links, verdicts, findings and documents."""

from __future__ import annotations

import uuid
from collections import defaultdict
from typing import Final

import asyncpg
import msgspec

from citeproof.api.reports import risk
from citeproof.api.reports.findings import (
    DEFAULT_SETTINGS,
    RuleSettings,
    label_finding,
    resolve,
    worst_first,
)
from citeproof.api.reports.schemas import (
    Report,
    ReportCitation,
    ReportEntry,
    ReportFinding,
    ReportReference,
    ReportRisk,
    ReportSource,
    ReportSummary,
    ReportThesis,
    ReportVerdict,
)
from citeproof.api.runs.services import get_run_status
from citeproof.contracts.findings import Finding, citation_subject, entry_subject
from citeproof.contracts.verification import (
    NOT_LOOKED_UP,
    OFF_DETAIL,
    PENDING,
    EntryVerification,
)
from citeproof.findings import Found, findings_of_run
from citeproof.pipeline import LABEL_FINDINGS, VERDICT_LABELS

# The run status whose report is final (anything else: the headline says "results so far").
COMPLETED_STATUS: Final = "completed"

CITATIONS_SQL = """
SELECT c.id AS citation_id, c.ordinal, c.marker_text, c.claim_text, c.context_text, c.page,
       c.reference_id,
       COALESCE(rf.label, c.reference_label) AS ref_label, rf.raw AS ref_raw,
       rf.title AS ref_title,
       sd.id AS source_id, sd.title AS source_title, sd.filename AS source_filename,
       l.method AS link_method, l.score AS link_score, c.source_file, c.source_line,
       (SELECT coalesce(array_agg(DISTINCT orf.label ORDER BY orf.label), '{}')
        FROM run_reference_links ol JOIN "references" orf ON orf.id = ol.reference_id
        WHERE ol.run_id = $1 AND ol.document_id = l.document_id
          AND ol.reference_id <> l.reference_id) AS shared_with,
       v.label, v.confidence, v.rationale, v.quote, v.quote_page, v.backend, v.model,
       v.downgrade_reason, v.problem_probability, v.band,
       EXISTS (SELECT 1 FROM retrieve_tasks t
               WHERE t.run_id = $1 AND t.citation_id = c.id AND t.state = 'succeeded')
         AS content_checked,
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
# Every entry of the thesis's reference list, with the document this run linked to it.
ENTRIES_SQL = """
SELECT rf.id AS reference_id, rf.label, rf.raw, rf.title,
       sd.id AS source_id, sd.title AS source_title, sd.filename AS source_filename,
       l.method AS link_method, l.score AS link_score,
       (SELECT coalesce(array_agg(DISTINCT orf.label ORDER BY orf.label), '{}')
        FROM run_reference_links ol JOIN "references" orf ON orf.id = ol.reference_id
        WHERE ol.run_id = $1 AND ol.document_id = l.document_id
          AND ol.reference_id <> l.reference_id) AS shared_with,
       rc.body AS verification
FROM "references" rf
LEFT JOIN run_reference_links l ON l.run_id = $1 AND l.reference_id = rf.id
LEFT JOIN reference_checks rc ON rc.run_id = $1 AND rc.reference_id = rf.id
LEFT JOIN documents sd ON sd.id = l.document_id AND sd.user_id = $2
WHERE rf.document_id = $3
ORDER BY rf.ordinal, rf.id
"""


# The run's reference verification: NULL (off), 'pending', 'done' (migration 0020).
RUN_VERIFICATION_SQL = "SELECT verification FROM runs WHERE id = $1 AND user_id = $2"
VERIFICATION_PENDING: Final = "pending"
_VERIFICATION: Final = msgspec.json.Decoder(EntryVerification)


def _candidates(value: str | list | None) -> list[ReportReference]:
    """The entries an unlinked marker nearly matched (json_agg arrives as JSON text)."""
    entries = msgspec.json.decode(value) if isinstance(value, str | bytes) else value or []
    return [
        ReportReference(label=entry["label"], raw=entry["raw"], title=entry["title"])
        for entry in entries
    ]


def _source(row: asyncpg.Record) -> ReportSource | None:
    if row["source_id"] is None:
        return None
    return ReportSource(
        document_id=row["source_id"],
        title=row["source_title"],
        filename=row["source_filename"],
        link_method=row["link_method"],
        link_score=round(float(row["link_score"]), 3),
        shared_with=list(row["shared_with"]),
    )


def _citation(row: asyncpg.Record) -> ReportCitation:
    verdict = None
    # A pipeline label that is a finding is reported as that finding, not as a verdict.
    if row["label"] is not None and row["label"] not in LABEL_FINDINGS:
        verdict = ReportVerdict(
            label=row["label"],
            confidence=round(float(row["confidence"]), 4),
            rationale=row["rationale"],
            quote=row["quote"],
            quote_page=row["quote_page"],
            backend=row["backend"],
            model=row["model"],
            downgrade_reason=row["downgrade_reason"],
            problem_probability=(
                None
                if row["problem_probability"] is None
                else round(float(row["problem_probability"]), 4)
            ),
            band=row["band"],
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
        source=_source(row),
        verdict=verdict,
        candidates=_candidates(row["candidates"]),
        source_file=row["source_file"],
        source_line=row["source_line"],
        reference_id=row["reference_id"],
        content_checked=row["content_checked"],
    )


def _entry(row: asyncpg.Record, cited_by: list[int], verification: str | None) -> ReportEntry:
    return ReportEntry(
        reference_id=row["reference_id"],
        label=row["label"],
        raw=row["raw"],
        title=row["title"],
        source=_source(row),
        cited_by=cited_by,
        verification=_verification(row["verification"], verification),
    )


def _verification(body: str | bytes | None, run_state: str | None) -> EntryVerification:
    """The entry's verification; without a stored one, what the run's state implies."""
    if body is not None:
        return _VERIFICATION.decode(body)
    if run_state is None:
        return EntryVerification(status=NOT_LOOKED_UP, detail=OFF_DETAIL)
    if run_state == VERIFICATION_PENDING:
        return EntryVerification(status=PENDING, detail="being looked up")
    return EntryVerification(status=NOT_LOOKED_UP, detail="not looked up")


def _with_findings(
    rows: list[asyncpg.Record],
    citations: list[ReportCitation],
    entries: list[ReportEntry],
    found: list[Found],
    settings: RuleSettings,
) -> tuple[list[ReportCitation], list[ReportEntry]]:
    """Attach each stored finding to its citation and/or entry, resolved against the request's
    settings, and the pipeline labels that are findings once (synthesised from the verdict)."""
    entry_subjects = {e.reference_id: entry_subject(e.raw, e.label) for e in entries}
    # citation -> its findings, each with the entry it is also about (an entry's finding shown at
    # the citation that led to it), if any.
    by_citation: dict[int, list[tuple[Finding, int | None]]] = defaultdict(list)
    by_entry: dict[int, list[Finding]] = defaultdict(list)
    for item in found:
        if item.citation_id is not None:
            by_citation[item.citation_id].append((item.finding, item.reference_id))
        if item.reference_id is not None and item.reference_id in entry_subjects:
            by_entry[item.reference_id].append(item.finding)
    with_citations = []
    for row, citation in zip(rows, citations, strict=True):
        subject = citation_subject(citation.claim, citation.marker)
        stored = by_citation.get(citation.citation_id, [])
        synthesised = label_finding(
            row["label"],
            rationale=row["rationale"],
            marker=citation.marker,
            reference_raw=citation.reference.raw,
            candidate_raws=[c.raw for c in citation.candidates if c.raw],
            source_filename=citation.source.filename if citation.source else None,
            stored_rules={f.rule for f, _ in stored},
        )
        if synthesised is not None:
            stored = [*stored, (synthesised, None)]
        resolved: list[ReportFinding] = []
        for finding, reference_id in stored:
            shown = resolve(
                finding,
                citation_subject=subject,
                entry_subject=entry_subjects.get(reference_id or citation.reference_id or -1),
                settings=settings,
            )
            if shown is not None:
                resolved.append(shown)
        with_citations.append(msgspec.structs.replace(citation, findings=worst_first(resolved)))
    with_entries = []
    for entry in entries:
        resolved = []
        for finding in by_entry.get(entry.reference_id, []):
            shown = resolve(
                finding,
                citation_subject=None,
                entry_subject=entry_subjects[entry.reference_id],
                settings=settings,
            )
            if shown is not None:
                resolved.append(shown)
        with_entries.append(msgspec.structs.replace(entry, findings=worst_first(resolved)))
    return with_citations, with_entries


async def build_report(
    pool: asyncpg.Pool,
    user_id: uuid.UUID,
    run_id: uuid.UUID,
    stale_after_s: float,
    settings: RuleSettings = DEFAULT_SETTINGS,
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
            entry_rows = await conn.fetch(ENTRIES_SQL, run_id, user_id, run.thesis_document_id)
            verification = await conn.fetchval(RUN_VERIFICATION_SQL, run_id, user_id)
            found = await findings_of_run(conn, run_id)
    cited_by: dict[int, list[int]] = defaultdict(list)
    for row in rows:
        if row["reference_id"] is not None:
            cited_by[row["reference_id"]].append(row["citation_id"])
    citations, entries = _with_findings(
        rows,
        [_citation(row) for row in rows],
        [_entry(row, cited_by.get(row["reference_id"], []), verification) for row in entry_rows],
        found,
        settings,
    )
    # Every stored label counts, the pipeline's own included, so the counts add up.
    counts = dict.fromkeys(VERDICT_LABELS, 0)
    for row in rows:
        if row["label"] is not None:
            counts[row["label"]] = counts.get(row["label"], 0) + 1
    bands = [risk.band_of(c.verdict) for c in citations]
    order = sorted(range(len(citations)), key=lambda i: risk.risk_key(citations[i], bands[i]))
    ranks = {index: rank for rank, index in enumerate(order, start=1)}
    citations = [
        msgspec.structs.replace(
            c,
            risk=ReportRisk(
                rank=ranks[i],
                band=bands[i],
                problem_probability=c.verdict.problem_probability if c.verdict else None,
            ),
        )
        for i, c in enumerate(citations)
    ]
    severities, by_rule = risk.count_findings(citations, entries)
    summary = ReportSummary(
        total=len(citations),
        counts=counts,
        findings=severities,
        by_rule=by_rule,
        bands=risk.count_bands(bands),
        headline=risk.headline(
            [row["label"] for row in rows],
            bands,
            severities,
            run.status,
            completed=run.status == COMPLETED_STATUS,
        ),
    )
    return Report(
        run=run,
        thesis=ReportThesis(id=thesis["id"], title=thesis["title"], filename=thesis["filename"]),
        summary=summary,
        citations=citations,
        entries=entries,
    )
