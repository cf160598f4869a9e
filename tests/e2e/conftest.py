"""End-to-end fixtures: the four services as separate OS processes on the test database."""

from __future__ import annotations

import asyncio
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import asyncpg
import pytest

from citeproof.auth import create_token, create_user
from citeproof.db.migrate import apply_migrations
from citeproof.devstack import DevStack

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def database_url(database_url: str) -> Iterator[str]:
    """The end-to-end stack gets a database of its own: its live workers must never claim
    rows that integration tests insert and drive themselves in the session's database."""
    from tests.conftest import _with_database

    name = f"citeproof_e2e_{uuid.uuid4().hex[:8]}"

    async def create() -> None:
        conn = await asyncpg.connect(database_url)
        try:
            await conn.execute(f'CREATE DATABASE "{name}"')
        finally:
            await conn.close()
        await apply_migrations(_with_database(database_url, name))

    asyncio.run(create())
    yield _with_database(database_url, name)


@pytest.fixture(scope="session")
def e2e_stack(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[DevStack]:
    log_dir = tmp_path_factory.mktemp("stack-logs")
    stack = DevStack(
        database_url=database_url,
        log_dir=log_dir,
        env={"CITEPROOF_POLL_INTERVAL_S": "0.5", "CITEPROOF_DRAIN_GRACE_S": "10"},
    )
    stack.start()
    try:
        stack.wait_ready()
        yield stack
    finally:
        stack.stop()
        for path in sorted(log_dir.glob("*.log")):
            # Kept in the pytest output on failure: what each service said.
            sys.stderr.write(f"--- {path.name} (last 40 lines)\n")
            sys.stderr.writelines(path.read_text(errors="replace").splitlines(True)[-40:])


@pytest.fixture(scope="session")
def stack_url(e2e_stack: DevStack) -> str:
    return e2e_stack.api_url


def _new_user_token(database_url: str) -> str:
    async def make() -> str:
        conn = await asyncpg.connect(database_url)
        try:
            user = await create_user(conn, f"e2e-{uuid.uuid4().hex[:8]}")
            _, token = await create_token(conn, user, label="e2e")
            return token
        finally:
            await conn.close()

    return asyncio.run(make())


@pytest.fixture(scope="session")
def api_token(database_url: str) -> str:
    return _new_user_token(database_url)


@pytest.fixture
def new_api_token(database_url: str):
    """A factory: a fresh user with a token per call (tenant-isolation scenarios)."""
    return lambda: _new_user_token(database_url)
