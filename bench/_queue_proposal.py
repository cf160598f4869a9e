"""Prototype of the runtime changes the queue benchmark proposes; the product does not use it.

It exists so the proposal can be measured next to the shipped runtime in the same run:

    .venv/bin/python bench/queue.py --systems citeproof,citeproof_proposed,pgqueuer

1. Group commit of implicit completions. A handler that simply returns is completed today by
   one fenced UPDATE per task. Here completions of one stage queue up in memory; one flush
   at a time writes every queued completion in ONE fenced statement (worker_id + claim_token
   + state='running', served by the `(worker_id) WHERE state = 'running'` index every queue
   table has) and resolves each task's wait with whether its fence held. There is no timer:
   the first completion after a quiet spell is written at once, and those that arrive while
   a flush is in flight form the next group - so batching appears exactly when there is load
   and adds no latency when there is none. A task still returns only after its own row is
   written, and a fence that fails still raises LeaseLost in that task.
2. A pool without asyncpg's per-release reset query (`SELECT pg_advisory_unlock_all(); CLOSE
   ALL; UNLISTEN *; RESET ALL`, one extra round trip every time a connection goes back to the
   pool). Pooled connections hold no session state in citeproof (LISTEN has its own
   connection, advisory locks on pooled connections are transaction-scoped); asyncpg still
   rolls back a transaction left open on release.
"""

from __future__ import annotations

import asyncio

import asyncpg
from _queue_citeproof import POOL_HEADROOM, CiteproofSystem

from citeproof.db.pool import _init_connection
from citeproof.db.settings import DEFAULT_STATEMENT_TIMEOUT_MS
from citeproof.queue import LeaseLost, Stage, TaskContext, Worker
from citeproof.queue.metrics import (
    LEASES_LOST,
    TASK_QUEUE_WAIT,
    TASKS_CLAIMED,
    TASKS_IN_PROGRESS,
)

COMPLETE_GROUP = """
UPDATE {table}
SET state = 'succeeded', finished_at = now(), lease_expires_at = NULL
WHERE worker_id = $1 AND state = 'running' AND claim_token = ANY($2::uuid[])
RETURNING claim_token
"""


class GroupCompleter:
    """Writes the completions of one stage, one statement per group (see the module doc)."""

    def __init__(self, pool: asyncpg.Pool, stage: Stage, worker_id: str) -> None:
        self._pool = pool
        self._sql = stage.sql(COMPLETE_GROUP)
        self._worker_id = worker_id
        self._pending: list[tuple[object, asyncio.Future[bool]]] = []
        self._flusher: asyncio.Task | None = None

    async def complete(self, claim_token: object) -> bool:
        """True when the fence held and the row is now `succeeded`."""
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._pending.append((claim_token, future))
        if self._flusher is None:
            self._flusher = asyncio.create_task(self._flush())
        return await future

    async def _flush(self) -> None:
        try:
            while self._pending:
                group, self._pending = self._pending, []
                try:
                    rows = await self._pool.fetch(
                        self._sql, self._worker_id, [token for token, _ in group]
                    )
                except Exception as exc:
                    for _, future in group:
                        if not future.done():
                            future.set_exception(exc)
                    continue
                held = {row["claim_token"] for row in rows}
                for token, future in group:
                    if not future.done():
                        future.set_result(token in held)
        finally:
            self._flusher = None


class GroupCompletingContext(TaskContext):
    completer: GroupCompleter | None = None

    async def complete_now(self) -> None:
        if self.completer is None or self.stage.on_terminal is not None:
            await super().complete_now()
            return
        if not await self.completer.complete(self.claim_token):
            self.lease_lost = True
            LEASES_LOST.labels(self.stage.name).inc()
            raise LeaseLost(f"{self.stage.table} {self.task_id}: lease lost before completion")
        self.completed = True


class GroupCompletingWorker(Worker):
    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self._completers = {
            r.stage.name: GroupCompleter(self.pool, r.stage, self.worker_id) for r in self._runners
        }

    # Worker._start_task with the context class swapped.
    def _start_task(self, runner, row: asyncpg.Record) -> None:  # type: ignore[no-untyped-def]
        stage = runner.stage
        TASKS_CLAIMED.labels(stage.name).inc()
        TASK_QUEUE_WAIT.labels(stage.name).observe(max(0.0, row["queue_wait_s"] or 0.0))
        ctx = GroupCompletingContext(stage=stage, row=row, pool=self.pool, worker_id=self.worker_id)
        ctx.completer = self._completers[stage.name]
        if self.hooks.on_claimed:
            self.hooks.on_claimed(stage.name, row)
        task = asyncio.create_task(self._run_task(runner, ctx), name=f"{stage.name}-{row['id']}")
        runner.in_flight[row["claim_token"]] = (task, ctx)
        TASKS_IN_PROGRESS.labels(stage.name).inc()


async def _no_reset(_conn: asyncpg.Connection) -> None:
    """Replaces asyncpg's reset query; asyncpg itself still rolls back an open transaction."""


class ProposedCiteproofSystem(CiteproofSystem):
    """Both changes; the two subclasses below measure each one alone."""

    name = "citeproof_proposed"
    skip_pool_reset = True

    def describe(self) -> str:
        changes = [
            "group-commit completions" if self.worker_class is GroupCompletingWorker else "",
            "no pool reset query" if self.skip_pool_reset else "",
        ]
        return super().describe() + "; PROTOTYPE: " + ", ".join(c for c in changes if c)

    async def install(self) -> None:
        await super().install()
        if not self.skip_pool_reset:
            return
        assert self.pool is not None
        await self.pool.close()
        self.pool = await asyncpg.create_pool(
            self.url,
            min_size=1,
            max_size=self.settings.concurrency + POOL_HEADROOM,
            init=_init_connection,
            reset=_no_reset,
            server_settings={
                "application_name": "citeproof",
                "statement_timeout": str(DEFAULT_STATEMENT_TIMEOUT_MS),
            },
        )

    worker_class = GroupCompletingWorker


class GroupCommitOnlySystem(ProposedCiteproofSystem):
    name = "citeproof_group_commit"
    skip_pool_reset = False


class NoPoolResetOnlySystem(ProposedCiteproofSystem):
    name = "citeproof_no_reset"
    worker_class = Worker


class HandoffNoPoolResetSystem(NoPoolResetOnlySystem):
    """The hand-off transaction path, which group commit does not cover, without the reset."""

    name = "citeproof_handoff_no_reset"
    handoff = True
