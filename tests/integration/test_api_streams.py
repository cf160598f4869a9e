"""Progress streams are bounded and scoped, against a real HTTP server (uvicorn on a socket).

At most `sse_max_streams_per_user` streams per user and `sse_max_streams` per process; a
notification wakes only the streams of the run it names; a revoked or expired token ends its
open streams. The 200-stream flood from one user is in tests/hostile (`make test-hostile`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator

import httpx
import msgspec
import uvicorn
from litestar import Litestar

from citeproof.api import create_app
from citeproof.api.events import EventHub
from citeproof.api.settings import ApiSettings
from citeproof.auth import revoke_token
from citeproof.pipeline import EVENTS_CHANNEL
from tests.integration.api_support import ApiUser, new_user, thesis_with_sources


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def serve(db_settings, settings: ApiSettings) -> Iterator[tuple[str, Litestar]]:
    """The API on a real socket, with its app (the test reads the event hub's counters)."""
    port = _free_port()
    app = create_app(msgspec.structs.replace(settings, port=port), db_settings=db_settings)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_config=None))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "API did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}", app
    finally:
        server.should_exit = True
        thread.join(timeout=30)


class Stream:
    """One open progress stream, read in the background: its status and events as they come."""

    def __init__(self, client: httpx.AsyncClient, user: ApiUser, run_id: str) -> None:
        self.events: list[tuple[str, str]] = []
        self.status: int | None = None
        self.body: dict | None = None
        self.opened = asyncio.Event()
        self.ended = asyncio.Event()
        self._task = asyncio.create_task(self._read(client, user, run_id))

    async def _read(self, client: httpx.AsyncClient, user: ApiUser, run_id: str) -> None:
        try:
            url = f"/v1/runs/{run_id}/events?token={user.token}"
            async with client.stream("GET", url) as response:
                self.status = response.status_code
                if response.status_code != 200:
                    self.body = json.loads(await response.aread())
                    self.opened.set()
                    return
                event = None
                async for line in response.aiter_lines():
                    if line.startswith("event: "):
                        event = line[len("event: ") :]
                    elif line.startswith("data: ") and event is not None:
                        self.events.append((event, line[len("data: ") :]))
                        self.opened.set()
                        event = None
        finally:
            self.opened.set()
            self.ended.set()

    async def close(self) -> None:
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task


@contextlib.asynccontextmanager
async def client_for(url: str) -> AsyncIterator[httpx.AsyncClient]:
    limits = httpx.Limits(max_connections=50)
    async with httpx.AsyncClient(base_url=url, timeout=30, limits=limits) as client:
        yield client


async def open_stream(client: httpx.AsyncClient, user: ApiUser, run_id: str) -> Stream:
    stream = Stream(client, user, run_id)
    await asyncio.wait_for(stream.opened.wait(), timeout=20)
    return stream


async def start_runs(client: httpx.AsyncClient, user: ApiUser, n: int) -> list[str]:
    """n runs that stay waiting for their documents (nobody parses them)."""
    ids = await thesis_with_sources(client, user)
    runs = []
    for _ in range(n):
        response = await client.post(
            f"/v1/sessions/{ids['session_id']}/runs",
            json={"thesis_document_id": ids["thesis_id"]},
            headers=user.headers,
        )
        assert response.status_code == 202, response.text
        runs.append(response.json()["run_id"])
    return runs


def _refused(stream: Stream, status: int, code: str) -> None:
    assert stream.status == status, (stream.status, stream.body)
    assert stream.body is not None and stream.body["code"] == code
    assert stream.body["detail"]


