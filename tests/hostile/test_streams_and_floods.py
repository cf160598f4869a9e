"""Heavy versions of the stream, flood and slowloris cases (`make test-hostile`).

- 200 progress streams opened at once by one user: the user's share (8) opens, every other one
  is a 429 `too_many_streams`, nothing is a 5xx, and every slot is back once they close.
- thousands of unauthenticated requests: all 401 with their code, none a 5xx, and a signed-in
  user is served meanwhile (their latency recorded).
- slowloris: a dozen users trickle upload bodies to hold the process's upload slots; each is cut
  off (408) and a normal upload of another user still goes through.
"""

from __future__ import annotations

import asyncio
import statistics

from citeproof.api.settings import MIB, ApiSettings
from tests.hostile.raw_http import GeneratedFile, upload
from tests.integration.api_support import new_user
from tests.integration.test_api_streams import _until, client_for, open_stream, serve, start_runs
from tests.integration.test_api_unauthenticated_flood import assert_refused, flood

STREAMS = 200
FLOOD_REQUESTS = 5000
TRICKLERS = 12


async def test_two_hundred_streams_from_one_user(pool, db_settings, hostile_record):
    alice = await new_user(pool)
    # The request rate limit (120 a minute) would refuse many of them first; raised here so
    # that the stream cap is what is measured.
    settings = ApiSettings(rate_limit_requests=1000)
    with serve(db_settings, settings) as (url, app):
        hub = app.state.events_hub
        async with client_for(url) as client:
            (run,) = await start_runs(client, alice, 1)
            streams = await asyncio.gather(
                *(open_stream(client, alice, run) for _ in range(STREAMS))
            )
            statuses = [(s.status, (s.body or {}).get("code")) for s in streams]
            opened = sum(1 for status, _ in statuses if status == 200)
            peak = hub.open_streams
            for status, code in statuses:
                ok = status == 200 or (status, code) == (429, "too_many_streams")
                hostile_record.add("sse_200_streams_one_user", status, code, ok)
            for stream in streams:
                await stream.close()
            await _until(lambda: hub.open_streams == 0, timeout=30)
    hostile_record.extra["sse_streams_one_user"] = {
        "tried": STREAMS,
        "opened": opened,
        "refused_429": sum(1 for s in statuses if s == (429, "too_many_streams")),
        "peak_open": peak,
        "open_after_close": 0,
    }
    assert opened == settings.sse_max_streams_per_user == peak
    assert all(s == (200, None) or s == (429, "too_many_streams") for s in statuses), statuses


async def test_an_unauthenticated_flood_of_thousands(pool, db_settings, hostile_record):
    alice = await new_user(pool)
    with serve(db_settings, ApiSettings()) as (url, _app):
        result = await flood(pool, url, FLOOD_REQUESTS, alice)
    for (kind, status, code), _count in sorted(result.answers.items()):
        hostile_record.add(f"unauth_flood_{kind}", status, code, status == 401)
    latencies = sorted(result.authenticated_ms)
    hostile_record.extra["unauth_flood"] = {
        "requests": result.requests,
        "server_errors": result.server_errors,
        "authenticated_requests_meanwhile": len(latencies),
        "authenticated_median_ms": round(statistics.median(latencies), 1),
        "authenticated_max_ms": round(latencies[-1], 1),
    }
    assert result.requests == FLOOD_REQUESTS
    assert_refused(result)


async def test_trickling_uploads_cannot_hold_the_upload_slots(pool, db_settings, hostile_record):
    settings = ApiSettings(upload_idle_timeout_s=5, upload_slot_wait_s=60)
    users = [await new_user(pool) for _ in range(TRICKLERS // 2 + 1)]
    honest = users.pop()
    with serve(db_settings, settings) as (url, _app):
        async with client_for(url) as client:
            sessions = {}
            for user in [*users, honest]:
                response = await client.post(
                    "/v1/sessions", json={"name": "slow"}, headers=user.headers
                )
                sessions[user.token] = response.json()["id"]
        tricklers = [
            upload(
                url,
                user.token,
                sessions[user.token],
                [GeneratedFile(f"slow{n}.pdf", MIB)],
                trickle_after=500,
                trickle_every_s=1.0,
                timeout_s=120,
            )
            for user in users
            for n in range(2)
        ]
        trickled = asyncio.gather(*tricklers)
        await asyncio.sleep(1)  # the tricklers hold every slot by now
        good = await upload(
            url, honest.token, sessions[honest.token], [GeneratedFile("ok.pdf", MIB)]
        )
        cut = await trickled
    for response in cut:
        hostile_record.add(
            "slowloris_trickle",
            response.status,
            _code(response),
            (response.status, _code(response)) == (408, "upload_too_slow"),
        )
    hostile_record.add("slowloris_honest_upload", good.status, _code(good), good.status == 202)
    assert good.status == 202, good.body
    assert {(r.status, _code(r)) for r in cut} == {(408, "upload_too_slow")}


def _code(response) -> str | None:
    try:
        return response.json().get("code")
    except ValueError:
        return None
