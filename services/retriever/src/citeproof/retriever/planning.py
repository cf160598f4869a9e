"""Run planning: once every document of a run is parsed (or failed), decide for each citation
whether it can be checked, and fan out the retrieval tasks — in ONE transaction.

This is the only place where a run fans out. It is safe under races by construction: the claim
makes one planner own the run, the fenced completion (`ctx.complete()`, which runs first in the
transaction and locks the run row) lets only a planner that still owns it commit, and every
insert is `ON CONFLICT DO NOTHING` on its natural key as a belt.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from typing import Any, Final, Protocol
from uuid import UUID

import asyncpg
import msgspec

from citeproof.contracts.findings import Finding
from citeproof.contracts.thesis import (
    LATEX_TYPE,
    LINK_EXPLICIT,
    LINK_OPEN_ACCESS,
    CitedWork,
    LinkResult,
    Reference,
    SourceMeta,
)
from citeproof.findings import PRODUCER_PLAN, Found, replace_findings
from citeproof.pipeline import (
    EVENTS_CHANNEL,
    NOT_CHECKABLE,
    REFERENCE_MISSING,
    RETRIEVE_CHANNEL,
    SOURCE_MISSING,
    SOURCE_UNREADABLE,
    WRONG_ATTACHMENT,
)
from citeproof.queue import TaskContext, TerminalOutcome, notify
from citeproof.retriever.library import (
    MISSING_ATTACHMENT_RATIONALE,
    WEAK_MATCH_RATIONALE,
    library_decisions,
    load_library,
)
from citeproof.retriever.linking import assign_sources
from citeproof.retriever.linking.attachment import attachment_findings
from citeproof.retriever.linking.through_library import with_source
from citeproof.retriever.open_access import (
    OpenAccessClient,
    OpenAccessResult,
    annotate_missing,
    fetched_documents,
    find_open_access,
    opted_in,
    wanted_references,
)
from citeproof.retriever.query import strip_markers, word_count
from citeproof.retriever.reference_list import (
    ListedCitation,
    ListedEntry,
    reference_list_findings,
)
from citeproof.retriever.settings import RetrieverSettings

# Written on verdicts decided by the pipeline itself, not by a judge backend.
PIPELINE_BACKEND: Final = "pipeline"
NO_CITATIONS_MESSAGE: Final = "no citations found"
NOTHING_CHECKABLE_MESSAGE: Final = "no citation could be checked against an uploaded source"

SELECT_PENDING = """
SELECT count(*) FROM documents
WHERE id = ANY($1::uuid[]) AND user_id = $2 AND state = 'pending'
"""

SELECT_OVERRIDES = """
SELECT label, document_id FROM reference_overrides
WHERE session_id = $1 AND thesis_document_id = $2
"""

# A source's first page helps the linker when the PDF has no usable metadata.
SELECT_DOCUMENTS = """
SELECT id, kind, state, error_code, title, authors, year, doi, filename, detected_type,
       left(text_content, CASE WHEN cardinality(page_starts) > 1 THEN page_starts[2]
                               ELSE $3 END) AS first_page_text
FROM documents
WHERE id = ANY($1::uuid[]) AND user_id = $2
"""

SELECT_REFERENCES = """
SELECT id, ordinal, label, raw, authors, year, year_suffix, title, venue, doi, arxiv_id,
       attachments
FROM "references" WHERE document_id = $1 ORDER BY ordinal
"""

SELECT_CITATIONS = """
SELECT id, reference_id, claim_text, claim_checked, claim_start, marker_text, marker_start,
       marker_end, candidate_labels, cited
