"""The embedded PostgreSQL as the CLI uses it: durable by default, stopped by the commands that
start it."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import asyncpg
import pytest

from citeproof.db.embedded import EmbeddedPostgres


@pytest.fixture
def pg_root() -> Iterator[Path]:
    """Not pytest's tmp_path: as root the server runs as another user, which must traverse the
    path, and pytest makes its own tmp root private (0700) again whenever a session starts."""
    root = Path(tempfile.mkdtemp(prefix="citeproof-cli-pg-"))
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


async def _show(url: str, *names: str) -> dict[str, str]:
    conn = await asyncpg.connect(url)
    try:
        return {name: await conn.fetchval(f"SHOW {name}") for name in names}
    finally:
        await conn.close()


def test_the_embedded_server_is_durable_unless_asked_to_be_fast(pg_root: Path) -> None:
    names = ("fsync", "synchronous_commit", "full_page_writes")
    durable = EmbeddedPostgres(pg_root / "durable").start()
    try:
        assert asyncio.run(_show(durable.url(), *names)) == dict.fromkeys(names, "on")
    finally:
        durable.destroy()
    fast = EmbeddedPostgres(pg_root / "fast", fast=True).start()
    try:
        assert asyncio.run(_show(fast.url(), *names)) == dict.fromkeys(names, "off")
    finally:
        fast.destroy()


def _cli(*args: str, data_dir: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "LISTEN_DATABASE_URL")}
    env["CITEPROOF_EMBEDDED_PG_DIR"] = str(data_dir)
    return subprocess.run(
        [sys.executable, "-m", "citeproof.cli", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


def test_users_and_tokens_create_stop_the_server_they_started(pg_root: Path) -> None:
    data_dir = pg_root / "pg"
    server = EmbeddedPostgres(data_dir)
    try:
        created = _cli("users", "create", "alice", data_dir=data_dir)
        assert created.returncode == 0, created.stderr
        assert not server.is_running(), "`users create` left its postmaster running"

        token = _cli("tokens", "create", "--user", "alice", data_dir=data_dir)
        assert token.returncode == 0, token.stderr
        assert token.stdout.strip().startswith("cpt_")
        assert not server.is_running(), "`tokens create` left its postmaster running"

        # A server somebody else started (here: this test) is left running.
        server.start()
        listed = _cli("users", "list", data_dir=data_dir)
        assert listed.returncode == 0 and "alice" in listed.stdout
        assert server.is_running()
    finally:
        server.destroy()
