"""Operational endpoints (health, readiness, metrics), the caller's identity and the web UI."""

from __future__ import annotations

from pathlib import Path

import structlog
from litestar import Controller, MediaType, Response, get
from litestar.openapi import ResponseSpec
from litestar.response import File

from citeproof.api.deps import CallerDep, DbSettings, Metrics, Pool, StaleAfter
from citeproof.api.reports.labels import LabelInfo, label_catalogue
from citeproof.api.reports.rules import RuleCatalogue, rule_catalogue
from citeproof.api.system.schemas import Health, Me, Readiness
from citeproof.api.workers import live_stages, parser_sandbox_modes, unavailable_stages
from citeproof.db.migrate import pending_migrations
from citeproof.pipeline import STAGES

log = structlog.get_logger("citeproof.api")

STATIC_DIR = Path(__file__).resolve().parents[1] / "static"
# Litestar appends the charset itself.
PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4"


class MeController(Controller):
    path = "/v1/me"
    tags = ["auth"]

    @get("/", summary="The user the token belongs to")
    async def me(self, caller: CallerDep) -> Me:
        return Me(
            user_id=caller.user_id, name=caller.name, token_expires_at=caller.token_expires_at
        )


class SystemController(Controller):
    tags = ["operations"]
    include_in_schema = True

    @get("/healthz", summary="Liveness: the process answers")
    async def healthz(self) -> Health:
        return Health(status="ok")

    @get(
        "/readyz",
        summary="Readiness: database reachable and migrated; live workers per stage",
        responses={503: ResponseSpec(Readiness, description="Not ready (see the body).")},
    )
    async def readyz(
        self, pool: Pool, worker_stale_s: StaleAfter, db_settings: DbSettings
    ) -> Response[Readiness]:
        directory = Path(db_settings.migrations_dir) if db_settings.migrations_dir else None
        try:
            async with pool.acquire(timeout=5) as conn:
                pending = await pending_migrations(conn, directory)
                live = await live_stages(conn, worker_stale_s)
                outages = await unavailable_stages(conn, worker_stale_s)
                sandbox = await parser_sandbox_modes(conn, worker_stale_s)
        except Exception as exc:  # any failure here means "do not route traffic to me"
            log.warning("readyz.database_unavailable", error=type(exc).__name__)
            body = Readiness(
                status="not_ready",
                database=False,
                pending_migrations=[],
                workers=dict.fromkeys(STAGES, False),
            )
            return Response(body, status_code=503)
        ready = not pending
        body = Readiness(
            status="ready" if ready else "not_ready",
            database=True,
            pending_migrations=pending,
            workers={stage: stage in live for stage in STAGES},
            unavailable=outages,
            parser_sandbox=sandbox,
        )
        return Response(body, status_code=200 if ready else 503)

    @get(
        "/labels",
        summary="Verdict labels, worst first, with their names, descriptions and colours",
        description="Public: the web UI reads it before sign-in; it holds no user data.",
    )
    async def labels(self) -> list[LabelInfo]:
        return label_catalogue()

    @get(
        "/rules",
        summary="Finding rules (code order), severities and risk bands with names, help, colours",
        description="Public: the web UI reads it before sign-in; it holds no user data.",
    )
    async def rules(self) -> RuleCatalogue:
        return rule_catalogue()

    @get("/metrics", summary="Prometheus metrics", media_type=PROMETHEUS_CONTENT_TYPE)
    async def metrics(
        self, pool: Pool, api_metrics: Metrics, worker_stale_s: StaleAfter
    ) -> Response[bytes]:
        try:
            await api_metrics.queues.refresh(pool, worker_stale_s)
        except Exception as exc:  # request metrics are still worth serving
            log.warning("metrics.queue_refresh_failed", error=type(exc).__name__)
        return Response(api_metrics.render(), media_type=PROMETHEUS_CONTENT_TYPE)

    @get("/", include_in_schema=False, media_type=MediaType.HTML)
    async def index(self) -> File:
        return File(STATIC_DIR / "index.html", content_disposition_type="inline")
