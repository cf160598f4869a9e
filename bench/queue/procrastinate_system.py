"""procrastinate under benchmark, through its documented API: an `App` on a
`PsycopgConnector`, `schema_manager.apply_schema_async`, an async `@app.task`,
`run_worker_async(concurrency=...)` (LISTEN on by default), and `defer_async` /
`batch_defer_async` from a second App, as a producer process would. Its objects live in their
own schema through the connections' search_path."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

import asyncpg
from procrastinate import App, PsycopgConnector

SCHEMA = "bench_procrastinate"
QUEUE = "bench"
TASK = "noop"
# Room for fetching, finishing and the LISTEN connection next to the running jobs.
POOL_HEADROOM = 4


class ProcrastinateSystem:
    name = "procrastinate"

    def __init__(self, url: str, concurrency: int, batch_size: int) -> None:
        self.url = url
        self.concurrency = concurrency
        self.client: asyncpg.Connection | None = None
        self._on_start: Callable[[int], None] = lambda _seq: None
        self.app = self._app(min_size=2, max_size=concurrency + POOL_HEADROOM)
        self.producer = self._app(min_size=1, max_size=2)

        @self.app.task(name=TASK, queue=QUEUE)
        async def noop(seq: int) -> None:
            self._on_start(seq)

        self._deferrer = self.producer.configure_task(TASK, queue=QUEUE)
        self._worker: asyncio.Task | None = None

    def describe(self) -> str:
        return (
            f"1 worker, concurrency={self.concurrency} (fetches one job per query), "
            f"LISTEN on, fetch_job_polling_interval 5 s (default), "
            f"pool {self.concurrency + POOL_HEADROOM}"
        )

    def _app(self, *, min_size: int, max_size: int) -> App:
        connector = PsycopgConnector(
            conninfo=self.url,
            kwargs={"options": f"-c search_path={SCHEMA}"},
            min_size=min_size,
            max_size=max_size,
        )
        return App(connector=connector)

    async def install(self) -> None:
        self.client = await asyncpg.connect(self.url)
        await self.client.execute(f"CREATE SCHEMA IF NOT EXISTS {SCHEMA}")
        await self.app.open_async()
        await self.producer.open_async()
        await self.app.schema_manager.apply_schema_async()

    async def start(self, on_start: Callable[[int], None]) -> None:
        self._on_start = on_start
        self._worker = asyncio.create_task(
            self.app.run_worker_async(
                queues=[QUEUE],
                concurrency=self.concurrency,
                install_signal_handlers=False,
            )
        )

    async def stop(self) -> None:
        if self._worker is not None:
            # Cancelling run_worker_async is procrastinate's graceful stop.
            self._worker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._worker
            self._worker = None

    async def enqueue_one(self, seq: int) -> None:
        await self._deferrer.defer_async(seq=seq)

    async def enqueue_many(self, seqs: range) -> None:
        await self._deferrer.batch_defer_async(*({"seq": s} for s in seqs))

    async def unfinished(self) -> int:
        assert self.client is not None
        return await self.client.fetchval(
            f"SELECT count(*) FROM {SCHEMA}.procrastinate_jobs WHERE status IN ('todo', 'doing')"
        )

    async def close(self) -> None:
        await self.stop()
        await self.producer.close_async()
        await self.app.close_async()
        if self.client is not None:
            await self.client.close()