FROM citations WHERE document_id = $1 ORDER BY ordinal
"""

INSERT_LINKS = """
INSERT INTO run_reference_links (run_id, reference_id, document_id, score, method)
SELECT $1, l.* FROM unnest($2::bigint[], $3::uuid[], $4::real[], $5::text[]) AS l
ON CONFLICT (run_id, reference_id) DO NOTHING
"""

INSERT_TASKS = """
INSERT INTO retrieve_tasks (run_id, citation_id, user_id, source_document_id)
SELECT $1, t.citation_id, $2, t.document_id
FROM unnest($3::bigint[], $4::uuid[]) AS t(citation_id, document_id)
ON CONFLICT (run_id, citation_id) DO NOTHING
"""

INSERT_VERDICTS = """
INSERT INTO verdicts (run_id, citation_id, label, confidence, rationale, backend)
SELECT $1, v.citation_id, v.label, 1.0, v.rationale, $5
FROM unnest($2::bigint[], $3::text[], $4::text[]) AS v(citation_id, label, rationale)
ON CONFLICT (run_id, citation_id) DO NOTHING
"""

UPDATE_RUN = """
UPDATE runs
SET citations_total = $2, tasks_total = $3, counts = $4::jsonb, status = $5, message = $6
WHERE id = $1
"""

RUN_STATUS = "SELECT status FROM runs WHERE id = $1"

# A run whose planning can never succeed must say so instead of waiting forever.
FAIL_RUN = """
UPDATE runs SET status = 'failed', message = $2
WHERE id = $1 AND status NOT IN ('completed', 'cancelled', 'failed')
"""

RATIONALE = {
    "no_reference": "The citation marker matches no entry of the reference list.",
    "near_miss": (
        "The citation marker matches no entry of the reference list on first author, year, "
        "year suffix and number of authors; closest entries: {candidates}."
    ),
    "no_source": "No uploaded source matches this reference.",
    "override_none": "This reference was marked as having no uploaded source.",
    "unreadable": "The matching source could not be parsed ({error}).",
    "no_claim": "The citing sentence has no checkable claim once its markers are removed.",
    "wrong_attachment": (
        "The file linked to this reference is another work ({title}; finding {code}), so the "
        "claim was not checked against it. Attach the right PDF."
    ),
}


class VerificationQueuer(Protocol):
    """Queues reference verification for a run in the fan-out transaction (the verify stage's
    `VerificationQueue`; ADR 0024); True when it did."""

    async def queue(self, conn: asyncpg.Connection, run: Any) -> bool: ...


@dataclass(frozen=True)
class Plan:
    """Everything the planning transaction writes, computed before it opens."""

    links: list[tuple[int, UUID | None, float, str]]
    tasks: list[tuple[int, UUID]]
    verdicts: list[tuple[int, str, str]]
    citations_total: int
    # The planner's findings (attachments, the reference list), replacing its earlier ones.
    findings: list[Found] = dataclass_field(default_factory=list)

    @property
    def counts(self) -> dict[str, int]:
        return dict(Counter(label for _, label, _ in self.verdicts))


def _decode_list(value: Any) -> list[str]:
    if not value:
        return []
    decoded = msgspec.json.decode(value) if isinstance(value, str | bytes) else value
    return [str(item) for item in decoded]


def reference_from_row(row: asyncpg.Record) -> Reference:
    return Reference(
        ordinal=row["ordinal"],
        label=row["label"],
        raw=row["raw"],
        authors=_decode_list(row["authors"]),
        year=row["year"],
        year_suffix=row["year_suffix"],
        title=row["title"],
        venue=row["venue"],
        doi=row["doi"],
        arxiv_id=row["arxiv_id"],
        attachments=_decode_list(row.get("attachments")),
        char_start=0,
        char_end=len(row["raw"]),
    )


def source_meta_from_row(row: asyncpg.Record) -> SourceMeta:
    return SourceMeta(
        document_id=row["id"],
        title=row["title"],
        authors=_decode_list(row["authors"]),
        year=row["year"],
        doi=row["doi"],
        first_page_text=row["first_page_text"],
    )


def claim_marker_spans(citations: list[asyncpg.Record]) -> dict[int, list[tuple[int, int]]]:
    """Every marker inside each claim sentence, as offsets into that claim's text."""
    by_claim: dict[int, list[tuple[int, int]]] = {}
    for c in citations:
        by_claim.setdefault(c["claim_start"], []).append((c["marker_start"], c["marker_end"]))
    return {start: [(s - start, e - start) for s, e in spans] for start, spans in by_claim.items()}


