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

SCHEMA = "bench_raw"
TABLE = f"{SCHEMA}.tasks"
CHANNEL = "bench_raw"
POLL_S = 1.0

DDL = f"""
CREATE SCHEMA IF NOT EXISTS {SCHEMA};
CREATE TABLE {TABLE} (
    id       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    payload  text NOT NULL,
    state    text NOT NULL DEFAULT 'queued'
);
CREATE INDEX ON {TABLE} (id) WHERE state = 'queued';
"""

CLAIM = f"""
UPDATE {TABLE} SET state = 'running'
WHERE id IN (
    SELECT id FROM {TABLE} WHERE state = 'queued' ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED
)
RETURNING id, payload
"""
COMPLETE = f"DELETE FROM {TABLE} WHERE id = ANY($1::bigint[])"
INSERT_ONE = f"WITH task AS (INSERT INTO {TABLE} (payload) VALUES ($1)) SELECT pg_notify($2, '')"
INSERT_MANY = f"INSERT INTO {TABLE} (payload) SELECT unnest($1::text[])"
UNFINISHED = f"SELECT count(*) FROM {TABLE}"
NOTIFY = "SELECT pg_notify($1, '')"


class RawSqlSystem:
    name = "raw_sql"

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

    def describe(self) -> str:
        return (
            f"{self.loops} claim loops x batch {self.batch_size} (one connection each), "
            f"LISTEN on, poll {POLL_S:g} s"
        )

    async def install(self) -> None:
        self.client = await asyncpg.connect(self.url)
        await self.client.execute(DDL)

    async def start(self, on_start: Callable[[int], None]) -> None:
        self._stopping.clear()
        self._conns = [await asyncpg.connect(self.url) for _ in range(self.loops)]
        self._wakes = [asyncio.Event() for _ in range(self.loops)]
        self._listener = await asyncpg.connect(self.url)
        await self._listener.add_listener(CHANNEL, self._wake_all)
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

        while not self._stopping.is_set():
            wake.clear()
            rows = await conn.fetch(CLAIM, self.batch_size)
            if rows:
                await asyncio.gather(*(handle(r["payload"]) for r in rows))
                await conn.execute(COMPLETE, [r["id"] for r in rows])
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
        await self.client.execute(INSERT_ONE, str(seq), CHANNEL)

    async def enqueue_many(self, seqs: range) -> None:
        assert self.client is not None
        async with self.client.transaction():
            await self.client.execute(INSERT_MANY, [str(s) for s in seqs])
            await self.client.execute(NOTIFY, CHANNEL)

    async def unfinished(self) -> int:
        assert self.client is not None
        return await self.client.fetchval(UNFINISHED)

    async def close(self) -> None:
        await self.stop()
        if self.client is not None:
            await self.client.close()
