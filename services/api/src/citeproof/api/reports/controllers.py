"""Run reports as JSON, Markdown or a standalone HTML page."""

from __future__ import annotations

from typing import Literal

from litestar import Controller, Litestar, Response, get
from litestar.openapi.spec import OpenAPIMediaType, Schema
from litestar.openapi.spec.enums import OpenAPIType
from litestar.params import FromQuery

from citeproof.api.deps import CallerDep, PathId, Pool, StaleAfter
from citeproof.api.reports.html import render_html
from citeproof.api.reports.markdown import render_markdown
from citeproof.api.reports.schemas import Report
from citeproof.api.reports.services import build_report

ReportFormat = Literal["json", "markdown", "html"]
REPORT_PATH = "/v1/runs/{run_id}/report"
TEXT_FORMATS = ("text/markdown", "text/html")


def document_report_formats(app: Litestar) -> None:
    """The report's 200 carries JSON, Markdown or HTML by `format`; say so in /schema."""
    operation = app.openapi_schema.paths[REPORT_PATH].get
    content = operation.responses["200"].content
    for media_type in TEXT_FORMATS:
        content[media_type] = OpenAPIMediaType(schema=Schema(type=OpenAPIType.STRING))


class ReportController(Controller):
    path = "/v1"
    tags = ["reports"]

    @get(
        "/runs/{run_id:uuid}/report",
        summary="The run's report (format=json|markdown|html)",
        description="JSON is described below; markdown is text/markdown, html a standalone page.",
    )
    async def report(
        self,
        run_id: PathId,
        caller: CallerDep,
        pool: Pool,
        worker_stale_s: StaleAfter,
        format: FromQuery[ReportFormat] = "json",
    ) -> Report:
        report = await build_report(pool, caller.user_id, run_id, worker_stale_s)
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
