import asyncio
import subprocess
import sys
from pathlib import Path

import asyncpg
import pytest

from citeproof.db.migrate import MigrationError, apply_migrations, default_migrations_dir, discover
from tests.integration.queue_support import empty_database


async def test_schema_has_design_tables(pool: asyncpg.Pool) -> None:
    tables = {
        r["tablename"]
        for r in await pool.fetch("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
    }
    expected = {
        "users", "api_tokens", "sessions", "documents", "session_sources", "chunks",
        "references", "citations", "parse_jobs", "parse_items", "runs", "retrieve_tasks",
        "judge_tasks", "evidence", "verdicts", "verdict_cache", "worker_heartbeats",
        "rate_limit_events", "schema_migrations",
    }  # fmt: skip
    assert expected <= tables
    assert await pool.fetchval("SELECT extversion FROM pg_extension WHERE extname = 'vector'")


async def test_changed_migration_is_refused(database_url: str, tmp_path: Path) -> None:
    url = await empty_database(database_url, "citeproof_mig")
    source = default_migrations_dir()
    for path in source.glob("*.sql"):
        (tmp_path / path.name).write_text(path.read_text())
    # Every migration in the folder, in version order (the list grows as migrations land).
    versions = sorted(int(p.name.split("_", 1)[0]) for p in source.glob("*.sql"))
    assert versions[:3] == [1, 2, 3]
    assert await apply_migrations(url, tmp_path) == versions
    first = sorted(tmp_path.glob("0001_*.sql"))[0]
    first.write_text(first.read_text() + "\n-- edited\n")
    with pytest.raises(MigrationError, match="changed after it was applied"):
        await apply_migrations(url, tmp_path)


async def test_eight_processes_booting_at_once_apply_each_migration_once(
    database_url: str,
) -> None:
    url = await empty_database(database_url, "citeproof_mig")
    script = (
        "import asyncio, sys\n"
        "from citeproof.db.migrate import apply_migrations\n"
        "print('APPLIED=' + ','.join(map(str, asyncio.run(apply_migrations(sys.argv[1])))))\n"
    )
    procs = [
        await asyncio.create_subprocess_exec(
            sys.executable, "-c", script, url,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )
        for _ in range(8)
    ]  # fmt: skip
    results = [await p.communicate() for p in procs]
    assert all(p.returncode == 0 for p in procs), [err.decode() for _, err in results]
    applied = [
        line.removeprefix("APPLIED=")
        for out, _ in results
        for line in out.decode().splitlines()
        if line.startswith("APPLIED=")
    ]
    # Exactly one process applied the migrations; the seven others found nothing to do.
    assert len(applied) == 8
    assert sorted(applied)[:7] == [""] * 7
    assert sorted(applied)[7] == ",".join(
        str(m.version) for m in discover(default_migrations_dir())
    )
    conn = await asyncpg.connect(url)
    try:
        rows = await conn.fetch("SELECT version FROM schema_migrations")
    finally:
        await conn.close()
    assert len(rows) == len(list(default_migrations_dir().glob("*.sql")))


def test_migrate_cli_runs(database_url: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "citeproof.cli", "migrate"],
        env={"DATABASE_URL": database_url, "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr


async def test_terminal_parse_items_never_keep_bytes(pool, user_id) -> None:
    job = await pool.fetchval("INSERT INTO parse_jobs (user_id) VALUES ($1) RETURNING id", user_id)
    doc = await pool.fetchval(
        "INSERT INTO documents (user_id, sha256, kind, filename, size_bytes) "
        "VALUES ($1, $2, 'source', 'x.pdf', 3) RETURNING id",
        user_id,
        b"\x01" * 32,
    )
    item = await pool.fetchval(
        "INSERT INTO parse_items (job_id, user_id, document_id, filename, size_bytes, file_bytes)"
        " VALUES ($1, $2, $3, 'x.pdf', 3, 'abc') RETURNING id",
        job,
        user_id,
        doc,
    )
    assert await pool.fetchval("SELECT file_bytes FROM parse_items WHERE id = $1", item) == b"abc"
    # A path that forgets the hook (here: a bare cancel) still drops the bytes.
    await pool.execute("UPDATE parse_items SET state = 'cancelled' WHERE id = $1", item)
    assert await pool.fetchval("SELECT file_bytes FROM parse_items WHERE id = $1", item) is None
