"""Run reports as JSON, Markdown or a standalone HTML page."""

from __future__ import annotations

from typing import Literal

from litestar import Controller, Response, get
from litestar.params import FromQuery

from citeproof.api.deps import CallerDep, PathId, Pool, StaleAfter
from citeproof.api.reports.findings import parse_rule_settings
from citeproof.api.reports.html import render_html
from citeproof.api.reports.markdown import render_markdown
from citeproof.api.reports.schemas import Report
from citeproof.api.reports.services import build_report

ReportFormat = Literal["json", "markdown", "html"]


class ReportController(Controller):
    path = "/v1"
    tags = ["reports"]

    @get(
        "/runs/{run_id:uuid}/report",
        summary="The run's report (format=json|markdown|html)",
        description=(
            "JSON is described below; markdown is text/markdown, html a standalone page. "
            "`disable` leaves rules out and `level` re-levels them (codes or slugs, "
            "comma-separated or repeated: `?disable=CP103,quote-verified&level=CP202:error`); "
            "an unknown rule or severity is 400 `unknown_rule` / `invalid_rule_level`, one rule "
            "both disabled and re-levelled 400 `conflicting_rule_settings`."
        ),
    )
    async def report(
        self,
        run_id: PathId,
        caller: CallerDep,
        pool: Pool,
        worker_stale_s: StaleAfter,
        format: FromQuery[ReportFormat] = "json",
        disable: FromQuery[list[str] | None] = None,
        level: FromQuery[list[str] | None] = None,
    ) -> Report:
        # Refused before any database work: a bad setting is the caller's to fix.
        settings = parse_rule_settings(disable, level)
        report = await build_report(pool, caller.user_id, run_id, worker_stale_s, settings)
        if format == "json":
            return report
        stem = f"citeproof-report-{run_id}"
        if format == "markdown":
            return Response(  # type: ignore[return-value]
                render_markdown(report),
                media_type="text/markdown; charset=utf-8",
                headers={"Content-Disposition": f'inline; filename="{stem}.md"'},
            )
        return Response(  # type: ignore[return-value]
            render_html(report),
            media_type="text/html; charset=utf-8",
            headers={"Content-Disposition": f'inline; filename="{stem}.html"'},
        )
