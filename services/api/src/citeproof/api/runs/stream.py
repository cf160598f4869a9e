"""Server-sent events of a run's progress.

Every wake-up (a `citeproof_events` notification for this run or the slow-path timer) re-reads
the run from the database; the payload only says which streams to wake. An event is sent only
when the status changed, and `done` closes the stream once the run is terminal. The token that
opened the stream is re-checked every `sse_token_recheck_s` (and at once when a revocation is
notified): a revoked or expired token ends the stream with an `error` event.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator

import asyncpg
import msgspec
from litestar.response import ServerSentEventMessage

from citeproof.api.errors import ApiError, problem
from citeproof.api.events import EventHub, Subscription
from citeproof.api.runs.services import TERMINAL_STATUSES, get_run_status
from citeproof.api.settings import ApiSettings
from citeproof.auth import token_is_live

KEEPALIVE_S = 15.0
# Browsers reconnect after this many ms when the stream drops (e.g. after max duration).
RECONNECT_MS = 2000
TOKEN_GONE = "The API token of this stream was revoked or has expired; sign in again."


async def progress_events(
    pool: asyncpg.Pool,
    hub: EventHub,
    sub: Subscription,
    settings: ApiSettings,
    stale_s: float,
) -> AsyncGenerator[ServerSentEventMessage, None]:
    deadline = time.monotonic() + settings.sse_max_duration_s
    last_payload: str | None = None
    last_sent = time.monotonic()
    next_token_check = time.monotonic() + settings.sse_token_recheck_s
    wake = sub.wake
    while True:
        wake.clear()
        if sub.token_revoked or time.monotonic() >= next_token_check:
            # The token authenticated the request once; a stream outlives that moment.
            if sub.token_revoked or not await token_is_live(pool, sub.token_id):
                body = problem(401, "token_revoked", TOKEN_GONE)
                yield ServerSentEventMessage(event="error", data=msgspec.json.encode(body).decode())
                return
            next_token_check = time.monotonic() + settings.sse_token_recheck_s
        try:
            status = await get_run_status(pool, sub.user_id, sub.run_id, stale_s)
        except ApiError as exc:  # the run was deleted while we streamed
            body = problem(exc.status_code, exc.code, exc.detail)
            yield ServerSentEventMessage(event="error", data=msgspec.json.encode(body).decode())
            return
        payload = msgspec.json.encode(status).decode()
        if payload != last_payload:
            yield ServerSentEventMessage(event="progress", data=payload, retry=RECONNECT_MS)
            last_payload, last_sent = payload, time.monotonic()
        if status.status in TERMINAL_STATUSES:
            yield ServerSentEventMessage(event="done", data=payload)
            return
        if time.monotonic() >= deadline or hub.closing:
            return
        # Wake for a notification, the slow-path re-read, or the next token check.
        timeout = min(settings.sse_slow_poll_s, max(0.0, next_token_check - time.monotonic()))
        try:
            await asyncio.wait_for(wake.wait(), timeout=timeout)
            if hub.closing:
                return
        except TimeoutError:
            if time.monotonic() - last_sent >= KEEPALIVE_S:
                yield ServerSentEventMessage(data=None, comment="keepalive")
                last_sent = time.monotonic()
