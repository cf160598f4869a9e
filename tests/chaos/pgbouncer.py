"""A real PgBouncer (Debian's package) in transaction pooling mode in front of the embedded
PostgreSQL, which listens on a Unix socket only: PgBouncer reaches it there and serves TCP on
127.0.0.1. PgBouncer refuses to run as root, so it runs as the embedded server's own user."""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import time
from pathlib import Path

PGBOUNCER = Path("/usr/sbin/pgbouncer")
READY_TIMEOUT_S = 15.0

CONFIG = """\
[databases]
* = host={socket_dir} port=5432 user=postgres

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = {port}
unix_socket_dir =
auth_type = any
pool_mode = transaction
max_client_conn = 1000
default_pool_size = 40
; the pools send statement_timeout as a startup parameter (citeproof.db.pool)
ignore_startup_parameters = statement_timeout,extra_float_digits
server_reset_query =
logfile = {work_dir}/pgbouncer.log
pidfile = {work_dir}/pgbouncer.pid
"""


def installed() -> bool:
    return PGBOUNCER.is_file() and os.access(PGBOUNCER, os.X_OK)


class PgBouncer:
    def __init__(self, socket_dir: Path, work_dir: Path, port: int, user: str | None) -> None:
        self.port = port
        self.work_dir = work_dir
        self._user = user
        self._proc: subprocess.Popen[bytes] | None = None
        work_dir.mkdir(parents=True, exist_ok=True)
        self.config = work_dir / "pgbouncer.ini"
        self.config.write_text(CONFIG.format(socket_dir=socket_dir, port=port, work_dir=work_dir))
        if user is not None:
            entry = pwd.getpwnam(user)
            for path in (work_dir, self.config):
                os.chown(path, entry.pw_uid, entry.pw_gid)

    def url(self, database: str) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def start(self) -> None:
        self._proc = subprocess.Popen(
            [str(PGBOUNCER), str(self.config)],
            user=self._user,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + READY_TIMEOUT_S
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                raise RuntimeError(f"pgbouncer exited: {self.log_tail()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"pgbouncer did not listen on {self.port}: {self.log_tail()}")

    def stop(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait(10)
        self._proc = None

    def log_tail(self, lines: int = 20) -> str:
        log = self.work_dir / "pgbouncer.log"
        if not log.exists():
            return "(no log)"
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])

    def destroy(self) -> None:
        self.stop()
        shutil.rmtree(self.work_dir, ignore_errors=True)
