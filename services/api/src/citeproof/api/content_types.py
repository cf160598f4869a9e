"""415 for request bodies in a media type the route does not take.

Litestar would try to decode any body of a JSON route as JSON whatever its Content-Type; a
client that sends a form or XML should hear "wrong media type", not a confusing parse error.
Upload routes declare `OPT_MULTIPART` and check their own media type (uploads.py).
"""

from __future__ import annotations

from typing import Any

from litestar import Request

from citeproof.api.errors import ApiError

OPT_MULTIPART = "multipart"
_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


def _is_json(media_type: str) -> bool:
    return media_type == "application/json" or media_type.endswith("+json")


async def require_json_bodies(request: Request[Any, Any, Any]) -> None:
    if request.method not in _BODY_METHODS or request.route_handler.opt.get(OPT_MULTIPART):
        return
    has_body = request.headers.get("content-length", "0") not in ("", "0") or (
        "transfer-encoding" in request.headers
    )
    media_type = request.content_type[0]
    if has_body and media_type and not _is_json(media_type):
        raise ApiError(
            415,
            "unsupported_media_type",
            f"This endpoint takes application/json, not {media_type}.",
        )
