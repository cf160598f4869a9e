"""Cursor pagination of list endpoints: `?limit=N&cursor=C` in, `next_cursor` out.

Keyset, newest first, on (created_at, id): a page is stable while rows are added (a new row
sorts before every cursor handed out, so nothing shifts into a later page twice) and costs one
index range scan however deep the client pages. The cursor is opaque to clients: the last row's
key, base64url-encoded.
"""

from __future__ import annotations

import base64
import binascii
import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Annotated

import asyncpg
import msgspec
from litestar.params import Parameter

from citeproof.api.errors import ApiError

DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 200

PageSize = Annotated[
    int, Parameter(ge=1, le=MAX_PAGE_SIZE, description="Items per page (newest first).")
]
PageCursor = Annotated[
    str | None,
    Parameter(description="`next_cursor` of the previous page; omit for the first page."),
]


class Cursor(msgspec.Struct, frozen=True, array_like=True):
    created_at: datetime
    id: uuid.UUID


def encode_cursor(created_at: datetime, row_id: uuid.UUID) -> str:
    raw = msgspec.json.encode(Cursor(created_at, row_id))
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(token: str | None) -> Cursor | None:
    if not token:
        return None
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        return msgspec.json.decode(raw, type=Cursor)
    except (binascii.Error, ValueError, msgspec.DecodeError, msgspec.ValidationError):
        raise ApiError(
            400,
            "invalid_cursor",
            "The cursor is not one this API returned; start again without it.",
        ) from None


def cut_page(rows: Sequence[asyncpg.Record], limit: int) -> tuple[list[asyncpg.Record], str | None]:
    """Rows fetched with `LIMIT limit + 1` (ordered by created_at DESC, id DESC): the page,
    and the cursor of its last row when another page follows."""
    if len(rows) <= limit:
        return list(rows), None
    page = list(rows[:limit])
    return page, encode_cursor(page[-1]["created_at"], page[-1]["id"])


def cursor_args(cursor: Cursor | None) -> tuple[datetime | None, uuid.UUID | None]:
    """The two keyset parameters of a list query (both NULL on the first page)."""
    return (cursor.created_at, cursor.id) if cursor is not None else (None, None)
