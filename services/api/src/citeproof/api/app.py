"""The Litestar application factory."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import asyncpg
from litestar import Litestar
from litestar.datastructures import State
from litestar.di import Provide
from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import JsonRenderPlugin
from litestar.openapi.spec import Components, SecurityScheme
from litestar.static_files import create_static_files_router

from citeproof.api.content_types import require_json_bodies
from citeproof.api.documents.controllers import DocumentController
from citeproof.api.documents.slots import UploadSlots
from citeproof.api.errors import EXCEPTION_HANDLERS, document_error_responses
from citeproof.api.events import EventHub
from citeproof.api.headers import content_security_policy, security_headers
from citeproof.api.metrics import ApiMetrics
from citeproof.api.openapi import add_response_links, correct_media_types, declare_public_operations
from citeproof.api.reports.controllers import ReportController
from citeproof.api.reports.html import INLINE_SCRIPTS, INLINE_STYLES
from citeproof.api.runs.controllers import RunController
from citeproof.api.security import authentication_guard, provide_caller, rate_limit_headers
from citeproof.api.sessions.controllers import SessionController
from citeproof.api.settings import ApiSettings
from citeproof.api.system.controllers import STATIC_DIR, MeController, SystemController
from citeproof.api.system.preferences import PreferencesController
from citeproof.db.pool import create_pool, resolve_listen_url
from citeproof.db.settings import DatabaseSettings
from citeproof.queue import QueueSettings
from citeproof.settings import load

API_VERSION = "1.0.0"


def _openapi() -> OpenAPIConfig:
    return OpenAPIConfig(
        title="citeproof API",
        version=API_VERSION,
        description=(
            "Citation verification. Authenticate with `Authorization: Bearer <token>` "
            "(`citeproof tokens create`). Every error is RFC 9457 problem details "
            "(`application/problem+json`) with a stable `code` member. Authenticated responses "
            "carry `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset`."
        ),
        path="/schema",
        components=Components(
            security_schemes={"BearerToken": SecurityScheme(type="http", scheme="bearer")}
        ),
        security=[{"BearerToken": []}],
        # The JSON document only (at /schema and /schema/openapi.json): Litestar's viewers
        # (Swagger, Elements, RapiDoc, ReDoc) load scripts from public CDNs onto the origin whose
        # localStorage holds the bearer token.
        render_plugins=[JsonRenderPlugin()],
    )


def create_app(
    settings: ApiSettings | None = None,
    pool: asyncpg.Pool | None = None,
    *,
    db_settings: DatabaseSettings | None = None,
    queue_settings: QueueSettings | None = None,
) -> Litestar:
    """The API. With `pool`, the app uses it and leaves closing it to the caller (tests);
    without, it opens its own pool on startup and closes it on shutdown."""
    settings = (settings or load(ApiSettings)).validate()
    db_settings = db_settings or load(DatabaseSettings)
    queue_settings = queue_settings or load(QueueSettings)
    metrics = ApiMetrics()
    hub = EventHub(resolve_listen_url(db_settings), settings)
    upload_slots = UploadSlots(settings)

    @asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        owned = pool is None
        app.state.events_hub = hub
        app.state.pool = pool if pool is not None else await create_pool(db_settings)
        hub.start()
        try:
            yield
        finally:
            await hub.stop()
            if owned:
                await app.state.pool.close()

    def provide_pool(state: State) -> asyncpg.Pool:
        return state.pool

    app = Litestar(
        route_handlers=[
            SystemController,
            MeController,
            PreferencesController,
            SessionController,
            DocumentController,
            RunController,
            ReportController,
            create_static_files_router(
                path="/static", directories=[STATIC_DIR], include_in_schema=False
            ),
        ],
        dependencies={
            "pool": Provide(provide_pool, sync_to_thread=False),
            "caller": Provide(provide_caller),
            "api_settings": Provide(lambda: settings, sync_to_thread=False, use_cache=True),
            "worker_stale_s": Provide(
                lambda: queue_settings.worker_stale_s, sync_to_thread=False, use_cache=True
            ),
            "db_settings": Provide(lambda: db_settings, sync_to_thread=False, use_cache=True),
            "api_metrics": Provide(lambda: metrics, sync_to_thread=False, use_cache=True),
            "events_hub": Provide(lambda: hub, sync_to_thread=False, use_cache=True),
            "upload_slots": Provide(lambda: upload_slots, sync_to_thread=False, use_cache=True),
        },
        # Authentication is the default on /v1: see authentication_guard.
        guards=[authentication_guard(settings)],
        exception_handlers=EXCEPTION_HANDLERS,
        before_request=require_json_bodies,
        before_send=[rate_limit_headers],
        lifespan=[lifespan],
        openapi_config=_openapi(),
        request_max_body_size=settings.max_json_body_bytes,
        # Logging is ours (structlog via configure_logging), not Litestar's default config.
        logging_config=None,
        debug=False,
    )
    document_error_responses(app)
    correct_media_types(app)
    declare_public_operations(app)
    add_response_links(app)
    # Outermost wrappers, so 404s, 405s and errors turned into responses are counted and carry
    # the security headers too.
    app.asgi_handler = metrics.middleware(app.asgi_handler)
    policy = content_security_policy(
        inline_scripts=INLINE_SCRIPTS, inline_styles=INLINE_STYLES, same_origin=True
    )
    app.asgi_handler = security_headers(app.asgi_handler, policy)
    return app
