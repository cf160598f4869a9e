"""Corrections of the generated OpenAPI document for responses Litestar cannot infer.

The report's 200 carries JSON, Markdown or HTML depending on `format`, and the progress stream
is `text/event-stream`; both handlers return Response objects, so the generator would document
them as JSON only. The schema is built lazily once; these edits run right after the app is
created, before anything is served.
"""

from __future__ import annotations

from litestar import Litestar
from litestar.openapi.spec import OpenAPIMediaType, Reference, Schema
from litestar.openapi.spec.enums import OpenAPIType

REPORT_PATH = "/v1/runs/{run_id}/report"
EVENTS_PATH = "/v1/runs/{run_id}/events"
REPORT_TEXT_FORMATS = ("text/markdown", "text/html")
EVENT_STREAM = "text/event-stream"
# progress and done carry the run status; error (the run vanished, or the token was revoked or
# expired while the stream was open) carries the error body.
STREAM_EVENTS = ("progress", "done", "error")


def _text() -> OpenAPIMediaType:
    return OpenAPIMediaType(schema=Schema(type=OpenAPIType.STRING))


def correct_media_types(app: Litestar) -> None:
    paths = app.openapi_schema.paths
    report = paths[REPORT_PATH].get.responses["200"]
    for media_type in REPORT_TEXT_FORMATS:
        report.content[media_type] = _text()
    events = paths[EVENTS_PATH].get.responses["200"]
    events.description = "`event: progress` (run status JSON) on change, `event: done` at the end"
    events.content = {EVENT_STREAM: OpenAPIMediaType(schema=_event_schema())}


def _event_schema() -> Schema:
    """One event (OpenAPI 3.1: the stream's `schema` describes each event)."""
    return Schema(
        type=OpenAPIType.OBJECT,
        required=["event", "data"],
        properties={
            "event": Schema(type=OpenAPIType.STRING, enum=list(STREAM_EVENTS)),
            "data": Schema(
                type=OpenAPIType.STRING,
                content_media_type="application/json",
                content_schema=Schema(
                    any_of=[
                        Reference(ref="#/components/schemas/RunStatus"),
                        Reference(ref="#/components/schemas/ErrorBody"),
                    ]
                ),
            ),
            "id": Schema(type=OpenAPIType.STRING),
            "retry": Schema(type=OpenAPIType.INTEGER),
        },
    )