def decide(
    references: list[asyncpg.Record],
    citations: list[asyncpg.Record],
    documents: dict[UUID, asyncpg.Record],
    overrides: dict[str, UUID | None],
    settings: RetrieverSettings,
    library: list[Reference] | None = None,
    fetched: OpenAccessResult | None = None,
) -> Plan:
    """Link every reference, then give every citation a task or a pipeline verdict.

    Precedence: the user's overrides, then the session's library (keys, attachments; a weak
    library match is reference_missing with its candidates), then a PDF the open-access lookup
    fetched for the reference's DOI, then the heuristic linker."""
    sources = [
        source_meta_from_row(d)
        for d in documents.values()
        if d["kind"] == "source" and d["state"] in ("parsed", "failed")
    ]
    links: dict[int, LinkResult] = {}
    through_library = library_decisions(
        [reference_from_row(row) for row in references],
        [row["id"] for row in references],
        library or [],
        sources,
        documents,
    )
    # Explicit links (overrides, library attachments) may share a source; every other link is
    # assigned one-to-one over the whole reference list.
    heuristic: list[tuple[int, Reference]] = []
    for row in references:
        decision = through_library.get(row["id"])
        if row["label"] in overrides:
            links[row["id"]] = LinkResult(
                document_id=overrides[row["label"]], score=1.0, method=LINK_EXPLICIT
            )
        elif (
            fetched is not None
            and fetched.links.get(row["id"]) in documents
            and (decision is None or decision.heuristic is not None)
        ):
            links[row["id"]] = LinkResult(
                document_id=fetched.links[row["id"]], score=1.0, method=LINK_OPEN_ACCESS
            )
        elif decision is not None and decision.heuristic is not None:
            heuristic.append((row["id"], decision.heuristic))
        elif decision is not None:
            links[row["id"]] = decision.link
        else:
            heuristic.append((row["id"], reference_from_row(row)))
    found = assign_sources([reference for _, reference in heuristic], sources)
    for (reference_id, _), link in zip(heuristic, found, strict=True):
        decision = through_library.get(reference_id)
        if decision is not None:
            through_library[reference_id] = decision = with_source(decision, link)
            link = decision.link
        links[reference_id] = link
    attachments = _attachment_findings(references, links, documents)
    # A file that is another work is no evidence for the entry's citations: they are not sent to
    # retrieval and the judge (ADR 0023) - unless the user linked that file to the entry
    # explicitly, which is their call; the finding is reported either way.
    wrong_attachments = {
        found.reference_id: found.finding
        for found in attachments
        if found.finding.rule == WRONG_ATTACHMENT.code
        and found.reference_id is not None
        and links[found.reference_id].method != LINK_EXPLICIT
    }
    weak_matches = {ref: d.candidates for ref, d in through_library.items() if d.candidates}
    unmatched_files = {ref: d for ref, d in through_library.items() if d.missing_attachments}
    overridden_to_none = {
        row["id"] for row in references if row["label"] in overrides and not overrides[row["label"]]
    }
    markers = claim_marker_spans(citations)
    tasks: list[tuple[int, UUID]] = []
    verdicts: list[tuple[int, str, str]] = []
    for c in citations:
        link = links.get(c["reference_id"]) if c["reference_id"] is not None else None
        document = documents.get(link.document_id) if link and link.document_id else None
        claim = c["claim_checked"] or strip_markers(
            c["claim_text"], markers.get(c["claim_start"], ())
        )
        if c["reference_id"] is None:
            verdicts.append((c["id"], REFERENCE_MISSING, _no_reference_rationale(c)))
        elif c["reference_id"] in weak_matches:
            candidates = ", ".join(weak_matches[c["reference_id"]])
            rationale = WEAK_MATCH_RATIONALE.format(candidates=candidates)
            verdicts.append((c["id"], REFERENCE_MISSING, rationale))
        elif document is None and c["reference_id"] in unmatched_files:
            decision = unmatched_files[c["reference_id"]]
            rationale = MISSING_ATTACHMENT_RATIONALE.format(
                key=decision.entry_key, files=", ".join(decision.missing_attachments)
            )
            verdicts.append((c["id"], SOURCE_MISSING, rationale))
        elif document is None:
            reason = "override_none" if c["reference_id"] in overridden_to_none else "no_source"
            verdicts.append((c["id"], SOURCE_MISSING, RATIONALE[reason]))
        elif c["reference_id"] in wrong_attachments:
            title = wrong_attachments[c["reference_id"]].found or "another title"
            rationale = RATIONALE["wrong_attachment"].format(
                title=f"“{title}”", code=WRONG_ATTACHMENT.code
            )
            verdicts.append((c["id"], SOURCE_MISSING, rationale))
        elif document["state"] != "parsed":
            error = document["error_code"] or "unknown error"
            rationale = RATIONALE["unreadable"].format(error=error)
            verdicts.append((c["id"], SOURCE_UNREADABLE, rationale))
        elif word_count(claim) < settings.min_claim_words:
            verdicts.append((c["id"], NOT_CHECKABLE, RATIONALE["no_claim"]))
        else:
            tasks.append((c["id"], document["id"]))
    if fetched is not None:
        verdicts = annotate_missing(verdicts, citations, fetched)
    thesis = next((d for d in documents.values() if d["kind"] == "thesis"), None)
    printed_list = thesis is None or thesis["detected_type"] != LATEX_TYPE
    return Plan(
        links=[(ref, link.document_id, link.score, link.method) for ref, link in links.items()],
        tasks=tasks,
        verdicts=verdicts,
        citations_total=len(citations),
        findings=attachments + _list_findings(references, citations, printed_list),
    )


