"""The citeproof stage-queue runtime under benchmark: a real `Worker` on a queue table with the
product's claim columns, LISTEN on, and a handler that returns at once - the runtime then
completes the row itself, the path of any handler with nothing to hand off.

`CiteproofHandoffSystem` (on request) completes through `ctx.complete()` instead, the hand-off
transaction every product stage uses today (fenced UPDATE, the stage's writes, NOTIFY, all in
one transaction) - here with no writes, so it measures the transaction's own cost."""

from __future__ import annotations

from collections.abc import Callable

import asyncpg

from citeproof.db.migrate import apply_migrations
from citeproof.db.pool import create_pool
from citeproof.db.settings import DatabaseSettings
from citeproof.queue import QueueSettings, Stage, TaskContext, Worker, notify
from citeproof.queue.columns import queue_table_ddl

# Room for the handlers' completions plus the claim loop, heartbeat and sweeper, sized the
# way `citeproof.queue.serve` sizes a service's pool.
POOL_HEADROOM = 4
DRAIN_GRACE_S = 5.0

# The product's queue-row contract (claim columns, state check, partial indexes) without a
# stage's foreign keys; `payload` carries the benchmark's sequence number.
PAYLOAD_COLUMNS = ("payload text NOT NULL",)

# Insert and NOTIFY in one statement: they commit together, as in a stage's hand-off
# transaction, in one round trip - the same cost as pgqueuer's and procrastinate's enqueue.
INSERT_ONE = "WITH task AS (INSERT INTO {table} (payload) VALUES ($1)) SELECT pg_notify($2, '')"
INSERT_MANY = "INSERT INTO {table} (payload) SELECT unnest($1::text[])"
UNFINISHED = "SELECT count(*) FROM {table} WHERE state IN ('queued', 'running')"


class CiteproofSystem:
    name = "citeproof"
    handoff = False

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

    def describe(self) -> str:
        s = self.settings
        completion = "ctx.complete() transaction" if self.handoff else "implicit completion"
        return (
            f"1 Worker, {completion}, concurrency={s.concurrency}, batch_size={s.batch_size}, "
            "LISTEN on, "
            f"poll {s.poll_interval_s:g} s, pool {s.concurrency + POOL_HEADROOM}"
        )

    async def install(self) -> None:
        # The worker registers itself in worker_heartbeats, which the migrations create.
        await apply_migrations(self.url)
        self.pool = await create_pool(
            DatabaseSettings(url=self.url), max_size=self.settings.concurrency + POOL_HEADROOM
        )
        self.client = await asyncpg.connect(self.url)
        await self.client.execute(f"CREATE SCHEMA IF NOT EXISTS {self.schema}")
        await self.client.execute(queue_table_ddl(self.table, PAYLOAD_COLUMNS))

    async def start(self, on_start: Callable[[int], None]) -> None:
        async def handle(ctx: TaskContext) -> None:
            on_start(int(ctx.row["payload"]))
            if self.handoff:
                async with ctx.complete():
                    pass

        stage = Stage(name="bench", table=self.table, channel=self.channel, handler=handle)
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
        if self.client is not None:
            await self.client.close()
        if self.pool is not None:
            await self.pool.close()


class CiteproofHandoffSystem(CiteproofSystem):
    name = "citeproof_handoff"
    handoff = True
