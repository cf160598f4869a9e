"""A flood of unauthenticated requests against a real server: every one is a 401 with its code,
none is a 5xx, none writes a row, and an authenticated user is still served meanwhile.

No token, a malformed one, an unknown `cpt_` token (one indexed lookup each), a revoked and an
expired token, on several routes and methods. The heavy version (thousands of requests, the
authenticated user's latency recorded) runs in `make test-hostile`.
"""

from __future__ import annotations

import asyncio
import itertools
import secrets
import time
from collections import Counter
from dataclasses import dataclass, field

import httpx

from citeproof.auth import revoke_token
from tests.integration.api_support import ApiUser, new_user
from tests.integration.test_api_cli import serve_api

CONCURRENCY = 50
ROUTES = (
    ("GET", "/v1/me"),
    ("GET", "/v1/sessions"),
    ("POST", "/v1/sessions"),
    ("GET", "/v1/runs/00000000-0000-0000-0000-000000000000"),
    ("GET", "/v1/runs/00000000-0000-0000-0000-000000000000/events"),
    ("DELETE", "/v1/sessions/00000000-0000-0000-0000-000000000000"),
)
EXPECTED_CODES = {"unauthorized", "invalid_token", "token_expired"}


@dataclass
class FloodResult:
    # (kind of credential, status, code) -> how many
    answers: Counter = field(default_factory=Counter)
    server_errors: int = 0
    authenticated_ms: list[float] = field(default_factory=list)

    @property
    def requests(self) -> int:
        return sum(self.answers.values())


def _credentials(revoked: str, expired: str) -> list[tuple[str, dict[str, str], dict[str, str]]]:
    """(kind, headers, query) of an unauthenticated request."""
    unknown = "cpt_" + secrets.token_urlsafe(32)
    return [
        ("none", {}, {}),
        ("malformed", {"Authorization": "Bearer " + "x" * 300}, {}),
        ("basic", {"Authorization": "Basic dXNlcjpwYXNz"}, {}),
        ("unknown", {"Authorization": f"Bearer {unknown}"}, {}),
        ("query", {}, {"token": unknown}),
        ("revoked", {"Authorization": f"Bearer {revoked}"}, {}),
        ("expired", {"Authorization": f"Bearer {expired}"}, {}),
    ]


async def flood(pool, url: str, total: int, user: ApiUser) -> FloodResult:
    """`total` unauthenticated requests, CONCURRENCY at a time, while `user` keeps asking for
    /v1/me with a valid token."""
    revoked, expired = await new_user(pool), await new_user(pool)
    await revoke_token(pool, revoked.token_id)
    await pool.execute(
        "UPDATE api_tokens SET expires_at = now() - interval '1 minute' WHERE id = $1",
        expired.token_id,
    )
    kinds = _credentials(revoked.token, expired.token)
    plan = itertools.islice(itertools.cycle(itertools.product(kinds, ROUTES)), total)
    result = FloodResult()
    done = asyncio.Event()
    limits = httpx.Limits(max_connections=CONCURRENCY + 2)
    async with httpx.AsyncClient(base_url=url, timeout=60, limits=limits) as client:

        async def attacker(queue: asyncio.Queue) -> None:
            while True:
                try:
                    (kind, headers, query), (method, path) = queue.get_nowait()
                except asyncio.QueueEmpty:
                    return
                body = {"name": "x"} if method == "POST" else None
                response = await client.request(
                    method, path, headers=headers, params=query, json=body
                )
                code = response.json().get("code") if response.content else None
                result.answers[(kind, response.status_code, code)] += 1
                if response.status_code >= 500:
                    result.server_errors += 1

        async def legitimate() -> None:
            while not done.is_set():
                started = time.monotonic()
                me = await client.get("/v1/me", headers=user.headers)
                assert me.status_code == 200, me.text
                result.authenticated_ms.append((time.monotonic() - started) * 1000)
                # Well under the user's own rate limit (120 per minute).
                await asyncio.sleep(0.6)

        queue: asyncio.Queue = asyncio.Queue()
        for entry in plan:
            queue.put_nowait(entry)
        watcher = asyncio.create_task(legitimate())
        await asyncio.gather(*(attacker(queue) for _ in range(CONCURRENCY)))
        done.set()
        await watcher
    return result


def assert_refused(result: FloodResult) -> None:
    assert result.server_errors == 0, result.answers
    for (kind, status, code), _ in result.answers.items():
        assert status == 401, (kind, status, code)
        assert code in EXPECTED_CODES, (kind, code)
        if kind == "expired":
            assert code == "token_expired"
        elif kind in ("none", "basic"):
            assert code == "unauthorized"
        elif kind == "query":  # only the progress stream reads a token from the query
            assert code in ("unauthorized", "invalid_token"), code
        else:
            assert code == "invalid_token", (kind, code)
    assert result.authenticated_ms, "the legitimate user was never served"


async def test_an_unauthenticated_flood_is_refused_cheaply_and_writes_nothing(pool, db_settings):
    alice = await new_user(pool)
    with serve_api(db_settings) as url:
        rows_before = await pool.fetchval("SELECT count(*) FROM rate_limit_events")
        sessions_before = await pool.fetchval("SELECT count(*) FROM sessions")
        result = await flood(pool, url, 600, alice)
        # Only alice's own requests were counted against a rate limit; the flood wrote nothing.
        rows_after = await pool.fetchval("SELECT count(*) FROM rate_limit_events")
        assert rows_after - rows_before <= len(result.authenticated_ms)
        assert await pool.fetchval("SELECT count(*) FROM sessions") == sessions_before
    assert result.requests == 600
    assert_refused(result)