def _attachment_findings(
    references: list[asyncpg.Record],
    links: dict[int, LinkResult],
    documents: dict[UUID, asyncpg.Record],
) -> list[Found]:
    """CP311/CP312 for every entry linked to a parsed source (attachments.py)."""
    found: list[Found] = []
    for row in references:
        link = links.get(row["id"])
        document = documents.get(link.document_id) if link and link.document_id else None
        if document is None or document["state"] != "parsed" or document["kind"] != "source":
            continue
        findings: list[Finding] = attachment_findings(
            reference_from_row(row), source_meta_from_row(document)
        )
        found.extend(Found(finding, reference_id=row["id"]) for finding in findings)
    return found


def _cited_from_row(value: Any) -> CitedWork | None:
    if value is None:
        return None
    if isinstance(value, str | bytes):
        return msgspec.json.decode(value, type=CitedWork)
    return msgspec.convert(value, CitedWork)


def _list_findings(
    references: list[asyncpg.Record], citations: list[asyncpg.Record], printed_list: bool
) -> list[Found]:
    """CP411-CP415 over the thesis's list and citations (reference_list.py)."""
    entries = [ListedEntry(key=row["id"], reference=reference_from_row(row)) for row in references]
    listed = [
        ListedCitation(
            key=c["id"],
            entry=c["reference_id"],
            marker=c["marker_text"],
            claim=c["claim_text"],
            cited=_cited_from_row(c["cited"]),
            candidates=list(c["candidate_labels"] or []),
        )
        for c in citations
    ]
    return reference_list_findings(entries, listed, printed_list=printed_list)


def _no_reference_rationale(citation: asyncpg.Record) -> str:
    """Why a marker has no entry, naming the entries it nearly matched (never linked to them)."""
    candidates = list(citation["candidate_labels"] or [])
    if not candidates:
        return RATIONALE["no_reference"]
    return RATIONALE["near_miss"].format(candidates=", ".join(candidates))


async def _load_documents(
    pool: asyncpg.Pool, ids: list[UUID], user_id: UUID, first_page_chars: int
) -> dict[UUID, asyncpg.Record]:
    rows = await pool.fetch(SELECT_DOCUMENTS, ids, user_id, first_page_chars)
    return {row["id"]: row for row in rows}


