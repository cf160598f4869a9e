"""Run queries; every one is scoped by the caller's user id."""

from __future__ import annotations

import uuid

import asyncpg

from citeproof.api.documents.services import (
    ACTIVE_RUN_STATUSES,
    SESSION_LINKS_SQL,
    too_many_documents,
)
from citeproof.api.errors import ApiError, not_found
from citeproof.api.pagination import Cursor, cursor_args, cut_page
from citeproof.api.rows import to_structs
from citeproof.api.runs.schemas import RunProgress, RunStatus, RunSummary, StageProgress
from citeproof.api.scoping import get_session_row, session_document
from citeproof.api.settings import ApiSettings
from citeproof.api.workers import WAITING_LABELS, live_stages, unavailable_stages
from citeproof.pipeline import EVENTS_CHANNEL, RETRIEVE_CHANNEL, VERIFY_STAGE

Conn = asyncpg.Connection | asyncpg.Pool

TERMINAL_STATUSES = frozenset({"completed", "cancelled", "failed"})

CREATE_RUN_SQL = """
INSERT INTO runs (user_id, session_id, thesis_document_id, document_ids)
SELECT $1, $2, $3, COALESCE(array_agg(document_id ORDER BY document_id), '{}')
FROM session_sources WHERE session_id = $2
RETURNING id
"""

RUN_SQL = """
SELECT r.id, r.status, r.state, r.session_id, r.thesis_document_id, r.created_at,
       r.finished_at, r.message, r.tasks_total, r.retrieved, r.judged, r.document_ids,
       (SELECT count(*) FROM documents d
         WHERE d.id = ANY(r.document_ids) AND d.state IN ('parsed', 'failed')) AS parsed,
       (SELECT count(*) FROM documents d WHERE d.id = ANY(r.document_ids)) AS documents,
       -- Parsed before this run started (a re-check re-sends the same sources): not parsed
       -- again.
       (SELECT count(*) FROM documents d
         WHERE d.id = ANY(r.document_ids) AND d.parsed_at < r.created_at) AS parsed_before,
       r.evidence_reused, r.chunks_embedded,
       (SELECT count(*) FROM verdicts v WHERE v.run_id = r.id AND v.cached) AS verdicts_reused,
       -- A pending document is one whose parse item is queued or running (documents by
       -- primary key: cheaper than searching parse_items, which has no document index).
       EXISTS (SELECT 1 FROM documents d WHERE d.id = ANY(r.document_ids)
               AND d.state = 'pending') AS parse_pending,
       EXISTS (SELECT 1 FROM retrieve_tasks t WHERE t.run_id = r.id
               AND t.state IN ('queued', 'running')) AS retrieve_pending,
       EXISTS (SELECT 1 FROM judge_tasks t WHERE t.run_id = r.id
               AND t.state IN ('queued', 'running')) AS judge_pending,
       EXISTS (SELECT 1 FROM verify_tasks t WHERE t.run_id = r.id
               AND t.state IN ('queued', 'running')) AS verify_pending
FROM runs r WHERE r.id = $1 AND r.user_id = $2
"""

COUNTS_SQL = "SELECT label, count(*) AS n FROM verdicts WHERE run_id = $1 GROUP BY label"


# Runs of the user that are not finished yet (any session).
ACTIVE_RUNS_SQL = """
SELECT count(*) FROM runs WHERE user_id = $1 AND status = ANY($2::text[])
"""


async def create_run(
    pool: asyncpg.Pool,
    user_id: uuid.UUID,
    session_id: uuid.UUID,
    thesis_id: uuid.UUID,
    settings: ApiSettings,
) -> uuid.UUID:
    async with pool.acquire() as conn, conn.transaction():
        # The user row lock serialises this user's run starts across API replicas, so two
        # concurrent starts cannot both pass the cap.
        await conn.execute("SELECT 1 FROM users WHERE id = $1 FOR UPDATE", user_id)
        await get_session_row(conn, user_id, session_id, lock=True)
        thesis = await session_document(conn, user_id, session_id, thesis_id)
        if thesis is None:
            raise not_found("document")
        if thesis["kind"] != "thesis":
            raise ApiError(
                422,
                "not_a_thesis",
                "thesis_document_id names a source document; upload the thesis with kind=thesis.",
            )
        linked = await conn.fetchval(SESSION_LINKS_SQL, session_id)
        if linked > settings.max_documents_per_session:
            raise too_many_documents(422, settings, linked)
        active = await conn.fetchval(ACTIVE_RUNS_SQL, user_id, list(ACTIVE_RUN_STATUSES))
        if active >= settings.max_active_runs_per_user:
            raise ApiError(
                429,
                "too_many_active_runs",
                f"You already have {active} runs in progress (at most "
                f"{settings.max_active_runs_per_user}); wait for one to finish or cancel one.",
                retry_after=settings.active_jobs_retry_after_s,
            )
        run_id = await conn.fetchval(CREATE_RUN_SQL, user_id, session_id, thesis_id)
        # Delivered on commit: the planner wakes only once the run row is visible.
        await conn.execute("SELECT pg_notify($1, '')", RETRIEVE_CHANNEL)
    return run_id


