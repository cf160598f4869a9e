"""pgqueuer under benchmark, through its documented API: `Queries.install`, a `QueueManager`
on one asyncpg connection (its own benchmark's default driver), `@entrypoint`, `run` with a
batch size and a cap on this worker's in-flight jobs, `Queries.enqueue`. Its objects live in
their own schema through `DBSettings(db_schema=...)` (the `PGQUEUER_SCHEMA` setting)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import asyncpg
from pgqueuer.adapters.persistence.qb import (
    QueryBuilderEnvironment,
    QueryQueueBuilder,
    QuerySchedulerBuilder,
)
from pgqueuer.db import AsyncpgDriver
from pgqueuer.domain.settings import DBSettings
from pgqueuer.models import Job
from pgqueuer.qm import QueueManager
from pgqueuer.queries import Queries

ENTRYPOINT = "noop"


class PgqueuerSystem:
    name = "pgqueuer"
    # False: no cap on this worker's in-flight jobs (pgqueuer's default and its own benchmark's
    # setting); the benchmark caps it at the shared concurrency.
    bounded = True
    schema = "bench_pgqueuer"

    def __init__(self, url: str, concurrency: int, batch_size: int) -> None:
        self.url = url
        self.concurrency = concurrency
        # pgqueuer refuses max_concurrent_tasks < 2 * batch_size.
        self.batch_size = min(batch_size, concurrency // 2)
        # NOTIFY channels are database-wide: one per installation, like the schema.
        self.db = DBSettings(db_schema=self.schema, channel=f"{self.schema}_ch")
        self.client: asyncpg.Connection | None = None
        self._client_queries: Queries | None = None
        self._conn: asyncpg.Connection | None = None
        self._qm: QueueManager | None = None
        self._task: asyncio.Task | None = None

    def describe(self) -> str:
        return (
            f"1 QueueManager (1 asyncpg connection), "
            f"max_concurrent_tasks={self.concurrency if self.bounded else 'unlimited'}, "
            f"batch_size={self.batch_size}, LISTEN on, dequeue_timeout 30 s (default)"
        )

    def _queries(self, conn: asyncpg.Connection) -> Queries:
        return Queries(
            AsyncpgDriver(conn),
            qbe=QueryBuilderEnvironment(self.db),
            qbq=QueryQueueBuilder(self.db),
            qbs=QuerySchedulerBuilder(self.db),
        )

    async def install(self) -> None:
        self.client = await asyncpg.connect(self.url)
        self._client_queries = self._queries(self.client)
        await self._client_queries.install()

    async def start(self, on_start: Callable[[int], None]) -> None:
        self._conn = await asyncpg.connect(self.url)
        qm = QueueManager(self._queries(self._conn), channel=self.db.channel)

        @qm.entrypoint(ENTRYPOINT)
        async def noop(job: Job) -> None:
            assert job.payload is not None
            on_start(int(job.payload))

        self._qm = qm
        self._task = asyncio.create_task(
            qm.run(
                batch_size=self.batch_size,
                max_concurrent_tasks=self.concurrency if self.bounded else None,
            )
        )

    async def stop(self) -> None:
        if self._qm is not None and self._task is not None:
            self._qm.shutdown.set()
            await self._task
        if self._conn is not None:
            await self._conn.close()
        self._qm, self._task, self._conn = None, None, None

    async def enqueue_one(self, seq: int) -> None:
        assert self._client_queries is not None
        await self._client_queries.enqueue(ENTRYPOINT, str(seq).encode())

    async def enqueue_many(self, seqs: range) -> None:
        assert self._client_queries is not None
        n = len(seqs)
        await self._client_queries.enqueue(
            [ENTRYPOINT] * n, [str(s).encode() for s in seqs], [0] * n
        )

    async def unfinished(self) -> int:
        # Finished jobs leave the queue table (moved to the log table).
        assert self.client is not None
        return await self.client.fetchval(f"SELECT count(*) FROM {self.schema}.pgqueuer")

    async def close(self) -> None:
        await self.stop()
        if self.client is not None:
            await self.client.close()


class UnboundedPgqueuerSystem(PgqueuerSystem):
    """pgqueuer as its own benchmark runs it: no cap on in-flight jobs (reference only)."""

    name = "pgqueuer_unbounded"
    bounded = False
    schema = "bench_pgqueuer_unbounded"
