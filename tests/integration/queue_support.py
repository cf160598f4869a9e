"""A real queue table for runtime tests, with the same claim columns as the product's."""

from __future__ import annotations

import uuid

import asyncpg

from citeproof.queue import QueueSettings
from citeproof.queue.columns import queue_table_ddl

# The test queue's own payload; the claim columns and indexes come from the runtime's contract.
TEST_PAYLOAD_COLUMNS = ("batch text NOT NULL", "payload text NOT NULL DEFAULT ''")
TEST_EFFECTS_DDL = """
CREATE TABLE IF NOT EXISTS test_task_effects (
    task_id    bigint NOT NULL,
    worker_id  text NOT NULL,
    batch      text NOT NULL
);
"""


def task_table_ddl(table: str) -> str:
    """A real queue table for runtime tests, shaped like every stage table of the product."""
    return queue_table_ddl(table, TEST_PAYLOAD_COLUMNS, if_not_exists=True) + TEST_EFFECTS_DDL


def fast_settings(**overrides: object) -> QueueSettings:
    """Short intervals so tests finish quickly; every value still goes through validation."""
    values: dict[str, object] = {
        "lease_s": 5.0,
        "heartbeat_s": 1.0,
        "poll_interval_s": 0.2,
        "concurrency": 4,
        "batch_size": 4,
        "backoff_base_s": 0.0,
        "backoff_max_s": 0.0,
        "sweep_interval_s": 0.2,
        "drain_grace_s": 2.0,
        "listener_keepalive_s": 0.5,
        "listener_reconnect_max_s": 0.5,
        "worker_http_port": 0,
    }
    values.update(overrides)
    return QueueSettings(**values).validate()  # type: ignore[arg-type]


async def ensure_test_table(pool: asyncpg.Pool, table: str = "test_tasks") -> None:
    """Create the shared test queue, or a test's own (`table`) that no other test claims."""
    async with pool.acquire() as conn:
        await conn.execute("SELECT pg_advisory_lock(42)")
        try:
            await conn.execute(task_table_ddl(table))
        finally:
            await conn.execute("SELECT pg_advisory_unlock(42)")


def private_table_name() -> str:
    return f"test_tasks_{uuid.uuid4().hex[:10]}"


async def drop_test_table(pool: asyncpg.Pool, table: str) -> None:
    await pool.execute(f"DROP TABLE IF EXISTS {table}")


async def enqueue(
    pool: asyncpg.Pool, batch: str, count: int, *, table: str = "test_tasks", **columns: object
) -> None:
    max_attempts = columns.get("max_attempts", 5)
    payload = columns.get("payload", "")
    await pool.execute(
        f"INSERT INTO {table} (batch, max_attempts, payload) "
        "SELECT $1, $2, $3 FROM generate_series(1, $4)",
        batch,
        max_attempts,
        payload,
        count,
    )


async def empty_database(server_url: str, prefix: str) -> str:
    """A new database with no schema on the session's server (for tests of the migrator)."""
    from urllib.parse import urlsplit, urlunsplit

    name = f"{prefix}_{uuid.uuid4().hex[:8]}"
    parts = urlsplit(server_url)
    conn = await asyncpg.connect(urlunsplit(parts._replace(path="/postgres")))
    try:
        await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()
    return urlunsplit(parts._replace(path=f"/{name}"))


async def fresh_database(server_url: str, prefix: str) -> str:
    """A new, migrated database on the session's server, for a test that must be alone in
    the product's queue tables (the session database holds other tests' rows)."""
    from citeproof.db.migrate import apply_migrations

    url = await empty_database(server_url, prefix)
    await apply_migrations(url)
    return url


async def drop_database(url: str) -> None:
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    conn = await asyncpg.connect(urlunsplit(parts._replace(path="/postgres")))
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{parts.path.lstrip("/")}" WITH (FORCE)')
    finally:
        await conn.close()