async def _until(predicate, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not reached in time"
        await asyncio.sleep(0.05)


async def test_streams_are_bounded_per_user_and_per_process(pool, db_settings):
    alice, bob = await new_user(pool), await new_user(pool)
    settings = ApiSettings(sse_max_streams_per_user=3, sse_max_streams=4)
    with serve(db_settings, settings) as (url, app):
        hub: EventHub = app.state.events_hub
        async with client_for(url) as client:
            (run,) = await start_runs(client, alice, 1)
            (bobs_run,) = await start_runs(client, bob, 1)
            mine = [await open_stream(client, alice, run) for _ in range(3)]
            assert all(s.status == 200 and s.events[0][0] == "progress" for s in mine)
            # The user's fourth stream: 429 with a code, before any stream starts.
            _refused(await open_stream(client, alice, run), 429, "too_many_streams")
            # Another user still gets one — the process's last slot...
            bobs = await open_stream(client, bob, bobs_run)
            assert bobs.status == 200
            # ...and then the process is full for everyone: 503.
            _refused(await open_stream(client, bob, bobs_run), 503, "stream_slots_busy")
            assert hub.open_streams == 4
            # A closed tab gives its slot back.
            await mine[0].close()
            await _until(lambda: hub.open_streams == 3)
            again = await open_stream(client, alice, run)
            assert again.status == 200
            for stream in [*mine[1:], bobs, again]:
                await stream.close()
            await _until(lambda: hub.open_streams == 0)


async def test_a_notification_wakes_only_the_streams_of_its_run(pool, db_settings):
    alice = await new_user(pool)
    # No timer wakes anything during the test: only notifications do.
    settings = ApiSettings(sse_slow_poll_s=60, sse_token_recheck_s=60)
    with serve(db_settings, settings) as (url, app):
        hub: EventHub = app.state.events_hub
        async with client_for(url) as client:
            run_a, run_b = await start_runs(client, alice, 2)
            # (The listener's first connect wakes every stream, as any reconnect does.)
            await _until(lambda: hub.listening)
            streams = [await open_stream(client, alice, run) for run in (run_a, run_b)]
            await _until(lambda: len(hub.subscriptions()) == 2)
            by_run = {str(sub.run_id): sub for sub in hub.subscriptions()}
            for _ in range(5):
                await pool.execute("SELECT pg_notify($1, $2)", EVENTS_CHANNEL, run_a)
            await _until(lambda: by_run[run_a].wakeups >= 5)
            await asyncio.sleep(0.5)  # time for a stray wake-up of B to show
            assert by_run[run_a].wakeups == 5
            assert by_run[run_b].wakeups == 0
            # A payload that names no run is not lost: it wakes every stream.
            await pool.execute("SELECT pg_notify($1, $2)", EVENTS_CHANNEL, "not-a-run-id")
            await _until(lambda: by_run[run_b].wakeups == 1)
            for stream in streams:
                await stream.close()


def _error_code(stream: Stream) -> str:
    event, data = stream.events[-1]
    assert event == "error", stream.events
    return json.loads(data)["code"]


async def test_revoking_the_token_ends_its_open_streams_at_once(pool, db_settings):
    alice = await new_user(pool)
    other = await new_user(pool)  # a second token of another user keeps its stream
    settings = ApiSettings(sse_slow_poll_s=60, sse_token_recheck_s=60)
    with serve(db_settings, settings) as (url, app):
        async with client_for(url) as client:
            (run,) = await start_runs(client, alice, 1)
            (other_run,) = await start_runs(client, other, 1)
            await _until(lambda: app.state.events_hub.listening)
            stream = await open_stream(client, alice, run)
            kept = await open_stream(client, other, other_run)
            started = time.monotonic()
            assert await revoke_token(pool, alice.token_id)
            await asyncio.wait_for(stream.ended.wait(), timeout=10)
            # The revocation notification ended it, not the 60 s re-check.
            assert time.monotonic() - started < 10
            assert _error_code(stream) == "token_revoked"
            assert not kept.ended.is_set()
            await kept.close()


async def test_a_stream_rechecks_its_token_and_ends_once_it_is_revoked_or_expired(
    pool, db_settings
):
    alice, bob = await new_user(pool), await new_user(pool)
    settings = ApiSettings(sse_slow_poll_s=60, sse_token_recheck_s=0.5)
    with serve(db_settings, settings) as (url, _app):
        async with client_for(url) as client:
            (run,) = await start_runs(client, alice, 1)
            (bobs_run,) = await start_runs(client, bob, 1)
            revoked = await open_stream(client, alice, run)
            expired = await open_stream(client, bob, bobs_run)
            # Behind the API's back (no notification): only the re-check can notice.
            await pool.execute(
                "UPDATE api_tokens SET revoked_at = now() WHERE id = $1", alice.token_id
            )
            await pool.execute(
                "UPDATE api_tokens SET expires_at = now() WHERE id = $1", bob.token_id
            )
            for stream in (revoked, expired):
                await asyncio.wait_for(stream.ended.wait(), timeout=10)
                assert _error_code(stream) == "token_revoked"
            still = await client.get(f"/v1/runs/{run}", headers=alice.headers)
            assert still.status_code == 401


def test_settings_refuse_a_user_share_above_the_process_cap() -> None:
    try:
        ApiSettings(sse_max_streams=2, sse_max_streams_per_user=3).validate()
    except ValueError as exc:
        assert "sse_max_streams" in str(exc)
    else:
        raise AssertionError("accepted a per-user share above the process cap")
