"""`citeproof-api`: apply migrations, then serve the API with uvicorn."""

from __future__ import annotations

import asyncio
from pathlib import Path

import structlog
import uvicorn

from citeproof.api.app import create_app
from citeproof.api.settings import ApiSettings
from citeproof.db.migrate import apply_migrations
from citeproof.db.pool import resolve_database_url, resolve_listen_url
from citeproof.db.settings import DatabaseSettings
from citeproof.obs.logs import configure_logging
from citeproof.settings import load

log = structlog.get_logger("citeproof.api")


def main() -> None:
    configure_logging("api")
    settings = load(ApiSettings)
    db_settings = load(DatabaseSettings)
    resolve_database_url(db_settings)  # starts or attaches to the embedded server if unset
    # Migrations run under a session-level advisory lock (replicas booting together apply them
    # once); through PgBouncer in transaction mode it would not hold, hence the direct URL.
    directory = Path(db_settings.migrations_dir) if db_settings.migrations_dir else None
    asyncio.run(apply_migrations(resolve_listen_url(db_settings), directory))
    app = create_app(settings, db_settings=db_settings)
    log.info("api.starting", host=settings.host, port=settings.port)
    uvicorn.run(
        app,
        host=settings.host,
        port=settings.port,
        # Our own structlog configuration renders uvicorn's records; no access log (the
        # request metrics cover it, and access logs would carry ?token= query strings).
        log_config=None,
        access_log=False,
        proxy_headers=True,
        timeout_graceful_shutdown=10,
    )


if __name__ == "__main__":
    main()
