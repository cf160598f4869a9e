"""Session queries; every one is scoped by the caller's user id."""

from __future__ import annotations

import uuid

import asyncpg

from citeproof.api.documents.schemas import DocumentSummary
from citeproof.api.documents.services import list_session_documents
from citeproof.api.errors import ApiError, not_found
from citeproof.api.pagination import Cursor, cursor_args, cut_page
from citeproof.api.rows import to_struct, to_structs
from citeproof.api.scoping import get_session_row, session_document
from citeproof.api.sessions.schemas import (
    ReferenceOverrideIn,
    ReferenceOverrideOut,
    SessionDetail,
    SessionOut,
)

Conn = asyncpg.Connection | asyncpg.Pool


async def create_session(conn: Conn, user_id: uuid.UUID, name: str) -> SessionOut:
    row = await conn.fetchrow(
        "INSERT INTO sessions (user_id, name) VALUES ($1, $2) RETURNING id, name, created_at",
        user_id,
        name,
    )
    return to_struct(SessionOut, row)


# One page of the caller's sessions, newest first, after the cursor's (created_at, id) if any.
LIST_SESSIONS_SQL = """
SELECT id, name, created_at FROM sessions
WHERE user_id = $1 AND ($2::timestamptz IS NULL OR (created_at, id) < ($2, $3::uuid))
ORDER BY created_at DESC, id DESC
LIMIT $4
"""


async def list_sessions(
    conn: Conn, user_id: uuid.UUID, limit: int, cursor: Cursor | None = None
) -> tuple[list[SessionOut], str | None]:
    rows = await conn.fetch(LIST_SESSIONS_SQL, user_id, *cursor_args(cursor), limit + 1)
    page, next_cursor = cut_page(rows, limit)
    return to_structs(SessionOut, page), next_cursor


async def get_session(conn: Conn, user_id: uuid.UUID, session_id: uuid.UUID) -> SessionDetail:
    row = await get_session_row(conn, user_id, session_id)
    documents: list[DocumentSummary] = await list_session_documents(conn, user_id, session_id)
    return SessionDetail(
        id=row["id"], name=row["name"], created_at=row["created_at"], documents=documents
    )


async def delete_session(conn: Conn, user_id: uuid.UUID, session_id: uuid.UUID) -> None:
    # Runs, links and overrides cascade; documents stay (they belong to the user, not the
    # session, and may be linked to other sessions).
    deleted = await conn.fetchval(
        "DELETE FROM sessions WHERE id = $1 AND user_id = $2 RETURNING id", session_id, user_id
    )
    if deleted is None:
        raise not_found("session")


async def put_reference_override(
    conn: asyncpg.Connection, user_id: uuid.UUID, session_id: uuid.UUID, body: ReferenceOverrideIn
) -> ReferenceOverrideOut:
    await get_session_row(conn, user_id, session_id)
    thesis = await session_document(conn, user_id, session_id, body.thesis_document_id)
    if thesis is None:
        raise not_found("document")
    if thesis["kind"] != "thesis":
        raise ApiError(422, "not_a_thesis", "thesis_document_id must be a thesis document.")
    if body.document_id is not None and (
        await session_document(conn, user_id, session_id, body.document_id) is None
    ):
        raise not_found("document")
    await conn.execute(
        """INSERT INTO reference_overrides (session_id, thesis_document_id, label, document_id)
           VALUES ($1, $2, $3, $4)
           ON CONFLICT (session_id, thesis_document_id, label)
           DO UPDATE SET document_id = EXCLUDED.document_id, created_at = now()""",
        session_id,
        body.thesis_document_id,
        body.label,
        body.document_id,
    )
    return ReferenceOverrideOut(
        session_id=session_id,
        thesis_document_id=body.thesis_document_id,
        label=body.label,
        document_id=body.document_id,
    )


async def reset_sources(conn: asyncpg.Connection, user_id: uuid.UUID, session_id: uuid.UUID) -> int:
    """Unlink every source document from the session — the ONLY code path that deletes
    session_sources rows (uploads only ever add links). The thesis stays linked."""
    async with conn.transaction():
        await get_session_row(conn, user_id, session_id, lock=True)
        status = await conn.execute(
            "DELETE FROM session_sources WHERE session_id = $1 AND kind = 'source'", session_id
        )
    return int(status.split()[-1])
