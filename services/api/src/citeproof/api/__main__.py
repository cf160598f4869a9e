"""`citeproof-api`: apply migrations, then serve the API with uvicorn."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from types import FrameType

import structlog
import uvicorn
from litestar import Litestar

from citeproof.api.app import create_app
from citeproof.api.settings import ApiSettings
from citeproof.db.boot import migrate_at_boot
from citeproof.db.settings import DatabaseSettings
from citeproof.obs.logs import configure_logging
from citeproof.settings import load

log = structlog.get_logger("citeproof.api")


def main() -> None:
    configure_logging("api")
    settings = load(ApiSettings)
    db_settings = load(DatabaseSettings)
    asyncio.run(migrate_at_boot(db_settings))
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
