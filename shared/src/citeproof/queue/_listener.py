"""The dedicated LISTEN connection: the fast path that wakes claim loops.

It is deliberately not taken from the pool: PgBouncer in transaction mode drops LISTEN,
so deployments may point it at a direct URL (LISTEN_DATABASE_URL). Losing it only slows
things down (the pollers still run), so every failure leads to a jittered reconnect, a
re-LISTEN of every channel and a callback that makes the owner claim at once — work queued
while we were deaf is picked up immediately, not after the next poll.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Callable

import asyncpg
import structlog

from citeproof.queue.metrics import LISTENER_RECONNECTS

log = structlog.get_logger("citeproof.queue.listener")

INITIAL_RECONNECT_DELAY_S = 0.1
KEEPALIVE_TIMEOUT_S = 5.0


class Listener:
    def __init__(
        self,
        url: str,
        channels: list[str],
        on_notify: Callable[[str, str], None],
        *,
        on_reconnect: Callable[[], None] | None = None,
        keepalive_s: float = 10.0,
        reconnect_max_s: float = 10.0,
    ) -> None:
        self._url = url
        self._channels = channels
        self._on_notify = on_notify
        self._on_reconnect = on_reconnect
        self._keepalive_s = keepalive_s
        self._reconnect_max_s = reconnect_max_s
        self._conn: asyncpg.Connection | None = None
        self._lost = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.connected = asyncio.Event()
        # Test hook: when False, notifications are dropped (simulates lost NOTIFYs), and
        # counted, so a test can tell that one really arrived and was lost.
        self.deliver = True
        self.dropped = 0

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="citeproof-listener")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        await self._close()

    @property
    def backend_pid(self) -> int | None:
        return self._conn.get_server_pid() if self._conn is not None else None

    async def _run(self) -> None:
        delay = INITIAL_RECONNECT_DELAY_S
        first = True
        while True:
            try:
                await self._connect()
                delay = INITIAL_RECONNECT_DELAY_S
                if not first:
                    LISTENER_RECONNECTS.inc()
                    log.info("listener.reconnected")
                first = False
                if self._on_reconnect is not None:
                    self._on_reconnect()
                await self._keepalive()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("listener.lost", error=str(exc) or type(exc).__name__)
            self.connected.clear()
            await self._close()
            # Jitter so that a fleet of workers does not reconnect in lockstep after a
            # database restart.
            await asyncio.sleep(delay * random.uniform(0.5, 1.5))
            delay = min(delay * 2, self._reconnect_max_s)

    async def _connect(self) -> None:
        self._lost.clear()
        self._conn = await asyncpg.connect(self._url, timeout=10)
        self._conn.add_termination_listener(lambda _conn: self._lost.set())
        for channel in self._channels:
            await self._conn.add_listener(channel, self._dispatch)
        self.connected.set()

    def _dispatch(self, _conn: object, _pid: int, channel: str, payload: str) -> None:
        if self.deliver:
            self._on_notify(channel, payload)
        else:
            self.dropped += 1

    async def _keepalive(self) -> None:
        assert self._conn is not None
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._lost.wait(), timeout=self._keepalive_s)
            if self._lost.is_set():
                raise ConnectionError("LISTEN connection terminated")
            # A half-open TCP connection only shows itself when we talk on it.
            await self._conn.fetchval("SELECT 1", timeout=KEEPALIVE_TIMEOUT_S)

    async def _close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None and not conn.is_closed():
            with contextlib.suppress(Exception):
                await asyncio.wait_for(conn.close(), timeout=2)
            if not conn.is_closed():
                conn.terminate()
