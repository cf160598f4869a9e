"""Plain-SQL migrations applied in order under a PostgreSQL advisory lock.

Every service runs this at boot, so many processes may start it at once: the lock is taken
with `pg_advisory_lock` on a dedicated connection (session-level, so it survives the
per-migration transactions) and released in `finally`. Whoever gets the lock second finds
the migrations already recorded and applies nothing.
"""

from __future__ import annotations

import hashlib
import importlib.util
import re
from dataclasses import dataclass
from pathlib import Path

import asyncpg
import structlog

log = structlog.get_logger("citeproof.migrate")

# An arbitrary constant; any 64-bit value unique to citeproof's migration runner.
MIGRATION_LOCK_KEY = 0x6369_7465_7072_6F6F  # "citeproo"
_FILENAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")

CREATE_LEDGER = """
CREATE TABLE IF NOT EXISTS schema_migrations (
    version     integer PRIMARY KEY,
    name        text NOT NULL,
    checksum    text NOT NULL,
    applied_at  timestamptz NOT NULL DEFAULT now()
)
"""
# A runtime role has no CREATE on the schema: it must not even try the ledger's DDL.
LEDGER_EXISTS = "SELECT to_regclass('schema_migrations') IS NOT NULL"
SELECT_APPLIED = "SELECT version, name, checksum FROM schema_migrations ORDER BY version"
RECORD_APPLIED = "INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)"


class MigrationError(RuntimeError):
    pass


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str

    @property
    def checksum(self) -> str:
        return hashlib.sha256(self.sql.encode()).hexdigest()


# The `citeproof` distribution ships migrations/*.sql as this package's data.
MIGRATIONS_PACKAGE = "citeproof.migrations"


def _installed_migrations_dir() -> Path | None:
    try:
        spec = importlib.util.find_spec(MIGRATIONS_PACKAGE)
    except ModuleNotFoundError:
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        candidate = Path(location)
        if any(candidate.glob("0001_*.sql")):
            return candidate
    return None


def default_migrations_dir() -> Path:
    """The installed `citeproof` distribution's package data (`pip install citeproof`), the
    repository's migrations/ (editable installs) or /app/migrations (images)."""
    installed = _installed_migrations_dir()
    if installed is not None:
        return installed
    here = Path(__file__).resolve()
    for parent in here.parents:
        candidate = parent / "migrations"
        if candidate.is_dir() and any(candidate.glob("0001_*.sql")):
            return candidate
    return Path("/app/migrations")


def discover(directory: Path) -> list[Migration]:
    if not directory.is_dir():
        raise MigrationError(f"migrations folder {directory} does not exist")
    migrations = []
    for path in sorted(directory.glob("*.sql")):
        match = _FILENAME.match(path.name)
        if not match:
            raise MigrationError(
                f"{path.name}: migration files must be named NNNN_name.sql (lower case)"
            )
        migrations.append(Migration(int(match[1]), match[2], path.read_text()))
    versions = [m.version for m in migrations]
    if len(set(versions)) != len(versions):
        raise MigrationError(f"duplicate migration versions in {directory}")
    return migrations


async def apply_migrations(
    url: str, directory: Path | None = None, *, grant_roles: bool = False
) -> list[int]:
    """Apply pending migrations; returns the versions this call applied.

    After applying any (or always, with `grant_roles`: `citeproof migrate`), the runtime
    roles that exist get their grants again, so a new table is reachable by the services that
    need it (`citeproof.db.roles`). A runtime role with nothing pending applies nothing and
    runs no DDL; with something pending it fails, naming the migration role's job.
    """
    from citeproof.db.roles import grant_runtime_roles

    migrations = discover(directory or default_migrations_dir())
    conn = await asyncpg.connect(url)
    try:
        await conn.execute("SELECT pg_advisory_lock($1)", MIGRATION_LOCK_KEY)
        try:
            try:
                done = await _apply_locked(conn, migrations)
                if done or grant_roles:
                    await grant_runtime_roles(conn)
            except asyncpg.InsufficientPrivilegeError as exc:
                raise MigrationError(
                    f"migrations are pending and this database role cannot apply them ({exc}); "
                    "run `citeproof migrate` as the migration role (the Kubernetes migration "
                    "Job) first, see docs/operations.md"
                ) from exc
            return done
        finally:
            await conn.execute("SELECT pg_advisory_unlock($1)", MIGRATION_LOCK_KEY)
    finally:
        await conn.close()


async def _apply_locked(conn: asyncpg.Connection, migrations: list[Migration]) -> list[int]:
    if not await conn.fetchval(LEDGER_EXISTS):
        await conn.execute(CREATE_LEDGER)
    applied = {row["version"]: row for row in await conn.fetch(SELECT_APPLIED)}
    done: list[int] = []
    for migration in migrations:
        recorded = applied.get(migration.version)
        if recorded is not None:
            if recorded["checksum"] != migration.checksum:
                raise MigrationError(
                    f"migration {migration.version:04d}_{migration.name}.sql was changed after "
                    "it was applied to this database (checksum mismatch). Applied migrations "
                    "must never be edited: restore the file and add a new migration instead."
                )
            continue
        async with conn.transaction():
            await conn.execute(migration.sql)
            await conn.execute(
                RECORD_APPLIED, migration.version, migration.name, migration.checksum
            )
        log.info("migration.applied", version=migration.version, name=migration.name)
        done.append(migration.version)
    return done


async def pending_migrations(conn: asyncpg.Connection, directory: Path | None = None) -> list[int]:
    """Versions on disk that the database has not applied (for /readyz)."""
    migrations = discover(directory or default_migrations_dir())
    exists = await conn.fetchval("SELECT to_regclass('schema_migrations') IS NOT NULL")
    if not exists:
        return [m.version for m in migrations]
    applied = {row["version"] for row in await conn.fetch(SELECT_APPLIED)}
    return [m.version for m in migrations if m.version not in applied]
