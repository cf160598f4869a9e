"""The citeproof stage-queue runtime under benchmark: a real `Worker` on a queue table with the
product's claim columns, LISTEN on, and a handler that returns at once - the runtime then
completes the row itself, the path of any handler with nothing to hand off.

`CiteproofWithHookSystem` is the production path: the stage has a terminal hook that writes one
row (every product stage has one), so the fenced completion and the hook's write commit in one
transaction. `CiteproofHandoffSystem` (on request) completes through `ctx.complete()` instead,
the hand-off transaction every product stage uses (fenced UPDATE, the stage's writes, NOTIFY,
all in one transaction) - here with no writes, so it measures the transaction's own cost."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import asyncpg

from citeproof.db.migrate import apply_migrations
from citeproof.db.pool import create_pool
from citeproof.db.settings import DatabaseSettings
from citeproof.queue import QueueSettings, Stage, TaskContext, TerminalOutcome, Worker, notify
from citeproof.queue._completer import writers_for
from citeproof.queue.columns import queue_table_ddl
from citeproof.queue.worker import RUNTIME_CONNECTIONS

DRAIN_GRACE_S = 5.0

# The product's queue-row contract (claim columns, state check, partial indexes) without a
# stage's foreign keys; `payload` carries the benchmark's sequence number.
PAYLOAD_COLUMNS = ("payload text NOT NULL",)

# Insert and NOTIFY in one statement: they commit together, as in a stage's hand-off
# transaction, in one round trip - the same cost as pgqueuer's and procrastinate's enqueue.
INSERT_ONE = "WITH task AS (INSERT INTO {table} (payload) VALUES ($1)) SELECT pg_notify($2, '')"
INSERT_MANY = "INSERT INTO {table} (payload) SELECT unnest($1::text[])"
# Polled every few milliseconds while a round drains, so it must not cost the server much: one
# count per partial index. `state IN ('queued', 'running')` scanned the whole table - every
# succeeded row of earlier rounds - a few milliseconds of server CPU per poll, which the
# measured system paid for.
UNFINISHED = """
SELECT (SELECT count(*) FROM {table} WHERE state = 'queued')
     + (SELECT count(*) FROM {table} WHERE state = 'running')
"""
# What the terminal hook writes: one row per finished task, in the completing transaction.
HOOK_TABLE_DDL = "CREATE TABLE {schema}.finished (task_id bigint PRIMARY KEY, state text NOT NULL)"
HOOK_INSERT = "INSERT INTO {schema}.finished (task_id, state) VALUES ($1, $2)"
# The same rows for a whole group of completions (the stage's optional group hook).
HOOK_INSERT_GROUP = "INSERT INTO {schema}.finished (task_id, state) SELECT unnest($1::bigint[]), $2"
# The same rows as the stage's success bookkeeping in SQL (Stage.on_succeeded_sql), which the
# runtime runs inside the group's fenced UPDATE: one statement per group.
HOOK_SUCCEEDED_SQL = (
    "INSERT INTO {schema}.finished (task_id, state) SELECT id, 'succeeded' FROM done"
)
# After a run: tasks that succeeded without their hook row (must be none).
MISSING_HOOK_ROWS = """
SELECT count(*) FROM {table} t
WHERE t.state = 'succeeded'
  AND NOT EXISTS (SELECT 1 FROM {schema}.finished f WHERE f.task_id = t.id)
