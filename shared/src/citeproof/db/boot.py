"""The database step of every process's boot (API, workers, `citeproof dev`, the CLI): make
sure there is a server, then apply pending migrations from the configured folder.

One function, so that a setting such as `CITEPROOF_MIGRATIONS_DIR` means the same thing to every
process that starts.
"""

from __future__ import annotations

from pathlib import Path

from citeproof.db.migrate import apply_migrations
from citeproof.db.pool import resolve_database_url, resolve_listen_url
from citeproof.db.settings import DatabaseSettings


async def migrate_at_boot(settings: DatabaseSettings) -> list[int]:
    """Apply pending migrations; the numbers applied by this call.

    Starts (or attaches to) the embedded server when no URL is set. Migrations run under a
    session-level advisory lock, so replicas booting together apply each once; through PgBouncer
    in transaction mode that lock would not hold, hence the direct (listen) URL.
    """
    resolve_database_url(settings)
    directory = Path(settings.migrations_dir) if settings.migrations_dir else None
    return await apply_migrations(resolve_listen_url(settings), directory)
