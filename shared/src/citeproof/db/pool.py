"""Connection pools and URL resolution (explicit DATABASE_URL or the embedded server)."""

from __future__ import annotations

import os
from pathlib import Path

import asyncpg
from pgvector.asyncpg import register_vector

from citeproof.db.embedded import EmbeddedPostgres
from citeproof.db.settings import DatabaseSettings

# Processes that attach to the embedded server record the URL here so that children
# (started by `citeproof dev` or tests) inherit one server instead of racing to start one.
_EMBEDDED_URL_ENV = "DATABASE_URL"

_embedded: EmbeddedPostgres | None = None


def resolve_database_url(settings: DatabaseSettings) -> str:
    """DATABASE_URL when set; otherwise start (or attach to) the embedded server."""
    global _embedded
    if settings.url:
        return settings.url
    if _embedded is None:
        _embedded = EmbeddedPostgres(
            Path(settings.embedded_pg_dir).resolve(), fast=settings.embedded_pg_fast
        )
        was_running = _embedded.is_running()
        _embedded.start()
        # A process that merely attached must not stop a server others are using.
        _embedded.owner = not was_running
    url = _embedded.url()
    os.environ.setdefault(_EMBEDDED_URL_ENV, url)
    return url


def embedded_server() -> EmbeddedPostgres | None:
    return _embedded


def resolve_listen_url(settings: DatabaseSettings) -> str:
    return settings.listen_url or resolve_database_url(settings)


async def _init_connection(conn: asyncpg.Connection) -> None:
    # The vector type exists only after the first migration; pools opened before it
    # (the migration runner's own) simply skip the codec.
    try:
        await register_vector(conn)
    except (ValueError, asyncpg.UndefinedObjectError):
        pass


async def _keep_session(_conn: asyncpg.Connection) -> None:
    """Replaces asyncpg's reset query on release (`pg_advisory_unlock_all(); CLOSE ALL;
    UNLISTEN *; RESET ALL`), one extra round trip after EVERY pooled statement. Our pooled
    connections carry no session state to reset: LISTEN has its own connection, advisory
    locks taken on them are transaction-scoped, nothing runs SET. asyncpg itself still rolls
    back a transaction left open and drops listeners before the connection is reused."""


async def create_pool(
    settings: DatabaseSettings, *, min_size: int | None = None, max_size: int | None = None
) -> asyncpg.Pool:
    server_settings = {"application_name": "citeproof"}
    if settings.statement_timeout_ms:
        server_settings["statement_timeout"] = str(settings.statement_timeout_ms)
    return await asyncpg.create_pool(
        resolve_database_url(settings),
        min_size=settings.pool_min if min_size is None else min_size,
        max_size=settings.pool_max if max_size is None else max_size,
        init=_init_connection,
        reset=_keep_session,
        server_settings=server_settings,
        statement_cache_size=settings.statement_cache_size,
    )