# One page of a session's runs, newest first, after the cursor's (created_at, id) if any.
LIST_RUNS_SQL = """
SELECT id, status, thesis_document_id, created_at, finished_at FROM runs
WHERE session_id = $1 AND user_id = $2
  AND ($3::timestamptz IS NULL OR (created_at, id) < ($3, $4::uuid))
ORDER BY created_at DESC, id DESC
LIMIT $5
"""


async def list_session_runs(
    conn: Conn,
    user_id: uuid.UUID,
    session_id: uuid.UUID,
    limit: int,
    cursor: Cursor | None = None,
) -> tuple[list[RunSummary], str | None]:
    await get_session_row(conn, user_id, session_id)
    rows = await conn.fetch(LIST_RUNS_SQL, session_id, user_id, *cursor_args(cursor), limit + 1)
    page, next_cursor = cut_page(rows, limit)
    return to_structs(RunSummary, page), next_cursor


def _needed_stages(row: asyncpg.Record) -> list[str]:
    """The stages that have work queued or expected for this run right now."""
    if row["status"] in TERMINAL_STATUSES:
        return []
    needed = []
    if row["parse_pending"]:
        needed.append("parse")
    if row["status"] in ("waiting_for_documents", "planning") and row["state"] in (
        "queued",
        "running",
    ):
        needed.append("plan")
    if row["retrieve_pending"]:
        needed.append("retrieve")
    if row["judge_pending"]:
        needed.append("judge")
    if row["verify_pending"]:
        needed.append(VERIFY_STAGE)
    return needed


async def get_run_status(
    conn: Conn, user_id: uuid.UUID, run_id: uuid.UUID, stale_after_s: float
) -> RunStatus:
    row = await conn.fetchrow(RUN_SQL, run_id, user_id)
    if row is None:
        raise not_found("run")
    counts = {r["label"]: r["n"] for r in await conn.fetch(COUNTS_SQL, run_id)}
    needed = _needed_stages(row)
    waiting_for: list[str] = []
    if needed:
        live = await live_stages(conn, stale_after_s)
        missing = [stage for stage in needed if stage not in live]
        # A stage whose workers are up but whose backend is down says so, with since when.
        outages = await unavailable_stages(conn, stale_after_s) if missing else {}
        waiting_for = [outages.get(stage) or WAITING_LABELS[stage] for stage in missing]
    return RunStatus(
        id=row["id"],
        status=row["status"],
        session_id=row["session_id"],
        thesis_document_id=row["thesis_document_id"],
        created_at=row["created_at"],
        finished_at=row["finished_at"],
        message=row["message"],
        waiting_for=waiting_for,
        progress=RunProgress(
            parse=StageProgress(
                done=row["parsed"], total=row["documents"], reused=row["parsed_before"]
            ),
            retrieve=StageProgress(
                done=row["retrieved"],
                total=row["tasks_total"],
                reused=row["evidence_reused"],
                embedded=row["chunks_embedded"],
            ),
            judge=StageProgress(
                done=row["judged"], total=row["tasks_total"], reused=row["verdicts_reused"]
            ),
        ),
        counts=counts,
    )


async def cancel_run(pool: asyncpg.Pool, user_id: uuid.UUID, run_id: uuid.UUID) -> str:
    async with pool.acquire() as conn, conn.transaction():
        row = await conn.fetchrow(
            "SELECT status FROM runs WHERE id = $1 AND user_id = $2 FOR UPDATE", run_id, user_id
        )
        if row is None:
            raise not_found("run")
        if row["status"] == "cancelled":
            return "cancelled"
        if row["status"] in TERMINAL_STATUSES:
            raise ApiError(409, "run_finished", f"The run already finished ({row['status']}).")
        # A queued planning row is withdrawn; a running one is left to its worker, whose
        # completion sees status='cancelled' (or loses its fence) and stops.
        await conn.execute(
            """UPDATE runs SET status = 'cancelled', finished_at = now(),
                   message = 'Cancelled by the user.',
                   state = CASE WHEN state = 'queued' THEN 'cancelled' ELSE state END
               WHERE id = $1""",
            run_id,
        )
        for table in ("retrieve_tasks", "judge_tasks"):
            await conn.execute(
                f"UPDATE {table} SET state = 'cancelled', finished_at = now() "
                "WHERE run_id = $1 AND state = 'queued'",
                run_id,
            )
        await conn.execute("SELECT pg_notify($1, $2)", EVENTS_CHANNEL, str(run_id))
    return "cancelled"
