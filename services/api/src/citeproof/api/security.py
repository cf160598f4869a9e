"""Authentication and per-user rate limiting, as the `caller` dependency of every /v1 route.

Handlers never see a token, only the `Caller` it resolves to, and every query they run is
scoped by `caller.user_id`. The rate limiter keeps one row per admitted request in
`rate_limit_events` (a sliding window), so any number of API replicas share one limit.
"""

from __future__ import annotations

import math
from typing import Any

import asyncpg
import msgspec
from litestar import Request
from litestar.connection import ASGIConnection
from litestar.datastructures import MutableScopeHeaders
from litestar.di import NamedDependency
from litestar.handlers.base import BaseRouteHandler
from litestar.types import Guard, Message, Scope

from citeproof.api.errors import ApiError
from citeproof.api.settings import ApiSettings
from citeproof.auth import Caller, TokenExpiredError, authenticate

# Route handlers opt into a different bucket or query-string tokens through `opt`.
OPT_RATE_BUCKET = "rate_bucket"
# Marks a /v1 route that answers without a token; every other /v1 route is authenticated.
OPT_PUBLIC = "public"
PRIVATE_PREFIX = "/v1"
CALLER_PARAMETER = "caller"
OPT_TOKEN_IN_QUERY = "token_in_query"
BUCKET_API = "api"
BUCKET_UPLOAD = "upload"
BEARER_CHALLENGE = {"WWW-Authenticate": 'Bearer realm="citeproof"'}
RATE_LIMIT_STATE = "citeproof_rate_limit"

RATE_LIMIT_SQL = """
WITH pruned AS (
    DELETE FROM rate_limit_events
    WHERE user_id = $1 AND bucket = $2 AND at < now() - make_interval(secs => $3)
), recent AS (
    SELECT count(*) AS n, min(at) AS oldest FROM rate_limit_events
    WHERE user_id = $1 AND bucket = $2 AND at >= now() - make_interval(secs => $3)
), admitted AS (
    INSERT INTO rate_limit_events (user_id, bucket) SELECT $1, $2 FROM recent WHERE n < $4
    RETURNING 1
)
SELECT n < $4 AS admitted, n,
       EXTRACT(EPOCH FROM (oldest + make_interval(secs => $3) - clock_timestamp()))::float8
           AS retry_after
FROM recent
"""


def _bearer_token(request: Request[Any, Any, Any]) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    if request.route_handler.opt.get(OPT_TOKEN_IN_QUERY):
        # EventSource cannot send headers, so the progress stream also takes ?token=.
        return request.query_params.get("token") or None
    return None


class RateLimitState(msgspec.Struct, frozen=True):
    """What the `RateLimit-*` headers of an admitted request say (IETF draft
    ratelimit-headers): the bucket's limit, requests left in the window, seconds until the
    oldest counted request leaves it."""

    limit: int
    remaining: int
    reset_s: int


async def check_rate_limit(
    conn: asyncpg.Connection, caller: Caller, bucket: str, limit: int, window_s: int
) -> RateLimitState:
    async with conn.transaction():
        # Serialise concurrent requests of one user and bucket so the count is exact.
        await conn.execute(
            "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))",
            f"ratelimit:{caller.user_id}:{bucket}",
        )
        row = await conn.fetchrow(RATE_LIMIT_SQL, caller.user_id, bucket, float(window_s), limit)
    if not row["admitted"]:
        retry_after = max(1, math.ceil(row["retry_after"] or window_s))
        raise ApiError(
            429,
            "rate_limited",
            f"Too many requests: at most {limit} per {window_s} s for this kind of request. "
            f"Retry in {retry_after} s.",
            retry_after=retry_after,
        )
    # `n` counted the window before this request was recorded.
    reset = math.ceil(row["retry_after"]) if row["retry_after"] is not None else window_s
    return RateLimitState(limit, max(0, limit - row["n"] - 1), max(0, reset))


async def provide_caller(
    request: Request[Any, Any, Any],
    pool: NamedDependency[asyncpg.Pool],
    api_settings: NamedDependency[ApiSettings],
) -> Caller:
    token = _bearer_token(request)
    if token is None:
        raise ApiError(
            401,
            "unauthorized",
            "Send an API token as 'Authorization: Bearer <token>'.",
            headers=BEARER_CHALLENGE,
        )
    async with pool.acquire() as conn:
        try:
            caller = await authenticate(conn, token)
        except TokenExpiredError:
            raise ApiError(
                401,
                "token_expired",
                "The API token has expired; ask for a new one (citeproof tokens create).",
                headers=BEARER_CHALLENGE,
            ) from None
        if caller is None:
            raise ApiError(
                401,
                "invalid_token",
                "The API token is unknown or was revoked.",
                headers=BEARER_CHALLENGE,
            )
        bucket = request.route_handler.opt.get(OPT_RATE_BUCKET, BUCKET_API)
        limit = (
            api_settings.rate_limit_uploads
            if bucket == BUCKET_UPLOAD
            else api_settings.rate_limit_requests
        )
        state = await check_rate_limit(
            conn, caller, bucket, limit, api_settings.rate_limit_window_s
        )
    # Read back by `rate_limit_headers` when the response starts.
    request.state[RATE_LIMIT_STATE] = state
    return caller


async def rate_limit_headers(message: Message, scope: Scope) -> None:
    """`before_send` hook: RateLimit-Limit/-Remaining/-Reset on every authenticated response,
    so a client can slow down before it is refused."""
    if message["type"] != "http.response.start":
        return
    state = scope.get("state", {}).get(RATE_LIMIT_STATE)
    if not isinstance(state, RateLimitState):
        return
    headers = MutableScopeHeaders.from_message(message)
    headers["RateLimit-Limit"] = str(state.limit)
    headers["RateLimit-Remaining"] = str(state.remaining)
    headers["RateLimit-Reset"] = str(state.reset_s)


def authentication_guard(settings: ApiSettings) -> Guard:
    """An app-wide guard that makes authentication the default on /v1.

    Handlers that take the `caller` are authenticated (and rate-limited) by that dependency.
    A /v1 handler that does not — someone forgot it — is authenticated here all the same,
    unless its `opt` marks it public: forgetting the caller can no longer open a route.
    """

    async def require_authentication(
        connection: ASGIConnection[Any, Any, Any, Any], handler: BaseRouteHandler
    ) -> None:
        if not connection.scope["path"].startswith(PRIVATE_PREFIX) or handler.opt.get(OPT_PUBLIC):
            return
        if CALLER_PARAMETER in handler.parsed_fn_signature.parameters:
            return
        await provide_caller(connection, connection.app.state.pool, settings)  # type: ignore[arg-type]

    return require_authentication
