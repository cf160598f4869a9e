"""Fan-out of `citeproof_events` notifications to the run-progress streams of this process.

One dedicated LISTEN connection per API process (the runtime's `Listener`, which reconnects
with backoff), not one per browser tab. A notification is only a hint: subscribers wake up and
re-read the run from the database, and they also re-read on a timer, so a missed notification
costs latency, never correctness.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from citeproof.pipeline import EVENTS_CHANNEL
from citeproof.queue import Listener


class EventHub:
    def __init__(self, listen_url: str) -> None:
        self._subscribers: set[asyncio.Event] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        # Set when the server begins to shut down: open streams end so that clients
        # reconnect (EventSource does by itself) to a replica that is staying.
        self.closing = False
        # A reconnect may have swallowed notifications: wake everyone to re-read.
        self._listener = Listener(
            listen_url, [EVENTS_CHANNEL], self._on_notify, on_reconnect=self._wake_all
        )

    def _on_notify(self, _channel: str, _payload: str) -> None:
        self._wake_all()

    def _wake_all(self) -> None:
        for event in self._subscribers:
            event.set()

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self.closing = False
        self._listener.start()

    def close_streams(self) -> None:
        """Ask every open progress stream to end; safe to call from a signal handler."""

        def close() -> None:
            self.closing = True
            self._wake_all()

        if self._loop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(close)

    async def stop(self) -> None:
        await self._listener.stop()
        self._wake_all()

    @contextlib.asynccontextmanager
    async def subscribe(self) -> AsyncIterator[asyncio.Event]:
        event = asyncio.Event()
        self._subscribers.add(event)
        try:
            yield event
        finally:
            self._subscribers.discard(event)
