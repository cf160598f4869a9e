"""Server-sent events of a run's progress.

Every wake-up (a `citeproof_events` notification or the slow-path timer) re-reads the run from
the database; notification payloads are never trusted. An event is sent only when the status
changed, and `done` closes the stream once the run is terminal.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncGenerator

import asyncpg
import msgspec
from litestar.response import ServerSentEventMessage

from citeproof.api.errors import ApiError, problem
from citeproof.api.events import EventHub
from citeproof.api.runs.services import TERMINAL_STATUSES, get_run_status
from citeproof.api.settings import ApiSettings

KEEPALIVE_S = 15.0
# Browsers reconnect after this many ms when the stream drops (e.g. after max duration).
RECONNECT_MS = 2000


async def progress_events(
    pool: asyncpg.Pool,
    hub: EventHub,
    user_id: uuid.UUID,
    run_id: uuid.UUID,
    settings: ApiSettings,
    stale_s: float,
) -> AsyncGenerator[ServerSentEventMessage, None]:
    deadline = time.monotonic() + settings.sse_max_duration_s
    last_payload: str | None = None
    last_sent = time.monotonic()
    async with hub.subscribe() as wake:
        while True:
            wake.clear()
            try:
                status = await get_run_status(pool, user_id, run_id, stale_s)
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
            try:
                await asyncio.wait_for(wake.wait(), timeout=settings.sse_slow_poll_s)
                if hub.closing:
                    return
            except TimeoutError:
                if time.monotonic() - last_sent >= KEEPALIVE_S:
                    yield ServerSentEventMessage(data=None, comment="keepalive")
                    last_sent = time.monotonic()
