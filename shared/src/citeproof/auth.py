"""API tokens: creation, hashing and lookup, shared by the API and the `citeproof` CLI.

A token is shown to its owner exactly once; the database keeps only its sha256, so a leaked
database dump or log line of `api_tokens` cannot be replayed. The prefix makes tokens easy to
spot in secret scanners and in a user's clipboard.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

import asyncpg

from citeproof.pipeline import TOKENS_CHANNEL

TOKEN_PREFIX = "cpt_"
# 32 random bytes: far beyond guessing range, and short enough to paste.
TOKEN_RANDOM_BYTES = 32
# Writing last_used_at on every request would turn each read into a write; a minute of
# precision is plenty for "when was this token last used".
LAST_USED_PRECISION_S = 60


@dataclass(frozen=True)
class Caller:
    """The authenticated user a request acts for."""

    user_id: uuid.UUID
    name: str
    token_id: uuid.UUID
    # When the token stops working (None: never, until revoked).
    token_expires_at: datetime | None = None


class UnknownUserError(LookupError):
    pass


class TokenExpiredError(LookupError):
    """The token is genuine and not revoked, but its expiry has passed."""


_DURATION = re.compile(r"(\d{1,9})([smhdw])")
_DURATION_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def parse_duration(text: str) -> timedelta:
    """`90m`, `12h`, `30d`, `2w` or a sum like `1d12h` → a positive timedelta."""
    text = text.strip().lower()
    parts = _DURATION.findall(text)
    if not parts or "".join(n + unit for n, unit in parts) != text:
        raise ValueError(f"not a duration: {text!r} (use e.g. 90m, 12h, 30d, 2w)")
    seconds = sum(int(n) * _DURATION_UNITS[unit] for n, unit in parts)
    if seconds <= 0:
        raise ValueError("a token's lifetime must be positive")
    return timedelta(seconds=seconds)


def new_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(TOKEN_RANDOM_BYTES)


def hash_token(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8")).digest()


async def create_user(conn: asyncpg.Connection | asyncpg.Pool, name: str) -> uuid.UUID:
    user_id: uuid.UUID = await conn.fetchval(
        "INSERT INTO users (name) VALUES ($1) RETURNING id", name
    )
    return user_id


INSERT_TOKEN_SQL = """
INSERT INTO api_tokens (user_id, token_hash, label, expires_at)
VALUES ($1, $2, $3, now() + $4::interval)
RETURNING id
"""


async def create_token(
    conn: asyncpg.Connection | asyncpg.Pool,
    user: str | uuid.UUID,
    label: str = "",
    expires_in: timedelta | None = None,
) -> tuple[uuid.UUID, str]:
    """A new token for `user` (a user name or id): returns (token id, the token itself).
    With `expires_in` it stops working that long from now (401 `token_expired`)."""
    if isinstance(user, uuid.UUID):
        user_id = await conn.fetchval("SELECT id FROM users WHERE id = $1", user)
    else:
        user_id = await conn.fetchval("SELECT id FROM users WHERE name = $1", user)
    if user_id is None:
        raise UnknownUserError(f"no user {user!s}")
    token = new_token()
    token_id = await conn.fetchval(INSERT_TOKEN_SQL, user_id, hash_token(token), label, expires_in)
    return token_id, token


# Revokes a live token and, in the same statement (so with the same commit), tells every API
# process to end the token's open progress streams.
REVOKE_TOKEN_SQL = """
WITH revoked AS (
    UPDATE api_tokens SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL RETURNING id
)
SELECT pg_notify($2, id::text) FROM revoked
"""


async def revoke_token(conn: asyncpg.Connection | asyncpg.Pool, token_id: uuid.UUID) -> bool:
    """True when a live token was revoked (False: unknown or already revoked)."""
    rows = await conn.fetch(REVOKE_TOKEN_SQL, token_id, TOKENS_CHANNEL)
    return len(rows) == 1


# The live token with this hash and its user; an expired one is reported (not touched), so
# its owner can be told to renew it rather than that it never existed.
AUTHENTICATE_SQL = f"""
WITH hit AS (
    SELECT t.id, t.user_id, u.name, t.last_used_at, t.expires_at,
           t.expires_at IS NOT NULL AND t.expires_at <= now() AS expired
    FROM api_tokens t JOIN users u ON u.id = t.user_id
    WHERE t.token_hash = $1 AND t.revoked_at IS NULL
), touch AS (
    UPDATE api_tokens SET last_used_at = now()
    WHERE id = (SELECT id FROM hit WHERE NOT expired)
      AND (last_used_at IS NULL
           OR last_used_at < now() - interval '{LAST_USED_PRECISION_S} seconds')
)
SELECT id, user_id, name, expires_at, expired FROM hit
"""

# Whether a token still works (neither revoked nor expired): long-lived requests (progress
# streams) ask again while they run.
TOKEN_LIVE_SQL = """
SELECT EXISTS (
    SELECT 1 FROM api_tokens
    WHERE id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())
)
"""


async def authenticate(conn: asyncpg.Connection | asyncpg.Pool, token: str) -> Caller | None:
    """The caller a token belongs to, or None for an unknown or revoked token.
    Raises TokenExpiredError for a token whose expiry has passed."""
    if not token.startswith(TOKEN_PREFIX) or len(token) > 200:
        return None
    row = await conn.fetchrow(AUTHENTICATE_SQL, hash_token(token))
    if row is None:
        return None
    if row["expired"]:
        raise TokenExpiredError(str(row["id"]))
    return Caller(
        user_id=row["user_id"],
        name=row["name"],
        token_id=row["id"],
        token_expires_at=row["expires_at"],
    )


async def token_is_live(conn: asyncpg.Connection | asyncpg.Pool, token_id: uuid.UUID) -> bool:
    """False once the token was revoked or has expired."""
    return bool(await conn.fetchval(TOKEN_LIVE_SQL, token_id))