"""


class CiteproofSystem:
    name = "citeproof"
    handoff = False
    with_hook = False
    # With the hook: also give the stage the group form of it (one INSERT per group).
    group_hook = False
    # With the hook: also state its success writes as SQL (in the completion statement).
    sql_hook = False

    def __init__(self, url: str, concurrency: int, batch_size: int) -> None:
        self.url = url
        # Schema and channel named after the system, so variants can share one database.
        self.schema = f"bench_{self.name}"
        self.table = f"{self.schema}.tasks"
        self.channel = self.schema
        self.settings = QueueSettings(
            concurrency=concurrency, batch_size=batch_size, worker_http_port=0
        ).validate()
        self.pool: asyncpg.Pool | None = None
        self.client: asyncpg.Connection | None = None
        self.worker: Worker | None = None

    @property
    def pool_size(self) -> int:
        """Sized the way `citeproof.queue.serve` sizes a service's pool."""
        s = self.settings
        return s.concurrency + writers_for(s) + RUNTIME_CONNECTIONS

    def describe(self) -> str:
        s = self.settings
        completion = "ctx.complete() transaction" if self.handoff else "implicit completion"
        if self.with_hook:
            completion += " + terminal hook writing one row"
        if self.group_hook:
            completion += " (group form: one INSERT per group)"
        if self.sql_hook:
            completion += " (success writes as SQL, in the group's completion statement)"
        return (
            f"1 Worker, {completion}, concurrency={s.concurrency}, batch_size={s.batch_size}, "
            "LISTEN on, "
            f"poll {s.poll_interval_s:g} s, pool {self.pool_size}"
        )

    async def install(self) -> None:
        # The worker registers itself in worker_heartbeats, which the migrations create.
        await apply_migrations(self.url)
        self.pool = await create_pool(DatabaseSettings(url=self.url), max_size=self.pool_size)
        self.client = await asyncpg.connect(self.url)
        await self.client.execute(f"CREATE SCHEMA IF NOT EXISTS {self.schema}")
        await self.client.execute(queue_table_ddl(self.table, PAYLOAD_COLUMNS))
        if self.with_hook:
            await self.client.execute(HOOK_TABLE_DDL.format(schema=self.schema))

    async def start(self, on_start: Callable[[int], None]) -> None:
        async def handle(ctx: TaskContext) -> None:
            on_start(int(ctx.row["payload"]))
            if self.handoff:
                async with ctx.complete():
                    pass

        hook_insert = HOOK_INSERT.format(schema=self.schema)

        async def on_terminal(
            conn: asyncpg.Connection, row: asyncpg.Record, outcome: TerminalOutcome
        ) -> None:
            await conn.execute(hook_insert, row["id"], outcome.state)

        group_insert = HOOK_INSERT_GROUP.format(schema=self.schema)

        async def on_terminal_group(
            conn: asyncpg.Connection, rows: Sequence[asyncpg.Record], outcome: TerminalOutcome
        ) -> None:
            await conn.execute(group_insert, [row["id"] for row in rows], outcome.state)

        stage = Stage(
            name="bench",
            table=self.table,
            channel=self.channel,
            handler=handle,
            on_terminal=on_terminal if self.with_hook else None,
            on_terminal_group=on_terminal_group if self.group_hook else None,
            on_succeeded_sql=(
                HOOK_SUCCEEDED_SQL.format(schema=self.schema) if self.sql_hook else None
            ),
        )
        assert self.pool is not None
        self.worker = Worker(
            service="bench",
            stages=[stage],
            pool=self.pool,
            listen_url=self.url,
            settings=self.settings,
        )
        await self.worker.start()
        if self.worker.listener is not None:
            await self.worker.listener.connected.wait()

    async def stop(self) -> None:
        if self.worker is not None:
            await self.worker.drain(DRAIN_GRACE_S)
            self.worker = None

    async def enqueue_one(self, seq: int) -> None:
        assert self.client is not None
        await self.client.execute(self._sql(INSERT_ONE), str(seq), self.channel)

    async def enqueue_many(self, seqs: range) -> None:
        assert self.client is not None
        async with self.client.transaction():
            await self.client.execute(self._sql(INSERT_MANY), [str(s) for s in seqs])
            await notify(self.client, self.channel)

    async def unfinished(self) -> int:
        assert self.client is not None
        return await self.client.fetchval(self._sql(UNFINISHED))

    def _sql(self, statement: str) -> str:
        return statement.format(table=self.table)

    async def close(self) -> None:
        await self.stop()
        if self.with_hook and self.client is not None:
            missing = await self.client.fetchval(
                MISSING_HOOK_ROWS.format(table=self.table, schema=self.schema)
            )
            if missing:
                raise RuntimeError(f"{self.name}: {missing} tasks succeeded without a hook row")
        if self.client is not None:
            await self.client.close()
        if self.pool is not None:
            await self.pool.close()


class CiteproofHandoffSystem(CiteproofSystem):
    name = "citeproof_handoff"
    handoff = True


class CiteproofWithHookSystem(CiteproofSystem):
    name = "citeproof_with_hook"
    with_hook = True
    sql_hook = True


class CiteproofWithRowHookSystem(CiteproofSystem):
    """The hook as Python only: one INSERT per row inside the group's transaction."""

    name = "citeproof_with_row_hook"
    with_hook = True


class CiteproofWithGroupHookSystem(CiteproofSystem):
    name = "citeproof_with_group_hook"
    with_hook = True
    group_hook = True
