"""Test fixtures: a real PostgreSQL for every test session.

With no DATABASE_URL the session gets its own embedded PostgreSQL in a fresh temporary
data directory (so a postmaster left by an earlier killed run can never leak state into
this one). With DATABASE_URL set, a fresh database is created on that server and dropped
afterwards.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import asyncpg
import pytest

from citeproof.db.embedded import EmbeddedPostgres
from citeproof.db.migrate import apply_migrations
from citeproof.db.settings import DatabaseSettings

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"

os.environ.setdefault("DO_NOT_TRACK", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def _with_database(url: str, database: str) -> str:
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{database}"))


@pytest.fixture(scope="session")
def pg_server() -> Iterator[EmbeddedPostgres | None]:
    if os.environ.get("DATABASE_URL"):
        yield None
        return
    data_dir = Path(tempfile.mkdtemp(prefix="citeproof-test-pg-"))
    # Throw-away data: the fast, crash-unsafe settings are right here.
    server = EmbeddedPostgres(data_dir / "data", fast=True).start()
    try:
        yield server
    finally:
        server.destroy()
        shutil.rmtree(data_dir, ignore_errors=True)


@pytest.fixture(scope="session")
def database_url(pg_server: EmbeddedPostgres | None) -> Iterator[str]:
    admin_url = os.environ["DATABASE_URL"] if pg_server is None else pg_server.url()
    name = f"citeproof_test_{uuid.uuid4().hex[:10]}"

    async def create() -> None:
        conn = await asyncpg.connect(admin_url)
        try:
            await conn.execute(f'CREATE DATABASE "{name}"')
        finally:
            await conn.close()

    async def drop() -> None:
        conn = await asyncpg.connect(admin_url)
        try:
            await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await conn.close()

    asyncio.run(create())
    url = _with_database(admin_url, name)
    asyncio.run(apply_migrations(url))
    try:
        yield url
    finally:
        asyncio.run(drop())


@pytest.fixture(scope="session")
def db_settings(database_url: str) -> DatabaseSettings:
    return DatabaseSettings(url=database_url, pool_min=1, pool_max=8)


@pytest.fixture
async def pool(db_settings: DatabaseSettings) -> AsyncIterator[asyncpg.Pool]:
    from citeproof.db.pool import create_pool

    pool = await create_pool(db_settings)
    try:
        yield pool
    finally:
        await pool.close()


@pytest.fixture
async def user_id(pool: asyncpg.Pool) -> uuid.UUID:
    """A fresh user per test, so tests never see each other's rows."""
    return await pool.fetchval(
        "INSERT INTO users (name) VALUES ($1) RETURNING id", f"user-{uuid.uuid4().hex[:12]}"
    )


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"real data folder {SHARED_DATA} is absent")
    return SHARED_DATA


@pytest.fixture(scope="session")
def demo_pdfs(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The sample thesis and its sources rendered to PDF: {"thesis": path, "sources": [...]}."""
    out = tmp_path_factory.mktemp("demo-pdfs")
    result = subprocess.run(
        [sys.executable, str(REPO_ROOT / "samples" / "build.py"), str(out), "--json"],
        capture_output=True, text=True, check=True, timeout=120,
    )  # fmt: skip
    return json.loads(result.stdout)
