"""The one error shape, RFC 9457 problem details (`application/problem+json`):
`{"type": "about:blank", "title": "Not Found", "status": 404, "detail": "human sentence",
"code": "stable_code"}` — `code` is our extension member and what clients branch on.

Every refusal the API makes — our own, Litestar's validation and routing errors, body-size
limits and unexpected exceptions — goes through `error_response`, so clients (the web UI,
the CLI, scripts) branch on `code` and show `detail` without special cases.
"""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

import msgspec
import structlog
from litestar import Litestar, Request, Response
from litestar.exceptions import HTTPException, SerializationException, ValidationException
from litestar.openapi import ResponseSpec

log = structlog.get_logger("citeproof.api")


PROBLEM_JSON = "application/problem+json"
# RFC 9457: "about:blank" means the HTTP status says it all; `code` carries the specifics.
PROBLEM_TYPE = "about:blank"


class ErrorBody(msgspec.Struct, frozen=True, kw_only=True):
    type: str = PROBLEM_TYPE
    title: str
    status: int
    detail: str
    code: str


def problem(status: int, code: str, detail: str) -> ErrorBody:
    try:
        title = HTTPStatus(status).phrase
    except ValueError:
        title = "Error"
    return ErrorBody(title=title, status=status, detail=detail, code=code)


class ApiError(HTTPException):
    """A refusal with a stable machine-readable code."""

    def __init__(
        self,
        status_code: int,
        code: str,
        detail: str,
        *,
        retry_after: int | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        headers = dict(headers or {})
        if retry_after:
            headers["Retry-After"] = str(max(1, int(retry_after)))
        super().__init__(detail=detail, status_code=status_code, headers=headers or None)
        self.code = code


def not_found(what: str) -> ApiError:
    # Same answer for "does not exist" and "belongs to someone else": ids are not probes.
    return ApiError(404, f"{what}_not_found", f"No {what.replace('_', ' ')} with that id.")


# Codes for errors raised by Litestar itself, by status.
_DEFAULT_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "body_too_large",
    415: "unsupported_media_type",
    422: "validation_error",
    429: "rate_limited",
    500: "internal_error",
    503: "unavailable",
}
_DEFAULT_DETAILS = {
    404: "No such resource.",
    405: "This method is not allowed on this resource.",
    413: "The request body is too large.",
}


def error_response(
    status: int, code: str, detail: str, headers: dict[str, str] | None = None
) -> Response[Any]:
    return Response(
        content=problem(status, code, detail),
        status_code=status,
        media_type=PROBLEM_JSON,
        headers=headers,
    )


def _validation_detail(exc: ValidationException) -> str:
    extra = exc.extra if isinstance(exc.extra, list) else []
    parts = []
    for item in extra[:5]:
        if isinstance(item, dict):
            key = item.get("key")
            message = item.get("message", "")
            parts.append(f"{key}: {message}" if key else str(message))
    base = exc.detail or "The request is not valid."
    return f"{base} ({'; '.join(parts)})" if parts else base


def handle_http_exception(request: Request[Any, Any, Any], exc: HTTPException) -> Response[Any]:
    status = exc.status_code
    headers = dict(exc.headers or {})
    if isinstance(exc, ApiError):
        return error_response(status, exc.code, exc.detail, headers)
    code = _DEFAULT_CODES.get(status, "error")
    if isinstance(exc, ValidationException):
        # Litestar reports body/parameter validation problems as 400.
        code = "validation_error"
        detail = _validation_detail(exc)
    else:
        detail = _DEFAULT_DETAILS.get(status) or exc.detail or "The request failed."
        lowered = (exc.detail or "").lower()
        if status == 400 and "multipart" in lowered:
            code = "malformed_multipart"
        elif status == 400 and (
            isinstance(exc.__cause__, SerializationException)
            or "json" in lowered
            or "decode" in lowered
        ):
            code = "malformed_json"
    if status >= 500:
        # The route template, never the raw path: paths carry ids and, pasted by mistake,
        # tokens; logs outlive requests.
        route = request.scope.get("path_template") or "unmatched"
        log.error("http.error", status=status, route=route, error=exc.detail)
        detail = "Something went wrong on our side; the error has been logged."
    return error_response(status, code, detail, headers)


def handle_unexpected(request: Request[Any, Any, Any], exc: Exception) -> Response[Any]:
    if isinstance(exc, RecursionError) and request.method in ("POST", "PUT", "PATCH"):
        # msgspec gives up on absurdly nested JSON with a RecursionError, not a DecodeError.
        return error_response(400, "malformed_json", "The JSON body is nested too deeply.")
    log.exception(
        "http.unexpected_error",
        method=request.method,
        route=request.scope.get("path_template") or "",
        error_type=type(exc).__name__,
    )
    return error_response(
        500, "internal_error", "Something went wrong on our side; the error has been logged."
    )


EXCEPTION_HANDLERS = {HTTPException: handle_http_exception, Exception: handle_unexpected}

# Statuses every /v1 operation may answer with the error shape (documented in /schema).
API_ERROR_STATUSES = (400, 401, 404, 409, 413, 415, 422, 429, 500)
PUBLIC_ERROR_STATUSES = (404, 405, 500)
# A handler's `opt` may name statuses only it answers with (uploads: 408, 503).
OPT_EXTRA_ERROR_STATUSES = "extra_error_statuses"


def document_error_responses(app: Litestar) -> None:
    """Describe the one error shape on every operation of the OpenAPI document.

    Litestar would otherwise document its own default error body for 400s, which is not what
    the API sends. Runs before the schema is first generated (it is built lazily).
    """
    for route in app.routes:
        for handler in getattr(route, "route_handlers", ()):
            statuses = API_ERROR_STATUSES if route.path.startswith("/v1") else PUBLIC_ERROR_STATUSES
            statuses = (*statuses, *handler.opt.get(OPT_EXTRA_ERROR_STATUSES, ()))
            errors = {
                status: ResponseSpec(
                    data_container=ErrorBody,
                    description=f"Error ({status}); `code` says which.",
                    generate_examples=False,
                    media_type=PROBLEM_JSON,
                )
                for status in statuses
            }
            handler.responses = {**errors, **(handler.responses or {})}
