"""Corrections of the generated OpenAPI document for responses Litestar cannot infer.

The report's 200 carries JSON, Markdown or HTML depending on `format`, and the progress stream
is `text/event-stream`; both handlers return Response objects, so the generator would document
them as JSON only. The schema is built lazily once; these edits run right after the app is
created, before anything is served.
"""

from __future__ import annotations

from litestar import Litestar
from litestar.openapi.spec import Link, OpenAPIMediaType, Reference, Schema
from litestar.openapi.spec.enums import OpenAPIType
from litestar.routes import HTTPRoute

from citeproof.api.security import OPT_PUBLIC, PRIVATE_PREFIX

REPORT_PATH = "/v1/runs/{run_id}/report"
EVENTS_PATH = "/v1/runs/{run_id}/events"
REPORT_TEXT_FORMATS = ("text/markdown", "text/html")
EVENT_STREAM = "text/event-stream"
# progress and done carry the run status; error (the run vanished, or the token was revoked or
# expired while the stream was open) carries the error body.
STREAM_EVENTS = ("progress", "done", "error")

UPLOAD_PATH = "/v1/sessions/{session_id}/documents"
START_RUN_PATH = "/v1/sessions/{session_id}/runs"
# What a client does with the ids a POST answers with (OpenAPI links): the run it started,
# the upload's job and documents, a run of the uploaded thesis. Stateful fuzzing follows them.
_RUN_ID = {"run_id": "$response.body#/run_id"}
RESPONSE_LINKS: dict[tuple[str, str], dict[str, Link]] = {
    (START_RUN_PATH, "202"): {
        "GetRun": Link(operation_id="V1RunsRunIdGetRun", parameters=_RUN_ID),
        "RunEvents": Link(operation_id="V1RunsRunIdEventsRunEvents", parameters=_RUN_ID),
        "RunReport": Link(operation_id="V1RunsRunIdReportReport", parameters=_RUN_ID),
        "CancelRun": Link(operation_id="V1RunsRunIdCancelCancelRun", parameters=_RUN_ID),
    },
    (UPLOAD_PATH, "202"): {
        "GetJob": Link(
            operation_id="V1JobsJobIdGetJob", parameters={"job_id": "$response.body#/job_id"}
        ),
        "DeleteDocument": Link(
            operation_id="V1DocumentsDocumentIdDeleteDocument",
            parameters={"document_id": "$response.body#/documents/0/id"},
        ),
        "StartRun": Link(
            operation_id="V1SessionsSessionIdRunsCreateRun",
            parameters={"session_id": "$request.path.session_id"},
            request_body={"thesis_document_id": "$response.body#/documents/0/id"},
        ),
    },
}


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


def declare_public_operations(app: Litestar) -> None:
    """The document requires the bearer token everywhere; the operations that do not (probes,
    metrics, labels, a /v1 handler marked public) say so with an empty `security`, so that a
    client, or a check that a route really refuses a missing token, knows which are which."""
    paths = app.openapi_schema.paths
    for route in app.routes:
        if not isinstance(route, HTTPRoute) or route.path_format not in paths:
            continue
        item = paths[route.path_format]
        for handler in route.route_handlers:
            public = not route.path.startswith(PRIVATE_PREFIX) or handler.opt.get(OPT_PUBLIC)
            for method in handler.http_methods:
                operation = getattr(item, method.lower(), None)
                if public and operation is not None:
                    operation.security = []


def add_response_links(app: Litestar) -> None:
    paths = app.openapi_schema.paths
    for (path, status), links in RESPONSE_LINKS.items():
        operation = paths[path].post
        operation.responses[status].links = {**(operation.responses[status].links or {}), **links}
