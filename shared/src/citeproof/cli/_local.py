"""The whole stack on this machine for one `citeproof check`: PostgreSQL (embedded in the
person's data directory, or `--database-url`), migrations, the four services as child
processes, and a token for the person's local user. Everything it started stops on exit.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import asyncpg

from citeproof.auth import create_token, create_user, revoke_token
from citeproof.db.boot import migrate_at_boot
from citeproof.db.embedded import EmbeddedPostgres
from citeproof.db.settings import DatabaseSettings
from citeproof.devstack import DevStack
from citeproof.settings import load

# XDG base directory spec: $XDG_DATA_HOME, else ~/.local/share.
XDG_DATA_HOME_ENV = "XDG_DATA_HOME"
DATA_DIR_NAME = "citeproof"
PG_DIR = "pg"
LOG_DIR = "logs"
# Every local check runs as this one user, so a second check finds the sources the first one
# parsed (uploads are deduplicated per user by sha256).
LOCAL_USER = "local"
TOKEN_LABEL = "citeproof check"

# A person waiting at a terminal after Ctrl-C: in-flight tasks get this long to finish, then
# are handed back to their queue (the next check picks them up), instead of the deployment
# default meant for rolling updates. Overridden by CITEPROOF_DRAIN_GRACE_S when set.
DRAIN_GRACE_ENV = "CITEPROOF_DRAIN_GRACE_S"
LOCAL_DRAIN_GRACE_S = "5"

# The local user's id, if it exists.
SELECT_USER_ID = "SELECT id FROM users WHERE name = $1"


def default_data_dir() -> Path:
    base = os.environ.get(XDG_DATA_HOME_ENV) or str(Path.home() / ".local" / "share")
    return Path(base) / DATA_DIR_NAME


async def _local_token(url: str) -> tuple[uuid.UUID, str]:
    conn = await asyncpg.connect(url)
    try:
        user_id = await conn.fetchval(SELECT_USER_ID, LOCAL_USER)
        if user_id is None:
            try:
                user_id = await create_user(conn, LOCAL_USER)
            except asyncpg.UniqueViolationError:  # a concurrent check created it first
                user_id = await conn.fetchval(SELECT_USER_ID, LOCAL_USER)
        return await create_token(conn, user_id, label=TOKEN_LABEL)
    finally:
        await conn.close()


async def _revoke(url: str, token_id: uuid.UUID) -> None:
    conn = await asyncpg.connect(url)
    try:
        await revoke_token(conn, token_id)
    finally:
        await conn.close()


@dataclass
class LocalStack:
    data_dir: Path
    status: Callable[[str], None]
    # A server somebody else runs; None: the embedded one in data_dir/pg.
    database_url: str | None = None
    # The embedded server's crash-unsafe speed settings (tests and `make demo` only).
    fast: bool = False
    env: dict[str, str] = field(default_factory=dict)
    api_url: str = ""
    token: str = ""
    _server: EmbeddedPostgres | None = None
    _owns_server: bool = False
    _stack: DevStack | None = None
    _url: str = ""
    _token_id: uuid.UUID | None = None

    @property
    def log_dir(self) -> Path:
        return self.data_dir / LOG_DIR

    def start(self) -> LocalStack:
        started = time.monotonic()
        self.data_dir.mkdir(parents=True, exist_ok=True)
        if self.database_url:
            self._url = self.database_url
        else:
            self._server = EmbeddedPostgres(self.data_dir / PG_DIR, fast=self.fast)
            # A server already running on this data directory belongs to another check (or a
            # `citeproof dev`): use it, and leave stopping it to whoever started it.
            self._owns_server = not self._server.is_running()
            self.status(f"starting PostgreSQL in {self._server.data_dir}")
            self._server.start()
            self._url = self._server.url()
        # This stack's own server, with the migrations folder every process honours.
        folder = load(DatabaseSettings).migrations_dir
        asyncio.run(migrate_at_boot(DatabaseSettings(url=self._url, migrations_dir=folder)))
        self._token_id, self.token = asyncio.run(_local_token(self._url))
        self.status("starting the API, parser, retriever and judge")
        env = dict(self.env)
        if not os.environ.get(DRAIN_GRACE_ENV):
            env.setdefault(DRAIN_GRACE_ENV, LOCAL_DRAIN_GRACE_S)
        self._stack = DevStack(database_url=self._url, log_dir=self.log_dir, env=env)
        self._stack.start()
        self._stack.wait_ready()
        self.api_url = self._stack.api_url
        self.status(f"ready in {time.monotonic() - started:.0f} s (logs: {self.log_dir})")
        return self

    def stop(self) -> None:
        """Drain the workers, stop the API, revoke the token, stop the server we started."""
        if self._stack is not None:
            self.status("stopping the services")
            self._stack.stop()
            self._stack = None
        if self._token_id is not None:
            # A token is made per check; one left behind would only be a live secret nobody has.
            with contextlib.suppress(OSError, asyncpg.PostgresError):
                asyncio.run(_revoke(self._url, self._token_id))
            self._token_id = None
        if self._server is not None and self._owns_server:
            self._server.stop()
        self._server = None

    def __enter__(self) -> LocalStack:
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc: object) -> None:
        self.stop()
