"""`citeproof-api`: apply migrations, then serve the API with uvicorn."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

import structlog
import uvicorn
from litestar import Litestar

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
    config = uvicorn.Config(
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
    _Server(config, app).run()


class _Server(uvicorn.Server):
    """Ends open progress streams as soon as shutdown begins, instead of letting them hold
    the graceful-shutdown window open; EventSource clients reconnect to another replica."""

    def __init__(self, config: uvicorn.Config, app: Litestar) -> None:
        super().__init__(config)
        self._app = app

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        with super().capture_signals():
            yield
            # uvicorn re-raises the captured SIGTERM after its graceful shutdown, which makes
            # the process exit -15; a completed drain is a clean exit, as for the workers.
            self._captured_signals.clear()

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        hub = getattr(self._app.state, "events_hub", None)
        if hub is not None:
            hub.close_streams()
        super().handle_exit(sig, frame)


if __name__ == "__main__":
    main()
