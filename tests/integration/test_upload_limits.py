"""Uploads cannot exhaust an API process: the attacks themselves, against a real HTTP server.

Refusals come before the body is read; accepted bytes go to a spool file and reach PostgreSQL
in bounded chunks; concurrent uploads are bounded per user and per process; a body that stops
arriving is cut off. The heavy version (20 concurrent 120 MiB uploads, RSS measured) is in
tests/hostile (`make test-hostile`).
"""

from __future__ import annotations

import asyncio
import hashlib
import subprocess
import sys
import textwrap
import tracemalloc
import uuid

import httpx

from citeproof.api.settings import MIB, ApiSettings
from tests.hostile.raw_http import GeneratedFile, upload
from tests.integration.api_support import new_user
from tests.integration.test_api_cli import serve_api


async def _session(base_url: str, token: str) -> str:
    async with httpx.AsyncClient(base_url=base_url) as client:
        response = await client.post(
            "/v1/sessions", json={"name": "limits"}, headers={"Authorization": f"Bearer {token}"}
        )
    assert response.status_code == 201, response.text
    return response.json()["id"]


def _error(response, status: int, code: str) -> None:
    assert response.status, response
    assert (response.status, response.json()["code"]) == (status, code), response.body


async def test_a_declared_length_over_the_staged_cap_is_refused_before_the_body(pool, db_settings):
    alice = await new_user(pool)
    with serve_api(db_settings) as url:
        session_id = await _session(url, alice.token)
        # 200 MiB declared, not a byte sent: the answer must not wait for the body.
        refused = await asyncio.wait_for(
            upload(
                url,
                alice.token,
                session_id,
                [GeneratedFile("big.pdf", 10)],
                content_length=200 * MIB,
                stall_after=0,
            ),
            timeout=30,
        )
    _error(refused, 413, "staged_bytes_limit")
    assert refused.sent == 0


async def test_the_room_left_counts_what_the_user_already_staged(pool, db_settings):
    alice = await new_user(pool)
    settings = ApiSettings(max_staged_bytes=8 * MIB, max_file_bytes=8 * MIB)
    with serve_api(db_settings, settings) as url:
        session_id = await _session(url, alice.token)
        first = await upload(url, alice.token, session_id, [GeneratedFile("a.pdf", 5 * MIB)])
        assert first.status == 202, first.body
        # 5 MiB staged, 3 MiB of room: a 6 MiB body is refused on its Content-Length...
        second = await upload(
            url, alice.token, session_id, [GeneratedFile("b.pdf", 6 * MIB)], stall_after=0
        )
        _error(second, 413, "staged_bytes_limit")
        assert second.sent == 0
        # ...and a chunked-looking lie (a small Content-Length is not trusted) while streaming.
        third = await upload(url, alice.token, session_id, [GeneratedFile("c.pdf", 4 * MIB)])
        _error(third, 413, "staged_bytes_limit")
        assert third.sent < 4 * MIB + 512 * 1024


async def test_accepted_bytes_reach_postgres_whole_through_bounded_chunks(pool, db_settings):
    alice = await new_user(pool)
    file = GeneratedFile("exact.pdf", 3 * MIB + 12345)
    expected = b"".join(file.pieces())
    with serve_api(db_settings) as url:
        session_id = await _session(url, alice.token)
        accepted = await upload(url, alice.token, session_id, [file])
    assert accepted.status == 202, accepted.body
    job_id = uuid.UUID(accepted.json()["job_id"])
    row = await pool.fetchrow(
        "SELECT size_bytes, file_bytes FROM parse_items WHERE job_id = $1", job_id
    )
    assert row["size_bytes"] == len(expected)
    assert hashlib.sha256(row["file_bytes"]).digest() == hashlib.sha256(expected).digest()
    assert await pool.fetchval("SELECT count(*) FROM staged_upload_chunks") == 0


_CLIENT = textwrap.dedent(
    """
    import asyncio, sys
    from tests.hostile.raw_http import GeneratedFile, upload
    url, token, session_id, size = sys.argv[1:5]
    response = asyncio.run(upload(url, token, session_id, [GeneratedFile("m.pdf", int(size))]))
    print(response.status)
    """
)


async def test_an_upload_is_never_held_in_the_api_process_memory(pool, db_settings):
    """Python allocations of the serving process during a 24 MiB upload stay a few MiB: the
    body used to be collected in a bytearray and copied again for the database."""
    alice = await new_user(pool)
    size = 24 * MIB
    with serve_api(db_settings) as url:
        session_id = await _session(url, alice.token)
        tracemalloc.start()
        try:
            tracemalloc.reset_peak()
            # The client is another process, so only the server's allocations are traced.
            client = await asyncio.create_subprocess_exec(
                sys.executable,
                "-c",
                _CLIENT,
                url,
                alice.token,
                session_id,
                str(size),
                stdout=subprocess.PIPE,
            )
            out, _ = await asyncio.wait_for(client.communicate(), 120)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert out.decode().strip() == "202"
    assert peak < 8 * MIB, f"the API allocated {peak / MIB:.1f} MiB for a 24 MiB upload"


