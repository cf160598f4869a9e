"""The floor: a bare SKIP LOCKED claim loop on asyncpg, no framework.

`concurrency / batch_size` loops, each on its own connection: claim a batch in one UPDATE,
run the batch's handlers concurrently, delete the batch in one statement. A LISTEN
connection wakes idle loops; they also poll once a second. No leases, fencing, retries,
metrics or logs: this is what the database costs, not what a safe runtime costs.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

import asyncpg

POLL_S = 1.0

# `{schema}` is the system's own schema (a class constant, never input).
DDL = """
CREATE SCHEMA IF NOT EXISTS {schema};
CREATE TABLE {schema}.tasks (
    id       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    payload  text NOT NULL,
    state    text NOT NULL DEFAULT 'queued'
);
CREATE INDEX ON {schema}.tasks (id) WHERE state = 'queued';
"""
# The hook variant's second table: one row per finished task.
HOOK_DDL = "CREATE TABLE {schema}.finished (task_id bigint PRIMARY KEY, state text NOT NULL)"

# The batch size is written into the statement ({batch}, a number), as the runtime does for a
# full batch: with `LIMIT $1` PostgreSQL re-plans the statement at every execution (it cannot
# estimate a generic plan's rows), which the floor should not pay when the runtime does not.
CLAIM = """
UPDATE {schema}.tasks SET state = 'running'
WHERE id IN (
    SELECT id FROM {schema}.tasks WHERE state = 'queued' ORDER BY id LIMIT {batch}
    FOR UPDATE SKIP LOCKED
)
RETURNING id, payload
"""
COMPLETE = "DELETE FROM {schema}.tasks WHERE id = ANY($1::bigint[])"
# The hook variant: the batch's completion and its rows in one statement, so one transaction.
COMPLETE_WITH_HOOK = """
WITH done AS (DELETE FROM {schema}.tasks WHERE id = ANY($1::bigint[]) RETURNING id)
INSERT INTO {schema}.finished (task_id, state) SELECT id, 'succeeded' FROM done
"""
INSERT_ONE = (
    "WITH task AS (INSERT INTO {schema}.tasks (payload) VALUES ($1)) SELECT pg_notify($2, '')"
)
INSERT_MANY = "INSERT INTO {schema}.tasks (payload) SELECT unnest($1::text[])"
UNFINISHED = "SELECT count(*) FROM {schema}.tasks"
NOTIFY = "SELECT pg_notify($1, '')"


class RawSqlSystem:
    name = "raw_sql"
    schema = "bench_raw"
    with_hook = False

    def __init__(self, url: str, concurrency: int, batch_size: int) -> None:
        self.url = url
        self.batch_size = batch_size
        self.loops = max(1, concurrency // batch_size)
        self.client: asyncpg.Connection | None = None
        self._listener: asyncpg.Connection | None = None
        self._conns: list[asyncpg.Connection] = []
        self._wakes: list[asyncio.Event] = []
        self._tasks: list[asyncio.Task] = []
        self._stopping = asyncio.Event()
        self.channel = self.schema

    def _sql(self, statement: str) -> str:
        return statement.format(schema=self.schema, batch=self.batch_size)

    def describe(self) -> str:
        hook = ", completion + one row per task in one statement" if self.with_hook else ""
        return (
            f"{self.loops} claim loops x batch {self.batch_size} (one connection each), "
            f"LISTEN on, poll {POLL_S:g} s{hook}"
        )

    async def install(self) -> None:
        self.client = await asyncpg.connect(self.url)
        await self.client.execute(self._sql(DDL))
        if self.with_hook:
            await self.client.execute(self._sql(HOOK_DDL))

    async def start(self, on_start: Callable[[int], None]) -> None:
        self._stopping.clear()
        self._conns = [await asyncpg.connect(self.url) for _ in range(self.loops)]
        self._wakes = [asyncio.Event() for _ in range(self.loops)]
        self._listener = await asyncpg.connect(self.url)
        await self._listener.add_listener(self.channel, self._wake_all)
        self._tasks = [
            asyncio.create_task(self._loop(conn, wake, on_start))
            for conn, wake in zip(self._conns, self._wakes, strict=True)
        ]

    def _wake_all(self, *_: object) -> None:
        for wake in self._wakes:
            wake.set()

    async def _loop(
        self, conn: asyncpg.Connection, wake: asyncio.Event, on_start: Callable[[int], None]
    ) -> None:
        async def handle(payload: str) -> None:
            on_start(int(payload))

        claim = self._sql(CLAIM)
        complete = self._sql(COMPLETE_WITH_HOOK if self.with_hook else COMPLETE)
        while not self._stopping.is_set():
            wake.clear()
            rows = await conn.fetch(claim)
            if rows:
                await asyncio.gather(*(handle(r["payload"]) for r in rows))
                await conn.execute(complete, [r["id"] for r in rows])
                if len(rows) == self.batch_size:
                    continue
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(wake.wait(), timeout=POLL_S)

    async def stop(self) -> None:
        self._stopping.set()
        self._wake_all()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        for conn in [*self._conns, self._listener]:
            if conn is not None:
                await conn.close()
        self._conns, self._tasks, self._listener = [], [], None

    async def enqueue_one(self, seq: int) -> None:
        # Insert and NOTIFY commit together, in one round trip.
        assert self.client is not None
        await self.client.execute(self._sql(INSERT_ONE), str(seq), self.channel)

    async def enqueue_many(self, seqs: range) -> None:
        assert self.client is not None
        async with self.client.transaction():
            await self.client.execute(self._sql(INSERT_MANY), [str(s) for s in seqs])
            await self.client.execute(NOTIFY, self.channel)

    async def unfinished(self) -> int:
        assert self.client is not None
        return await self.client.fetchval(self._sql(UNFINISHED))

    async def close(self) -> None:
        await self.stop()
        if self.client is not None:
            await self.client.close()


class RawSqlWithHookSystem(RawSqlSystem):
    """The floor of the hook path: the batch's DELETE and its rows commit in one statement."""

    name = "raw_sql_with_hook"
    schema = "bench_raw_hook"
    with_hook = True
