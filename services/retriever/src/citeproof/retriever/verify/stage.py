"""The `verify` stage (ADR 0024): one task per run, claimed from `verify_tasks`, looks the run's
reference entries up and writes what it found - findings (producer `verify`, one set per run),
one `reference_checks` row per entry (where it was looked up, what answered) - and completes the
run if retrieval and judging are done already.

The planner queues the task in its fan-out transaction when the server enables verification
and the run's user switched it on (`VerificationQueue`), with a deadline `max_wait_s` ahead; the
run cannot complete before the task (a trigger of migration 0020 holds it in `verifying`). The
handler stops waiting at the deadline - a retried task keeps the original deadline, a task
claimed after it answers from the cache only - and a task that fails for good still releases
its run, every entry "not looked up" (`on_terminal`).
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any, Final
from uuid import UUID

import asyncpg
import msgspec

from citeproof.contracts.verification import EntryVerification
from citeproof.findings import PRODUCER_VERIFY, Found, replace_findings
from citeproof.pipeline import EVENTS_CHANNEL, VERIFY_CHANNEL
from citeproof.queue import TaskContext, TerminalOutcome, notify
from citeproof.retriever.library import load_library
from citeproof.retriever.linking.through_library import find_entry
from citeproof.retriever.planning import SELECT_REFERENCES, reference_from_row
from citeproof.retriever.verify.check import EntryResult, Verifier
from citeproof.retriever.verify.client import ScholarlyClient
from citeproof.retriever.verify.entries import Entry, entry_from
from citeproof.retriever.verify.lookups import NO_INDEX, Lookups
from citeproof.retriever.verify.settings import VerifySettings
from citeproof.verdicts import COMPLETE_RUN, TERMINAL_RUN_STATUSES

USER_OPTED_IN = "SELECT verify_references FROM users WHERE id = $1"

# Queued by the planner in its fan-out transaction, before it writes the run's status (the
# trigger then holds a run with nothing else to do in `verifying`).
INSERT_TASK = """
INSERT INTO verify_tasks (run_id, user_id, deadline_at)
VALUES ($1, $2, now() + make_interval(secs => $3))
ON CONFLICT (run_id) DO NOTHING
"""
MARK_PENDING = "UPDATE runs SET verification = 'pending' WHERE id = $1 AND verification IS NULL"

SELECT_RUN = """
SELECT status, thesis_document_id, document_ids FROM runs WHERE id = $1
"""
SELECT_DOCUMENT_KINDS = """
SELECT id, kind, state FROM documents WHERE id = ANY($1::uuid[]) AND user_id = $2
"""
DELETE_CHECKS = "DELETE FROM reference_checks WHERE run_id = $1"
INSERT_CHECKS = """
INSERT INTO reference_checks (run_id, reference_id, status, body)
SELECT $1, c.reference_id, c.status, c.body
FROM unnest($2::bigint[], $3::text[], $4::jsonb[]) AS c (reference_id, status, body)
"""
# Every entry of the run's thesis "not looked up" with one reason (a task that failed for good).
INSERT_ALL_NOT_LOOKED_UP = """
INSERT INTO reference_checks (run_id, reference_id, status, body)
SELECT $1, r.id, 'not_looked_up',
       jsonb_build_object('status', 'not_looked_up', 'detail', $2::text)
FROM runs u JOIN "references" r ON r.document_id = u.thesis_document_id
WHERE u.id = $1
ON CONFLICT (run_id, reference_id) DO NOTHING
"""
# The run's verification is over; RETURNING says whether the run was waiting for it alone.
MARK_DONE = """
UPDATE runs SET verification = 'done' WHERE id = $1
RETURNING status
"""
VERIFYING: Final = "verifying"
# A task claimed after its deadline still answers from the cache, for at most this long.
CACHE_ONLY_S: Final = 10.0
LATE: Final = "the run's time limit passed before it could be asked"


class VerificationQueue:
    """The planner's side: queue verification for a run whose user switched it on."""

    def __init__(self, settings: VerifySettings) -> None:
        self.settings = settings

    async def queue(self, conn: asyncpg.Connection, run: Any) -> bool:
        if not await conn.fetchval(USER_OPTED_IN, run["user_id"]):
            return False
        await conn.execute(INSERT_TASK, run["id"], run["user_id"], self.settings.max_wait_s)
        await conn.execute(MARK_PENDING, run["id"])
        await notify(conn, VERIFY_CHANNEL)
        return True


