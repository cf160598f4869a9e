"""Stall sweeper: returns rows whose lease expired or whose owner is gone to the queue, or
buries them."""

from __future__ import annotations

import asyncpg
import structlog

from citeproof.queue import _sql
from citeproof.queue.metrics import LEASES_RECLAIMED, TERMINAL_HOOK_FAILURES
from citeproof.queue.settings import QueueSettings
from citeproof.queue.stage import Stage, TerminalOutcome

log = structlog.get_logger("citeproof.queue.sweeper")


async def sweep_expired(pool: asyncpg.Pool, stage: Stage, settings: QueueSettings) -> int:
    """Reclaim expired leases and rows of gone owners of one stage; returns how many rows it
    touched."""
    total = 0
    while True:
        async with pool.acquire() as conn, conn.transaction():
            rows = await conn.fetch(
                stage.sql(_sql.SWEEP_EXPIRED),
                settings.sweep_batch,
                settings.backoff_base_s,
                settings.backoff_max_s,
                settings.worker_stale_s,
            )
            for swept in rows:
                if swept["state"] == "dead" and stage.on_terminal is not None:
                    row = await conn.fetchrow(stage.sql(_sql.SELECT_ROW), swept["id"])
                    await _bury_hook(conn, stage, row)
        if rows:
            LEASES_RECLAIMED.labels(stage.name).inc(len(rows))
            log.warning(
                "sweeper.reclaimed",
                stage=stage.name,
                requeued=sum(1 for r in rows if r["state"] == "queued"),
                dead=sum(1 for r in rows if r["state"] == "dead"),
            )
        total += len(rows)
        if len(rows) < settings.sweep_batch:
            return total


async def _bury_hook(conn: asyncpg.Connection, stage: Stage, row: asyncpg.Record) -> None:
    """Run one buried row's terminal hook in a savepoint.

    A hook that raises undoes only its own writes: the row stays dead with the error
    recorded, and the rest of the batch commits. Without the savepoint one bad row would
    roll back every reclaim of its stage, and sort first again at the next sweep.
    """
    assert stage.on_terminal is not None
    try:
        async with conn.transaction():  # nested: a savepoint
            await stage.on_terminal(
                conn, row, TerminalOutcome("dead", "internal_error", row["last_error"])
            )
    except Exception as exc:
        TERMINAL_HOOK_FAILURES.labels(stage.name).inc()
        log.exception("sweeper.terminal_hook_failed", stage=stage.name, task_id=str(row["id"]))
        await conn.execute(
            stage.sql(_sql.RECORD_HOOK_FAILURE), row["id"], f"{type(exc).__name__}: {exc}"
        )