def _stalled_upload(url: str, token: str, session: str, resume: asyncio.Event) -> asyncio.Future:
    """A 1 MiB upload that stops after its first 1,000 bytes until `resume` is set, holding
    its upload slot meanwhile."""
    return asyncio.ensure_future(
        upload(
            url, token, session, [GeneratedFile("slow.pdf", MIB)], stall_after=1000, resume=resume
        )
    )


async def test_one_user_cannot_hold_more_than_their_share_of_upload_slots(pool, db_settings):
    alice, bob = await new_user(pool), await new_user(pool)
    settings = ApiSettings(max_concurrent_uploads=2, max_concurrent_uploads_per_user=1)
    with serve_api(db_settings, settings) as url:
        alice_session = await _session(url, alice.token)
        bob_session = await _session(url, bob.token)
        resume = asyncio.Event()
        # Alice's first upload stalls mid-body, holding her one slot.
        held = _stalled_upload(url, alice.token, alice_session, resume)
        await asyncio.sleep(1.0)
        second = await upload(url, alice.token, alice_session, [GeneratedFile("x.pdf", 1000)])
        _error(second, 429, "too_many_concurrent_uploads")
        # Bob is not affected by Alice's share.
        bob_upload = await upload(url, bob.token, bob_session, [GeneratedFile("b.pdf", 1000)])
        assert bob_upload.status == 202, bob_upload.body
        resume.set()
        assert (await held).status == 202
        # The slot is free again.
        again = await upload(url, alice.token, alice_session, [GeneratedFile("y.pdf", 1000)])
        assert again.status == 202, again.body


async def test_a_full_process_makes_uploads_wait_then_refuses_them(pool, db_settings):
    alice, bob = await new_user(pool), await new_user(pool)
    settings = ApiSettings(
        max_concurrent_uploads=1, max_concurrent_uploads_per_user=1, upload_slot_wait_s=0.5
    )
    with serve_api(db_settings, settings) as url:
        alice_session = await _session(url, alice.token)
        bob_session = await _session(url, bob.token)
        resume = asyncio.Event()
        held = _stalled_upload(url, alice.token, alice_session, resume)
        await asyncio.sleep(1.0)
        busy = await upload(url, bob.token, bob_session, [GeneratedFile("b.pdf", 1000)])
        _error(busy, 503, "upload_slots_busy")
        assert busy.headers.get("retry-after")
        resume.set()
        assert (await held).status == 202


async def test_a_body_that_stops_arriving_is_cut_off(pool, db_settings):
    alice = await new_user(pool)
    settings = ApiSettings(upload_idle_timeout_s=1.0)
    with serve_api(db_settings, settings) as url:
        session_id = await _session(url, alice.token)
        stalled = await asyncio.wait_for(
            upload(url, alice.token, session_id, [GeneratedFile("s.pdf", MIB)], stall_after=500),
            timeout=30,
        )
        _error(stalled, 408, "upload_timeout")
        # The slot it held is free: the next upload goes through.
        after = await upload(url, alice.token, session_id, [GeneratedFile("t.pdf", 1000)])
        assert after.status == 202, after.body


async def test_a_body_that_trickles_is_cut_off_and_frees_its_slot(pool, db_settings):
    """Slowloris that never goes silent: one byte a second keeps an idle timeout away, so the
    body must also keep a minimum rate over each window."""
    alice = await new_user(pool)
    settings = ApiSettings(
        upload_idle_timeout_s=2, upload_min_bytes_per_s=4096, max_concurrent_uploads_per_user=1
    )
    with serve_api(db_settings, settings) as url:
        session_id = await _session(url, alice.token)
        started = asyncio.get_running_loop().time()
        trickled = await asyncio.wait_for(
            upload(
                url,
                alice.token,
                session_id,
                [GeneratedFile("t.pdf", MIB)],
                trickle_after=1000,
                trickle_every_s=0.5,
            ),
            timeout=30,
        )
        _error(trickled, 408, "upload_too_slow")
        # Cut at the end of the first slow window, not when the body would have ended.
        assert asyncio.get_running_loop().time() - started < 10
        # The slot is free again: the next upload goes through.
        after = await upload(url, alice.token, session_id, [GeneratedFile("n.pdf", MIB)])
        assert after.status == 202, after.body


async def test_the_upload_refusals_are_documented_in_the_openapi_document(db_settings):
    from tests.integration.api_support import api_client

    async with api_client(db_settings) as client:
        schema = (await client.get("/schema/openapi.json")).json()
    responses = schema["paths"]["/v1/sessions/{session_id}/documents"]["post"]["responses"]
    assert {"408", "413", "429", "503"} <= set(responses)