async def finish_verification(conn: asyncpg.Connection, run_id: UUID) -> None:
    """Mark the run's verification done and complete the run if it waited for it alone. The
    UPDATE locks the run row first: a judge completing the run at the same moment either sees
    `done` (and completes it) or is seen in `verifying` (and completed here)."""
    status = await conn.fetchval(MARK_DONE, run_id)
    if status == VERIFYING:
        await conn.fetchval(COMPLETE_RUN, run_id)
    await notify(conn, EVENTS_CHANNEL, str(run_id))


class VerifyStage:
    """The `verify` stage's handler and terminal hook."""

    def __init__(self, settings: VerifySettings) -> None:
        self.settings = settings.validate()
        # One client per process: its gates (rate, in flight, 429 pauses, unreachable indexes)
        # are shared by every run this worker verifies at once.
        self.client = ScholarlyClient(settings) if settings.index_order else None

    async def close(self) -> None:
        if self.client is not None:
            await self.client.aclose()

    async def __call__(self, ctx: TaskContext) -> None:
        task = ctx.row
        run = await ctx.pool.fetchrow(SELECT_RUN, task["run_id"])
        if run is None or run["status"] in TERMINAL_RUN_STATUSES:
            async with ctx.complete() as conn:
                if run is not None:
                    await finish_verification(conn, task["run_id"])
            return
        entries = await self.entries(ctx.pool, task["user_id"], run)
        results = await self.verify(ctx.pool, entries, task["deadline_at"])
        ctx.log.info(
            "verify.done",
            entries=len(results),
            **{
                status: sum(1 for r in results if r.status == status)
                for status in {r.status for r in results}
            },
            findings=sum(len(r.findings) for r in results),
        )
        async with ctx.complete() as conn:
            await self.store(conn, task["run_id"], task["user_id"], results)
            await finish_verification(conn, task["run_id"])

    async def entries(self, pool: asyncpg.Pool, user_id: UUID, run: Any) -> list[Entry]:
        """The thesis's entries, each backed by its library record when the session has one."""
        rows = await pool.fetch(SELECT_REFERENCES, run["thesis_document_id"])
        documents = {
            row["id"]: row
            for row in await pool.fetch(
                SELECT_DOCUMENT_KINDS, list(run["document_ids"] or []), user_id
            )
        }
        library = await load_library(pool, documents, reference_from_row)
        entries = []
        for row in rows[: self.settings.max_entries]:
            reference = reference_from_row(row)
            backing = find_entry(reference, library)[0] if library else None
            entries.append(entry_from(row["id"], reference, backing))
        return entries

    async def verify(
        self, pool: asyncpg.Pool, entries: list[Entry], deadline_at: datetime
    ) -> list[EntryResult]:
        remaining = (deadline_at - datetime.now(UTC)).total_seconds()
        late = remaining <= 0
        lookups = Lookups(
            pool=pool,
            # Past the deadline (a task claimed late): the cache answers, nobody is asked.
            client=None if late else self.client,
            deadline=time.monotonic() + (CACHE_ONLY_S if late else remaining),
            ttl_s=self.settings.cache_ttl_s,
            offline_reason=LATE if late else NO_INDEX,
        )
        return await Verifier(lookups, self.settings.index_order, pool).verify_all(entries)

    async def store(
        self, conn: asyncpg.Connection, run_id: UUID, user_id: UUID, results: list[EntryResult]
    ) -> None:
        found = [
            Found(finding, None, result.entry.reference_id)
            for result in results
            for finding in result.findings
        ]
        await replace_findings(
            conn,
            run_id=run_id,
            user_id=user_id,
            producer=PRODUCER_VERIFY,
            found=found,
            whole_run=True,
        )
        await conn.execute(DELETE_CHECKS, run_id)
        if results:
            await conn.execute(
                INSERT_CHECKS,
                run_id,
                [r.entry.reference_id for r in results],
                [r.status for r in results],
                [_encode(r.body()) for r in results],
            )

    async def on_terminal(
        self, conn: asyncpg.Connection, row: asyncpg.Record, outcome: TerminalOutcome
    ) -> None:
        """A task that failed for good must not hold its run: every entry not looked up."""
        if outcome.state not in ("failed", "dead"):
            return
        detail = f"not looked up: verification failed ({outcome.error_detail or 'unknown'})"
        await conn.execute(INSERT_ALL_NOT_LOOKED_UP, row["run_id"], detail[:500])
        await finish_verification(conn, row["run_id"])


def _encode(body: EntryVerification) -> str:
    return msgspec.json.encode(body).decode()
