"""API tokens: creation, hashing and lookup, shared by the API and the `citeproof` CLI.

A token is shown to its owner exactly once; the database keeps only its sha256, so a leaked
database dump or log line of `api_tokens` cannot be replayed. The prefix makes tokens easy to
spot in secret scanners and in a user's clipboard.
"""

from __future__ import annotations

import hashlib
import secrets
import uuid
from dataclasses import dataclass

import asyncpg

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


class UnknownUserError(LookupError):
    pass


def new_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(TOKEN_RANDOM_BYTES)


def hash_token(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8")).digest()


async def create_user(conn: asyncpg.Connection | asyncpg.Pool, name: str) -> uuid.UUID:
    user_id: uuid.UUID = await conn.fetchval(
        "INSERT INTO users (name) VALUES ($1) RETURNING id", name
    )
    return user_id


async def create_token(
    conn: asyncpg.Connection | asyncpg.Pool, user: str | uuid.UUID, label: str = ""
) -> tuple[uuid.UUID, str]:
    """A new token for `user` (a user name or id): returns (token id, the token itself)."""
    if isinstance(user, uuid.UUID):
        user_id = await conn.fetchval("SELECT id FROM users WHERE id = $1", user)
    else:
        user_id = await conn.fetchval("SELECT id FROM users WHERE name = $1", user)
    if user_id is None:
        raise UnknownUserError(f"no user {user!s}")
    token = new_token()
    token_id = await conn.fetchval(
        "INSERT INTO api_tokens (user_id, token_hash, label) VALUES ($1, $2, $3) RETURNING id",
        user_id,
        hash_token(token),
        label,
    )
    return token_id, token


async def revoke_token(conn: asyncpg.Connection | asyncpg.Pool, token_id: uuid.UUID) -> bool:
    """True when a live token was revoked (False: unknown or already revoked)."""
    status: str = await conn.execute(
        "UPDATE api_tokens SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL", token_id
    )
    return status.endswith(" 1")


AUTHENTICATE_SQL = f"""
WITH hit AS (
    SELECT t.id, t.user_id, u.name, t.last_used_at
    FROM api_tokens t JOIN users u ON u.id = t.user_id
    WHERE t.token_hash = $1 AND t.revoked_at IS NULL
), touch AS (
    UPDATE api_tokens SET last_used_at = now()
    WHERE id = (SELECT id FROM hit)
      AND (last_used_at IS NULL
           OR last_used_at < now() - interval '{LAST_USED_PRECISION_S} seconds')
)
SELECT id, user_id, name FROM hit
"""


async def authenticate(conn: asyncpg.Connection | asyncpg.Pool, token: str) -> Caller | None:
    """The caller a token belongs to, or None for an unknown or revoked token."""
    if not token.startswith(TOKEN_PREFIX) or len(token) > 200:
        return None
    row = await conn.fetchrow(AUTHENTICATE_SQL, hash_token(token))
    if row is None:
        return None
    return Caller(user_id=row["user_id"], name=row["name"], token_id=row["id"])