class Planner:
    """The `plan` stage's handler."""

    # First-page text handed to the linker when a document has no page boundaries.
    FIRST_PAGE_CHARS = 3000

    def __init__(self, settings: RetrieverSettings) -> None:
        self.settings = settings
        # The optional open-access lookup (ADR 0020): a client only where the server enables it.
        self.open_access = OpenAccessClient(settings) if settings.open_access_enabled else None
        # Optional reference verification (ADR 0024), set by the service where the server
        # enables it; queued before the run's status is written (a trigger then holds the run
        # in `verifying` until the verify stage is done).
        self.verification: VerificationQueuer | None = None

    async def __call__(self, ctx: TaskContext) -> None:
        run = ctx.row
        if run["status"] in ("cancelled", "completed", "failed"):
            return  # the runtime completes the row; nothing to fan out
        overrides = {
            r["label"]: r["document_id"]
            for r in await ctx.pool.fetch(
                SELECT_OVERRIDES, run["session_id"], run["thesis_document_id"]
            )
        }
        document_ids = list(
            {run["thesis_document_id"], *run["document_ids"], *filter(None, overrides.values())}
        )
        pending = await ctx.pool.fetchval(SELECT_PENDING, document_ids, run["user_id"])
        if pending:
            ctx.log.info("plan.waiting_for_documents", pending=pending)
            await ctx.snooze(self.settings.plan_snooze_s)
            return
        documents = await _load_documents(
            ctx.pool, document_ids, run["user_id"], self.FIRST_PAGE_CHARS
        )
        thesis = documents.get(run["thesis_document_id"])
        if thesis is None or thesis["state"] != "parsed":
            error = thesis["error_code"] if thesis is not None else "missing"
            await self._finish(ctx, None, status="failed",
                               message=f"the thesis could not be parsed ({error})")  # fmt: skip
            return
        references = await ctx.pool.fetch(SELECT_REFERENCES, thesis["id"])
        citations = await ctx.pool.fetch(SELECT_CITATIONS, thesis["id"])
        # Override documents must be the user's own: `documents` only holds the user's rows.
        overrides = {
            label: doc if doc is None or doc in documents else None
            for label, doc in overrides.items()
        }
        library = await load_library(ctx.pool, documents, reference_from_row)
        plan = decide(references, citations, documents, overrides, self.settings, library)
        if self.open_access is not None:
            fetched = await self._open_access(ctx, references, citations, plan, library, overrides)
            if fetched is None:
                return  # snoozed until the fetched PDFs are parsed
            if fetched.links or fetched.notes:
                documents.update(await _load_documents(
                    ctx.pool, list(fetched.links.values()), run["user_id"], self.FIRST_PAGE_CHARS
                ))  # fmt: skip
                plan = decide(
                    references, citations, documents, overrides, self.settings, library, fetched
                )
        if plan.tasks:
            status, message = "retrieving", None
        elif plan.citations_total:
            status, message = "completed", NOTHING_CHECKABLE_MESSAGE
        else:
            status, message = "completed", NO_CITATIONS_MESSAGE
        await self._finish(ctx, plan, status=status, message=message)
        ctx.log.info(
            "plan.fanned_out",
            citations=plan.citations_total,
            tasks=len(plan.tasks),
            **{f"verdicts_{label}": n for label, n in plan.counts.items()},
        )

    async def _open_access(
        self,
        ctx: TaskContext,
        references: list[asyncpg.Record],
        citations: list[asyncpg.Record],
        plan: Plan,
        library: list[Reference],
        overrides: dict[str, UUID | None],
    ) -> OpenAccessResult | None:
        """Look up the references left without a PDF; None when the run must wait for fetched
        PDFs to be parsed (it has been snoozed)."""
        assert self.open_access is not None
        user_id = ctx.row["user_id"]
        if not await opted_in(ctx.pool, user_id):
            return OpenAccessResult()
        linked = [document for _, document, _, _ in plan.links if document is not None]
        wanted = wanted_references(
            references, citations, plan.links, plan.verdicts,
            await fetched_documents(ctx.pool, user_id, linked), library, overrides,
            reference_from_row,
        )  # fmt: skip
        if not wanted:
            return OpenAccessResult()
        fetched = await find_open_access(ctx.pool, self.open_access, ctx.row, wanted)
        if fetched.pending:
            ctx.log.info("plan.waiting_for_open_access", pending=len(fetched.pending))
            await ctx.snooze(self.settings.plan_snooze_s)
            return None
        return fetched

    async def on_terminal(
        self, conn: asyncpg.Connection, row: asyncpg.Record, outcome: TerminalOutcome
    ) -> None:
        if outcome.state not in ("failed", "dead"):
            return
        message = f"planning failed: {outcome.error_detail or outcome.error_code or 'unknown'}"
        await conn.execute(FAIL_RUN, row["id"], message[:500])
        await notify(conn, EVENTS_CHANNEL, str(row["id"]))

    async def _finish(
        self, ctx: TaskContext, plan: Plan | None, *, status: str, message: str | None
    ) -> None:
        """The one fan-out transaction (or, with no plan, just the run's final status)."""
        run_id = ctx.row["id"]
        async with ctx.complete() as conn:
            if await conn.fetchval(RUN_STATUS, run_id) == "cancelled":
                return
            if plan is not None:
                if plan.links:
                    columns = map(list, zip(*plan.links, strict=True))
                    await conn.execute(INSERT_LINKS, run_id, *columns)
                if plan.tasks:
                    citation_ids, document_ids = map(list, zip(*plan.tasks, strict=True))
                    await conn.execute(
                        INSERT_TASKS, run_id, ctx.row["user_id"], citation_ids, document_ids
                    )
                if plan.verdicts:
                    ids, labels, rationales = map(list, zip(*plan.verdicts, strict=True))
                    await conn.execute(
                        INSERT_VERDICTS, run_id, ids, labels, rationales, PIPELINE_BACKEND
                    )
            if plan is not None:
                # Whole run: this transaction decides every planner finding of the run, so a
                # planner that ran before (a retry, a lost lease) leaves nothing behind.
                await replace_findings(
                    conn,
                    run_id=run_id,
                    user_id=ctx.row["user_id"],
                    producer=PRODUCER_PLAN,
                    found=plan.findings,
                    whole_run=True,
                )
            if plan is not None and self.verification is not None:
                await self.verification.queue(conn, ctx.row)
            counts = plan.counts if plan is not None else {}
            await conn.execute(
                UPDATE_RUN,
                run_id,
                plan.citations_total if plan else 0,
                len(plan.tasks) if plan else 0,
                msgspec.json.encode(counts).decode(),
                status,
                message,
            )
            if plan is not None and plan.tasks:
                await notify(conn, RETRIEVE_CHANNEL)
            await notify(conn, EVENTS_CHANNEL, str(run_id))
