"""`citeproof users create|list` and `citeproof tokens create|list|revoke`.

These talk to the database directly (they are operator commands, run where DATABASE_URL is
set); tokens are printed exactly once and only their sha256 is stored.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg

from citeproof.auth import (
    UnknownUserError,
    create_token,
    create_user,
    parse_duration,
    revoke_token,
)
from citeproof.db.boot import migrate_at_boot
from citeproof.db.pool import embedded_server, resolve_database_url
from citeproof.db.settings import DatabaseSettings
from citeproof.settings import load


def register(subparsers: argparse._SubParsersAction) -> None:
    users = subparsers.add_parser("users", help="create and list users")
    users_sub = users.add_subparsers(dest="users_command", required=True)
    create = users_sub.add_parser("create", help="create a user")
    create.add_argument("name", help="unique user name")
    create.set_defaults(handler=lambda args: _run(_create_user, args))
    listing = users_sub.add_parser("list", help="list users")
    listing.set_defaults(handler=lambda args: _run(_list_users, args))

    tokens = subparsers.add_parser("tokens", help="create, list and revoke API tokens")
    tokens_sub = tokens.add_subparsers(dest="tokens_command", required=True)
    create = tokens_sub.add_parser("create", help="create a token (printed once)")
    create.add_argument("--user", required=True, help="user name")
    create.add_argument("--label", default="", help="free text to recognise the token later")
    create.add_argument(
        "--expires-in",
        type=_duration,
        default=None,
        metavar="DURATION",
        help="the token stops working after this long (e.g. 12h, 30d, 2w; default: never)",
    )
    create.set_defaults(handler=lambda args: _run(_create_token, args))
    listing = tokens_sub.add_parser("list", help="list a user's tokens (never the tokens)")
    listing.add_argument("--user", required=True, help="user name")
    listing.set_defaults(handler=lambda args: _run(_list_tokens, args))
    revoke = tokens_sub.add_parser("revoke", help="revoke a token by its id")
    revoke.add_argument("token_id", type=uuid.UUID, help="token id (from `tokens list`)")
    revoke.set_defaults(handler=lambda args: _run(_revoke_token, args))


def _duration(text: str) -> timedelta:
    try:
        return parse_duration(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _run(command: Callable[[asyncpg.Connection, Any], Awaitable[int]], args: Any) -> int:
    async def main() -> int:
        settings = load(DatabaseSettings)
        await migrate_at_boot(settings)
        url = resolve_database_url(settings)
        conn = await asyncpg.connect(url)
        try:
            return await command(conn, args)
        finally:
            await conn.close()

    try:
        return asyncio.run(main())
    finally:
        # An embedded server this command started must not outlive it (one it merely
        # attached to belongs to whoever started it, e.g. a running `citeproof dev`).
        server = embedded_server()
        if server is not None and server.owner:
            server.stop()


async def _create_user(conn: asyncpg.Connection, args: Any) -> int:
    try:
        user_id = await create_user(conn, args.name)
    except asyncpg.UniqueViolationError:
        print(f"error: a user named {args.name!r} already exists", file=sys.stderr)
        return 2
    print(f"created user {args.name} ({user_id})")
    return 0


async def _list_users(conn: asyncpg.Connection, args: Any) -> int:
    for row in await conn.fetch("SELECT id, name, created_at FROM users ORDER BY name"):
        print(f"{row['id']}  {row['name']}  {row['created_at']:%Y-%m-%d %H:%M}")
    return 0


async def _create_token(conn: asyncpg.Connection, args: Any) -> int:
    try:
        token_id, token = await create_token(conn, args.user, args.label, args.expires_in)
    except UnknownUserError:
        print(f"error: no user named {args.user!r} (citeproof users create NAME)", file=sys.stderr)
        return 2
    print(f"token id: {token_id}", file=sys.stderr)
    if args.expires_in is not None:
        expires_at = datetime.now(UTC) + args.expires_in
        print(f"expires: {expires_at:%Y-%m-%d %H:%M} UTC", file=sys.stderr)
    print("store this token now; it cannot be shown again:", file=sys.stderr)
    print(token)  # stdout carries only the token, for `TOKEN=$(citeproof tokens create ...)`
    return 0


async def _list_tokens(conn: asyncpg.Connection, args: Any) -> int:
    rows = await conn.fetch(
        "SELECT t.id, t.label, t.created_at, t.last_used_at, t.revoked_at, t.expires_at, "
        "t.expires_at <= now() AS expired FROM api_tokens t "
        "JOIN users u ON u.id = t.user_id WHERE u.name = $1 ORDER BY t.created_at",
        args.user,
    )
    for row in rows:
        state = "revoked" if row["revoked_at"] else "expired" if row["expired"] else "active"
        if row["expires_at"] is not None and state == "active":
            state = f"active until {row['expires_at']:%Y-%m-%d %H:%M %Z}"
        used = f"{row['last_used_at']:%Y-%m-%d %H:%M}" if row["last_used_at"] else "never used"
        print(f"{row['id']}  {state:7}  {used:16}  {row['label']}")
    return 0


async def _revoke_token(conn: asyncpg.Connection, args: Any) -> int:
    if await revoke_token(conn, args.token_id):
        print(f"revoked {args.token_id}")
        return 0
    print(f"error: no active token {args.token_id}", file=sys.stderr)
    return 2
