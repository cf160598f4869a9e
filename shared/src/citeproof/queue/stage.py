"""What a service declares to the runtime: its stages, their handlers and hooks."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import asyncpg
import structlog

from citeproof.queue import _sql
from citeproof.queue.errors import LeaseLost
from citeproof.queue.metrics import LEASES_LOST

# One logger for every task: what a line is about comes from the context variables the
# executor binds (stage, task, worker, run), not from a logger per task.
_TASK_LOG = structlog.get_logger("citeproof.task")


@dataclass(frozen=True)
class TerminalOutcome:
    state: str  # succeeded | failed | dead | cancelled
    error_code: str | None = None
    error_detail: str | None = None


Handler = Callable[["TaskContext"], Awaitable[None]]
TerminalHook = Callable[[asyncpg.Connection, asyncpg.Record, TerminalOutcome], Awaitable[None]]
# The same bookkeeping for many rows with one outcome, in one call (e.g. one INSERT ... unnest).
GroupTerminalHook = Callable[
    [asyncpg.Connection, Sequence[asyncpg.Record], TerminalOutcome], Awaitable[None]
]


@dataclass(frozen=True)
class Stage:
    """One queue table and the code that works it.

    `name` is the metric label and the prefix of per-stage settings
    (`CITEPROOF_<NAME>_CONCURRENCY`); `channel` is the NOTIFY channel that means
    "look at this table now"; `on_terminal` runs inside the transaction of every terminal
    transition (succeeded, failed, dead), so bookkeeping commits together with the state.
    `on_terminal_group` (optional, with `on_terminal`) must do what `on_terminal` does for each
    of its rows: the group committer calls it once for the rows of a group of implicit
    completions instead of `on_terminal` once per row. `on_succeeded_sql` (optional, with
    `on_terminal`) is the same bookkeeping for succeeded rows as one data-modifying SQL statement
    that reads the completed rows (every column) from a CTE named `done`, e.g.
    `INSERT INTO finished (task_id) SELECT id FROM done`: the group committer runs it inside
    the group's fenced UPDATE, so a group completes in one statement and one round trip. It
    must write what `on_terminal` writes for a succeeded row (a task that completes alone, or
    whose group could not commit, still goes through `on_terminal`).
    """

    name: str
    table: str
    channel: str
    handler: Handler
    on_terminal: TerminalHook | None = None
    on_terminal_group: GroupTerminalHook | None = None
    on_succeeded_sql: str | None = None
    # Claim fairly across users (the table's rows carry user_id, with the index
    # (user_id, priority, run_after) WHERE state = 'queued'), instead of global FIFO.
    fair_by_user: bool = False
    # Queue settings this stage needs other than the general defaults, as (field, value)
    # pairs: below the stage's own variable (CITEPROOF_<STAGE>_<FIELD>), above the general one
    # (a value chosen for the other stages does not describe this stage's work). A tuple, not
    # a dict, so the frozen Stage stays hashable.
    defaults: tuple[tuple[str, int | float | bool], ...] = ()

    def __post_init__(self) -> None:
        if (self.on_terminal_group or self.on_succeeded_sql) and self.on_terminal is None:
            # The grouped forms cover succeeded groups only; every other path calls on_terminal.
            raise ValueError(f"stage {self.name}: a grouped terminal hook needs on_terminal too")

    def sql(self, statement: str) -> str:
        return _sql.for_table(statement, self.table)

    def claim_sql(self, rows: int | None = None) -> str:
        """The stage's claim of `rows` rows, or (None) of as many as its last parameter says:
        worker id, lease seconds[, rows]."""
        return _claim_sql(self, rows)


@functools.cache
def _claim_sql(stage: Stage, rows: int | None) -> str:
    return _sql.with_limit(stage.sql(_sql.CLAIM_FAIR if stage.fair_by_user else _sql.CLAIM), rows)


@dataclass(frozen=True)
class PeriodicJob:
    """Housekeeping a service runs on a timer (e.g. the staged-bytes TTL sweep)."""

    name: str
    interval_s: float
    run: Callable[[asyncpg.Pool], Awaitable[Any]]


@dataclass
class TaskContext:
    stage: Stage
    row: asyncpg.Record
    pool: asyncpg.Pool
    worker_id: str
    log: Any = field(default=_TASK_LOG)
    completed: bool = False
    handed_back: bool = False
    lease_lost: bool = False
    # Set once the task starts writing its outcome: from then on the fence, not the
    # heartbeat, says whether the lease held (a heartbeat that no longer finds the row
    # running may be looking at our own commit).
    finishing: bool = False
    # The worker's group committer for this stage (None: one statement per completion).
    completer: Any = None
    # The stage's circuit breaker in this worker (None: run_once and tools, no breaker).
    breaker: Any = None

    @property
    def task_id(self) -> Any:
        return self.row["id"]

    @property
    def claim_token(self) -> Any:
        return self.row["claim_token"]

    @property
    def attempt(self) -> int:
        return int(self.row["attempts"])

    def log_fields(self) -> dict[str, object]:
        """What every line logged while this task runs carries (see obs.logs.bind_work)."""
        fields: dict[str, object] = {
            "stage": self.stage.name,
            "task_id": str(self.task_id),
            "worker_id": self.worker_id,
        }
        if "run_id" in self.row:
            fields["run_id"] = str(self.row["run_id"])
        return fields

    def mark_lease_lost(self) -> None:
        """Record that another worker owns the row now; counted once per task, whoever
        (heartbeat or fence) notices first."""
        if not self.lease_lost:
            self.lease_lost = True
            LEASES_LOST.labels(self.stage.name).inc()

    @contextlib.asynccontextmanager
    async def complete(self) -> AsyncIterator[asyncpg.Connection]:
        """The hand-off transaction: fenced completion first, then the caller's writes.

        The fenced UPDATE runs first so the row is locked and ours for the whole
        transaction; if the fence fails nothing the caller writes can commit.
        """
        self.finishing = True
        async with self.pool.acquire() as conn, conn.transaction():
            done = await conn.fetchval(
                self.stage.sql(_sql.COMPLETE), self.task_id, self.worker_id, self.claim_token
            )
            if done is None:
                self.mark_lease_lost()
                raise LeaseLost(f"{self.stage.table} {self.task_id}: lease lost before completion")
            if self.stage.on_terminal is not None:
                await self.stage.on_terminal(conn, self.row, TerminalOutcome("succeeded"))
            yield conn
        self.completed = True

    async def complete_now(self) -> None:
        """Complete with nothing to hand off: one fenced statement (and, with a terminal
        hook, one transaction) shared with other tasks' completions through the worker's
        group committer; alone when there is none or its group could not commit."""
        self.finishing = True
        held = None
        if self.completer is not None:
            held = await self.completer.complete(self.claim_token, self.row)
        if held is None and self.stage.on_terminal is not None:
            # No group committer, or its group could not commit: alone, hook included.
            async with self.complete():
                return
        if held is None:
            held = (
                await self.pool.fetchval(
                    self.stage.sql(_sql.COMPLETE), self.task_id, self.worker_id, self.claim_token
                )
                is not None
            )
        if not held:
            self.mark_lease_lost()
            raise LeaseLost(f"{self.stage.table} {self.task_id}: lease lost before completion")
        self.completed = True

    async def snooze(self, seconds: float) -> None:
        """Give the row back for later without charging an attempt."""
        self.finishing = True
        await hand_back(self.pool, self.stage, self.row, self.worker_id, seconds)
        self.handed_back = True


async def hand_back(
    pool: asyncpg.Pool, stage: Stage, row: asyncpg.Record, worker_id: str, delay_s: float
) -> bool:
    returned = await pool.fetchval(
        stage.sql(_sql.HAND_BACK),
        row["id"],
        worker_id,
        row["claim_token"],
        float(delay_s),
        row["run_after"],
    )
    return returned is not None


async def notify(conn: asyncpg.Connection, channel: str, hint: str = "") -> None:
    """Wake the stage listening on `channel` when this transaction commits.

    The payload is only a hint (e.g. a run id for SSE filtering): work is always found by
    querying the tables, never read from a notification.
    """
    await conn.execute(_sql.NOTIFY, channel, hint)
