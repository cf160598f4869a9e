"""Least-privilege roles on the real (embedded) PostgreSQL: after `citeproof migrate` grants
them, a runtime role can do its service's work (the parse stage claims, parses and completes an
item as `citeproof_parser`) and nothing else: no DDL, no other service's tables; KEDA can count
queued rows and read nothing more; a runtime role's boot with nothing pending runs no DDL, and
with a migration pending it fails naming the migration role."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import pytest

from citeproof.db.migrate import MigrationError, apply_migrations, default_migrations_dir
from citeproof.db.pool import create_pool
from citeproof.db.roles import KEDA_ROLE, RUNTIME_ROLES, all_roles, grant_runtime_roles
from citeproof.db.settings import DatabaseSettings
from citeproof.parser.service import ParseService
from citeproof.parser.settings import ParserSettings
from citeproof.queue import run_once
from tests.integration.queue_support import drop_database, empty_database
from tests.integration.test_parser_stage import enqueue, item

PARSER_ROLE = "citeproof_parser"


def as_role(url: str, role: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(netloc=f"{role}@{parts.hostname or ''}"))


@pytest.fixture
async def granted(database_url: str) -> AsyncIterator[str]:
    """A new database migrated by the owner, with every citeproof role created and granted."""
    url = await empty_database(database_url, "citeproof_roles")
    admin = await asyncpg.connect(url)
    try:
        for role in all_roles():
            await admin.execute(f'DROP ROLE IF EXISTS "{role}"')
            await admin.execute(f'CREATE ROLE "{role}" LOGIN')
        # What `citeproof migrate` does: migrations, then the grants.
        assert await apply_migrations(url, grant_roles=True)
        yield url
    finally:
        await admin.close()
        await drop_database(url)
        cleanup = await asyncpg.connect(database_url)
        try:
            for role in all_roles():
                await cleanup.execute(f'DROP ROLE IF EXISTS "{role}"')
        finally:
            await cleanup.close()


async def refused(conn: asyncpg.Connection, sql: str) -> bool:
    try:
        await conn.execute(sql)
    except asyncpg.InsufficientPrivilegeError:
        return True
    return False


async def test_a_runtime_role_can_do_its_work_and_no_ddl(granted: str) -> None:
    owner = await create_pool(DatabaseSettings(url=granted, pool_min=1, pool_max=2))
    parser_pool = await create_pool(
        DatabaseSettings(url=as_role(granted, PARSER_ROLE), pool_min=1, pool_max=2)
    )
    service = ParseService(ParserSettings(item_timeout_s=60))
    try:
        user_id = await owner.fetchval("INSERT INTO users (name) VALUES ('roles') RETURNING id")
        _, [item_id] = await enqueue(
            owner, user_id, [("a.txt", b"Plain text of a source about heat islands. " * 20)]
        )
        # The parse stage as the parser role: claim, parse, store, complete.
        assert await run_once(parser_pool, service.parse_stage) == 1
        done = await item(owner, item_id)
        assert done["state"] == "succeeded", done["error_detail"]
        assert done["document_state"] == "parsed" and done["bytes_gone"]

        async with parser_pool.acquire() as conn:
            assert await conn.fetchval("SELECT current_user") == PARSER_ROLE
            for ddl in (
                "CREATE TABLE stolen (x text)",
                "ALTER TABLE documents ADD COLUMN x text",
                "DROP TABLE chunks",
                "TRUNCATE parse_items",
                "CREATE INDEX ON documents (filename)",
                "CREATE FUNCTION f() RETURNS int LANGUAGE sql AS 'SELECT 1'",
            ):
                assert await refused(conn, ddl), f"{PARSER_ROLE} may run: {ddl}"
            # Other services' tables: the tokens, the users, the verdicts.
            for table in ("api_tokens", "users", "verdicts", "verdict_cache", "evidence"):
                assert table not in RUNTIME_ROLES[PARSER_ROLE]
                assert await refused(conn, f"SELECT * FROM {table}"), table
    finally:
        service.sandbox.close()
        await parser_pool.close()
        await owner.close()


async def test_keda_counts_queued_rows_and_reads_nothing_else(granted: str) -> None:
    conn = await asyncpg.connect(as_role(granted, KEDA_ROLE))
    try:
        for table in ("parse_items", "runs", "judge_tasks"):
            count = await conn.fetchval(
                f"SELECT count(*) FROM {table} WHERE state = 'queued' AND run_after <= now()"
            )
            assert count == 0
        age = await conn.fetchval(
            "SELECT coalesce(extract(epoch FROM now() - min(run_after)), 0)::bigint "
            "FROM parse_items WHERE state = 'queued' AND run_after <= now()"
        )
        assert age == 0
        for sql in (
            "SELECT file_bytes FROM parse_items",
            "SELECT * FROM runs",
            "SELECT * FROM documents",
            "SELECT * FROM api_tokens",
            "UPDATE parse_items SET state = 'queued'",
            "CREATE TABLE stolen (x text)",
        ):
            assert await refused(conn, sql), sql
    finally:
        await conn.close()


async def test_a_runtime_role_boots_without_ddl_and_refuses_pending_migrations(
    granted: str, tmp_path
) -> None:
    parser_url = as_role(granted, PARSER_ROLE)
    # Nothing pending: the boot-time migration step applies nothing and runs no DDL.
    assert await apply_migrations(parser_url) == []
    for path in default_migrations_dir().glob("*.sql"):
        shutil.copy(path, tmp_path / path.name)
    (tmp_path / "9999_future.sql").write_text("CREATE TABLE future (x int);")
    with pytest.raises(MigrationError, match="migration role"):
        await apply_migrations(parser_url, tmp_path)
    # The migration role applies it, and the grants follow the new schema.
    assert await apply_migrations(granted, tmp_path) == [9999]
    conn = await asyncpg.connect(parser_url)
    try:
        assert await refused(conn, "SELECT * FROM future")  # in no service's list
        assert await conn.fetchval("SELECT count(*) FROM documents") == 0
    finally:
        await conn.close()


async def test_a_one_role_database_needs_no_roles(database_url: str) -> None:
    """The embedded default: no citeproof role exists, granting is a no-op."""
    url = await empty_database(database_url, "citeproof_one_role")
    try:
        assert await apply_migrations(url, grant_roles=True)
        conn = await asyncpg.connect(url)
        try:
            for role in all_roles():
                await conn.execute(f'DROP ROLE IF EXISTS "{role}"')
            assert await grant_runtime_roles(conn) == []
        finally:
            await conn.close()
    finally:
        await drop_database(url)
