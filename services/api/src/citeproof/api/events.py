"""Fan-out of notifications to the run-progress streams of this process, and their bounds.

One dedicated LISTEN connection per API process (the runtime's `Listener`, which reconnects
with backoff), not one per browser tab. A notification is only a hint: subscribers wake up and
re-read the run from the database, and they also re-read on a timer, so a missed notification
costs latency, never correctness.

- `citeproof_events` carries the run id: only the streams of that run wake (a busy instance
  would otherwise re-read every open run on every verdict of every tenant). A payload that
  is not a run id wakes every stream, so a malformed notification is never lost.
- `citeproof_tokens` carries the id of a token just revoked: its streams wake and end. The
  streams also re-check their token on a timer, which covers a lost notification and expiry.
- Each process admits at most `sse_max_streams` streams, and each user at most
  `sse_max_streams_per_user` of them: an open stream holds a coroutine, a socket and a
  database read every few seconds, and one user's tabs or script must not take them all.
"""

from __future__ import annotations

import asyncio
import uuid
import weakref
from collections import Counter
from collections.abc import AsyncGenerator, Callable
from typing import Any

from citeproof.api.errors import ApiError
from citeproof.api.settings import ApiSettings
from citeproof.pipeline import EVENTS_CHANNEL, TOKENS_CHANNEL
from citeproof.queue import Listener

# Seconds a refused client is told to wait: a stream slot frees when a run ends or a tab closes.
STREAM_RETRY_AFTER_S = 10


class Subscription:
    """One open progress stream: what wakes it, and how often it was woken."""

    def __init__(self, hub: EventHub, user_id: uuid.UUID, run_id: uuid.UUID, token_id: uuid.UUID):
        self._hub = hub
        self.user_id, self.run_id, self.token_id = user_id, run_id, token_id
        self.wake = asyncio.Event()
        # Set when a notification says the token was revoked.
        self.token_revoked = False
        # How many notifications woke this stream (tests count them; cheap).
        self.wakeups = 0
        self._released = False

    def notify(self) -> None:
        self.wakeups += 1
        self.wake.set()

    def release(self) -> None:
        """Give the slot back (idempotent: the stream's end and its finaliser may both call)."""
        if not self._released:
            self._released = True
            self._hub._release(self)


class EventHub:
    def __init__(self, listen_url: str, settings: ApiSettings) -> None:
        self._settings = settings
        self._by_run: dict[uuid.UUID, set[Subscription]] = {}
        # Only touched from the event loop's thread, between awaits: no lock needed.
        self._per_user: Counter[uuid.UUID] = Counter()
        self._loop: asyncio.AbstractEventLoop | None = None
        # Set when the server begins to shut down: open streams end so that clients
        # reconnect (EventSource does by itself) to a replica that is staying.
        self.closing = False
        # A reconnect may have swallowed notifications: wake everyone to re-read.
        self._listener = Listener(
            listen_url,
            [EVENTS_CHANNEL, TOKENS_CHANNEL],
            self._on_notify,
            on_reconnect=self._wake_all,
        )

    @property
    def listening(self) -> bool:
        """Whether the LISTEN connection is up (notifications reach the streams)."""
        return self._listener.connected.is_set()

    @property
    def open_streams(self) -> int:
        return sum(self._per_user.values())

    def subscriptions(self) -> list[Subscription]:
        return [sub for subs in self._by_run.values() for sub in subs]

    def _on_notify(self, channel: str, payload: str) -> None:
        try:
            target = uuid.UUID(payload)
        except ValueError:
            self._wake_all()
            return
        if channel == TOKENS_CHANNEL:
            for sub in self.subscriptions():
                if sub.token_id == target:
                    sub.token_revoked = True
                    sub.notify()
            return
        for sub in self._by_run.get(target, ()):
            sub.notify()

    def _wake_all(self) -> None:
        for sub in self.subscriptions():
            sub.notify()

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

    def admit(self, user_id: uuid.UUID, run_id: uuid.UUID, token_id: uuid.UUID) -> Subscription:
        """A stream slot for this user and run, or the refusal (before the response starts)."""
        settings = self._settings
        if self._per_user[user_id] >= settings.sse_max_streams_per_user:
            raise ApiError(
                429,
                "too_many_streams",
                f"You already have {settings.sse_max_streams_per_user} progress streams open "
                "on this server; close a tab that follows a run, or poll GET /v1/runs/{id}.",
                retry_after=STREAM_RETRY_AFTER_S,
            )
        if self.open_streams >= settings.sse_max_streams:
            raise ApiError(
                503,
                "stream_slots_busy",
                "The server is following as many runs live as it can; poll GET /v1/runs/{id} "
                "or try again in a few seconds.",
                retry_after=STREAM_RETRY_AFTER_S,
            )
        sub = Subscription(self, user_id, run_id, token_id)
        self._per_user[user_id] += 1
        self._by_run.setdefault(run_id, set()).add(sub)
        return sub

    def _release(self, sub: Subscription) -> None:
        subs = self._by_run.get(sub.run_id)
        if subs is not None:
            subs.discard(sub)
            if not subs:
                del self._by_run[sub.run_id]
        self._per_user[sub.user_id] -= 1
        if self._per_user[sub.user_id] <= 0:
            del self._per_user[sub.user_id]


def hold_until_closed(
    sub: Subscription, stream: Callable[[Subscription], AsyncGenerator[Any, None]]
) -> AsyncGenerator[Any, None]:
    """The stream's generator, releasing its slot when it ends — and also if it is dropped
    without ever being iterated (a client gone before the response started), when a
    generator's own `finally` would never run."""

    async def held() -> AsyncGenerator[Any, None]:
        try:
            async for message in stream(sub):
                yield message
        finally:
            sub.release()

    generator = held()
    weakref.finalize(generator, sub.release)
    return generator
