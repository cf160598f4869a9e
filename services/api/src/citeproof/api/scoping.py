"""Ownership lookups shared by the domains: a row of another user is a 404, like a missing one."""

from __future__ import annotations

import uuid

import asyncpg

from citeproof.api.errors import not_found

Conn = asyncpg.Connection | asyncpg.Pool

SESSION_DOCUMENT_SQL = """
SELECT d.id, d.kind FROM session_sources s JOIN documents d ON d.id = s.document_id
WHERE s.session_id = $1 AND s.document_id = $2 AND d.user_id = $3
"""


async def get_session_row(
    conn: Conn, user_id: uuid.UUID, session_id: uuid.UUID, *, lock: bool = False
) -> asyncpg.Record:
    """The caller's session (optionally locked for the transaction), or a 404."""
    row = await conn.fetchrow(
        "SELECT id, name, created_at FROM sessions WHERE id = $1 AND user_id = $2"
        + (" FOR UPDATE" if lock else ""),
        session_id,
        user_id,
    )
    if row is None:
        raise not_found("session")
    return row


async def session_document(
    conn: Conn, user_id: uuid.UUID, session_id: uuid.UUID, document_id: uuid.UUID
) -> asyncpg.Record | None:
    """(id, kind) of a document of the caller that is linked to the session, else None."""
    return await conn.fetchrow(SESSION_DOCUMENT_SQL, session_id, document_id, user_id)
