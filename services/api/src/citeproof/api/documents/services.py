"""Document, upload and parse-job queries; every one is scoped by the caller's user id."""

from __future__ import annotations

import uuid

import asyncpg

from citeproof.api.documents.schemas import (
    DocumentSummary,
    JobItem,
    JobStatus,
    UploadAccepted,
    UploadedDocument,
)
from citeproof.api.documents.uploads import UploadedFile, UploadForm
from citeproof.api.errors import ApiError, not_found
from citeproof.api.pagination import Cursor, cursor_args, cut_page
from citeproof.api.rows import to_structs
from citeproof.api.scoping import get_session_row
from citeproof.api.settings import ApiSettings
from citeproof.pipeline import PARSE_CHANNEL

Conn = asyncpg.Connection | asyncpg.Pool

ACTIVE_RUN_STATUSES = (
    "waiting_for_documents", "planning", "retrieving", "judging", "verifying",
)  # fmt: skip

SESSION_DOCUMENTS_SQL = """
SELECT d.id, d.filename, s.kind, d.state, d.error_code, d.error_detail, d.title, d.pages
FROM session_sources s JOIN documents d ON d.id = s.document_id
WHERE s.session_id = $1 AND d.user_id = $2
ORDER BY s.kind DESC, s.created_at, d.filename
"""


# One page of a session's documents, newest link first, after the cursor's (linked_at, id) if any.
# `cut_page` reads the keyset from `created_at` and `id`: the link time is returned under that name.
SESSION_DOCUMENTS_PAGE_SQL = """
SELECT d.id, d.filename, s.kind, d.state, d.error_code, d.error_detail, d.title, d.pages,
       s.created_at
FROM session_sources s JOIN documents d ON d.id = s.document_id
WHERE s.session_id = $1 AND d.user_id = $2
  AND ($3::timestamptz IS NULL OR (s.created_at, d.id) < ($3, $4::uuid))
ORDER BY s.created_at DESC, d.id DESC
LIMIT $5
"""


async def page_session_documents(
    conn: Conn, user_id: uuid.UUID, session_id: uuid.UUID, limit: int, cursor: Cursor | None
) -> tuple[list[DocumentSummary], str | None]:
    rows = await conn.fetch(
        SESSION_DOCUMENTS_PAGE_SQL, session_id, user_id, *cursor_args(cursor), limit + 1
    )
    page, next_cursor = cut_page(rows, limit)
    return to_structs(DocumentSummary, page), next_cursor


async def list_session_documents(
    conn: Conn, user_id: uuid.UUID, session_id: uuid.UUID
) -> list[DocumentSummary]:
    return to_structs(DocumentSummary, await conn.fetch(SESSION_DOCUMENTS_SQL, session_id, user_id))


async def _active_jobs(conn: Conn, user_id: uuid.UUID) -> int:
    return await conn.fetchval(
        "SELECT count(*) FROM parse_jobs WHERE user_id = $1 AND state IN ('queued', 'running')",
        user_id,
    )


def _too_many_jobs(settings: ApiSettings) -> ApiError:
    return ApiError(
        429,
        "too_many_active_jobs",
        f"You already have {settings.max_active_parse_jobs} uploads being parsed; wait for one "
        f"to finish (retry in about {settings.active_jobs_retry_after_s} s).",
        retry_after=settings.active_jobs_retry_after_s,
    )


# Bytes of this user's files staged and not yet parsed (the trigger NULLs them when parsed).
STAGED_BYTES_SQL = """
SELECT COALESCE(sum(size_bytes), 0) FROM parse_items
WHERE user_id = $1 AND file_bytes IS NOT NULL
"""
# Multipart framing around the file bytes: boundaries and part headers (at most 16 KiB each).
# Content-Length may exceed the room left by this much before the request is refused unread;
# the exact file bytes are still counted while streaming.
MULTIPART_OVERHEAD_ALLOWANCE = 1024 * 1024
_MIB = 1024 * 1024


def _staged_limit(settings: ApiSettings, staged: int, upload_bytes: int) -> ApiError:
    return ApiError(
        413,
        "staged_bytes_limit",
        f"You have {staged / _MIB:.1f} MiB waiting to be parsed; with this upload "
        f"({upload_bytes / _MIB:.1f} MiB) that would exceed the "
        f"{settings.max_staged_bytes // _MIB} MiB limit. Wait for parsing to finish or "
        "upload fewer files.",
        retry_after=settings.active_jobs_retry_after_s,
    )


async def precheck_admission(
    pool: asyncpg.Pool,
    user_id: uuid.UUID,
    settings: ApiSettings,
    content_length: int | None = None,
) -> int:
    """Cheap early refusal before the body is read (`stage_upload` re-checks under a lock).

    Returns the staged bytes the user has room for, the cap for reading this body; a declared
    Content-Length beyond that room (plus multipart framing) is refused without reading it.
    """
    if await _active_jobs(pool, user_id) >= settings.max_active_parse_jobs:
        raise _too_many_jobs(settings)
    staged = await pool.fetchval(STAGED_BYTES_SQL, user_id)
    room = max(0, settings.max_staged_bytes - staged)
    if content_length is not None and content_length - MULTIPART_OVERHEAD_ALLOWANCE > room:
        raise _staged_limit(settings, staged, content_length - MULTIPART_OVERHEAD_ALLOWANCE)
    return room


async def _check_admission(
    conn: asyncpg.Connection, user_id: uuid.UUID, upload_bytes: int, settings: ApiSettings
) -> None:
    # Locking the user row serialises this user's uploads across API replicas, so two
    # concurrent uploads cannot both pass the caps (the check and the insert are one unit).
    await conn.execute("SELECT 1 FROM users WHERE id = $1 FOR UPDATE", user_id)
    if await _active_jobs(conn, user_id) >= settings.max_active_parse_jobs:
        raise _too_many_jobs(settings)
    staged = await conn.fetchval(STAGED_BYTES_SQL, user_id)
    if staged + upload_bytes > settings.max_staged_bytes:
        raise _staged_limit(settings, staged, upload_bytes)


# Documents linked to the session now.
SESSION_LINKS_SQL = "SELECT count(*) FROM session_sources WHERE session_id = $1"
# Of these files (by sha256), how many the session does not hold yet: the links this upload adds.
NEW_SESSION_LINKS_SQL = """
SELECT count(*) FROM unnest($3::bytea[]) AS u(sha256)
WHERE NOT EXISTS (SELECT 1 FROM session_sources s JOIN documents d ON d.id = s.document_id
                  WHERE s.session_id = $1 AND d.user_id = $2 AND d.sha256 = u.sha256)
"""


def too_many_documents(status: int, settings: ApiSettings, linked: int) -> ApiError:
    """413 for an upload that would overfill a session, 422 for a run of an overfull one."""
    return ApiError(
        status,
        "too_many_documents",
        f"This session would hold {linked} documents; a session (and so a run) may hold at "
        f"most {settings.max_documents_per_session}. Delete sources that are not cited, or "
        "split the work into several sessions.",
    )


async def _check_session_room(
    conn: asyncpg.Connection,
    user_id: uuid.UUID,
    session_id: uuid.UUID,
    form: UploadForm,
    settings: ApiSettings,
) -> None:
    """Under the session's row lock: the links this upload adds must fit the session's cap."""
    linked = await conn.fetchval(SESSION_LINKS_SQL, session_id)
    digests = list({upload.sha256 for upload in form.files})
    if linked + len(digests) <= settings.max_documents_per_session:
        return
    added = await conn.fetchval(NEW_SESSION_LINKS_SQL, session_id, user_id, digests)
    if linked + added > settings.max_documents_per_session:
        raise too_many_documents(413, settings, linked + added)


UPSERT_DOCUMENT_SQL = """
INSERT INTO documents (user_id, sha256, kind, filename, declared_type, size_bytes)
VALUES ($1, $2, $3, $4, $5, $6)
ON CONFLICT (user_id, sha256) DO UPDATE SET user_id = EXCLUDED.user_id
RETURNING id, kind, state, filename, (xmax = 0) AS inserted
"""

HAS_ACTIVE_ITEM_SQL = """
SELECT EXISTS (SELECT 1 FROM parse_items
               WHERE document_id = $1 AND state IN ('queued', 'running'))
"""

# One piece of an upload's bytes (at most SPOOL_READ_BYTES), written inside the staging
# transaction.
INSERT_UPLOAD_CHUNK_SQL = """
INSERT INTO staged_upload_chunks (upload_id, seq, data) VALUES ($1, $2, $3)
"""
# The parse item, its file_bytes assembled by PostgreSQL from the upload's chunks.
INSERT_ITEM_SQL = """
INSERT INTO parse_items (job_id, user_id, document_id, filename, declared_type, size_bytes,
                         file_bytes)
VALUES ($1, $2, $3, $4, $5, $6,
        (SELECT COALESCE(string_agg(data, ''::bytea ORDER BY seq), ''::bytea)
         FROM staged_upload_chunks WHERE upload_id = $7))
"""
# The chunks have served their purpose once the item holds the bytes.
DELETE_UPLOAD_CHUNKS_SQL = "DELETE FROM staged_upload_chunks WHERE upload_id = $1"


async def _stage_file(
    conn: asyncpg.Connection, user_id: uuid.UUID, kind: str, upload: UploadedFile
) -> tuple[UploadedDocument, bool]:
    """Create or reuse the document for these bytes; returns (document, needs a parse item)."""
    row = await conn.fetchrow(
        UPSERT_DOCUMENT_SQL,
        user_id,
        upload.sha256,
        kind,
        upload.filename,
        upload.content_type,
        upload.size,
    )
    document_id, state, needs_parse = row["id"], row["state"], bool(row["inserted"])
    if not needs_parse:
        upgraded = kind == "thesis" and row["kind"] != "thesis"
        if upgraded or state == "failed":
            # A source re-sent as a thesis needs thesis analysis; a failed document gets a
            # fresh attempt (a newer parser may read it).
            await conn.execute(
                "UPDATE documents SET kind = $2, state = 'pending', error_code = NULL, "
                "error_detail = NULL WHERE id = $1",
                document_id,
                "thesis" if upgraded else row["kind"],
            )
            state = "pending"
            needs_parse = not await conn.fetchval(HAS_ACTIVE_ITEM_SQL, document_id)
        elif state == "pending":
            # Already queued by an earlier upload; if that item died, queue it again.
            needs_parse = not await conn.fetchval(HAS_ACTIVE_ITEM_SQL, document_id)
    document = UploadedDocument(
        id=document_id,
        filename=upload.filename,
        kind=kind,
        state=state,
        duplicate=not bool(row["inserted"]),
    )
    return document, needs_parse


async def _insert_item(
    conn: asyncpg.Connection,
    job_id: uuid.UUID,
    user_id: uuid.UUID,
    document_id: uuid.UUID,
    form: UploadForm,
    upload: UploadedFile,
) -> None:
    """Queue the file's parse item, its bytes sent one bounded chunk per statement."""
    upload_id = uuid.uuid4()
    for seq, chunk in enumerate(form.chunks(upload)):
        await conn.execute(INSERT_UPLOAD_CHUNK_SQL, upload_id, seq, chunk)
    await conn.execute(
        INSERT_ITEM_SQL,
        job_id,
        user_id,
        document_id,
        upload.filename,
        upload.content_type,
        upload.size,
        upload_id,
    )
    await conn.execute(DELETE_UPLOAD_CHUNKS_SQL, upload_id)


async def stage_upload(
    pool: asyncpg.Pool,
    user_id: uuid.UUID,
    session_id: uuid.UUID,
    form: UploadForm,
    settings: ApiSettings,
) -> UploadAccepted:
    """Stage the files, link them to the session and queue their parsing — one transaction."""
    async with pool.acquire() as conn, conn.transaction():
        await get_session_row(conn, user_id, session_id, lock=True)
        await _check_admission(conn, user_id, form.total_bytes, settings)
        await _check_session_room(conn, user_id, session_id, form, settings)
        job_id = await conn.fetchval(
            "INSERT INTO parse_jobs (user_id, session_id) VALUES ($1, $2) RETURNING id",
            user_id,
            session_id,
        )
        documents: list[UploadedDocument] = []
        seen: set[bytes] = set()
        items = 0
        for upload in form.files:
            if upload.sha256 in seen:
                continue  # the same bytes twice in one request: one document
            seen.add(upload.sha256)
            document, needs_parse = await _stage_file(conn, user_id, form.kind, upload)
            documents.append(document)
            await conn.execute(
                "INSERT INTO session_sources (session_id, document_id, kind) VALUES ($1, $2, $3) "
                "ON CONFLICT (session_id, document_id) DO UPDATE SET kind = EXCLUDED.kind",
                session_id,
                document.id,
                form.kind,
            )
            if needs_parse:
                await _insert_item(conn, job_id, user_id, document.id, form, upload)
                items += 1
        # A job of nothing but duplicates is finished at birth: no worker will touch it.
        await conn.execute(
            """UPDATE parse_jobs SET total_items = $2,
                   state = CASE WHEN $2 = 0 THEN 'succeeded' ELSE state END,
                   finished_at = CASE WHEN $2 = 0 THEN now() END
               WHERE id = $1""",
            job_id,
            items,
        )
        if items:
            await conn.execute("SELECT pg_notify($1, '')", PARSE_CHANNEL)
    return UploadAccepted(job_id=job_id, documents=documents)


async def get_job(conn: Conn, user_id: uuid.UUID, job_id: uuid.UUID) -> JobStatus:
    job = await conn.fetchrow(
        "SELECT id, state, total_items, succeeded_items, failed_items FROM parse_jobs "
        "WHERE id = $1 AND user_id = $2",
        job_id,
        user_id,
    )
    if job is None:
        raise not_found("job")
    items = await conn.fetch(
        "SELECT document_id, filename, state, error_code, error_detail FROM parse_items "
        "WHERE job_id = $1 AND user_id = $2 ORDER BY id",
        job_id,
        user_id,
    )
    return JobStatus(
        id=job["id"],
        state=job["state"],
        total=job["total_items"],
        succeeded=job["succeeded_items"],
        failed=job["failed_items"],
        items=to_structs(JobItem, items),
    )


# Queued parse items of a deleted document leave their job: the job's total shrinks and it
# finishes if nothing else is pending, so it stops counting against the active-jobs cap.
WITHDRAW_QUEUED_ITEMS_SQL = """
WITH withdrawn AS (
    DELETE FROM parse_items WHERE document_id = $1 AND state = 'queued' RETURNING job_id
), per_job AS (
    SELECT job_id, count(*) AS n FROM withdrawn GROUP BY job_id
)
UPDATE parse_jobs j
SET total_items = j.total_items - per_job.n,
    state = CASE
        WHEN j.succeeded_items + j.failed_items < j.total_items - per_job.n THEN j.state
        WHEN j.failed_items = 0 THEN 'succeeded'
        WHEN j.succeeded_items = 0 THEN 'failed'
        ELSE 'partial' END,
    finished_at = CASE
        WHEN j.succeeded_items + j.failed_items >= j.total_items - per_job.n THEN now()
        ELSE j.finished_at END
FROM per_job WHERE j.id = per_job.job_id
"""
DOCUMENT_BEING_PARSED_RETRY_S = 10


async def delete_document(pool: asyncpg.Pool, user_id: uuid.UUID, document_id: uuid.UUID) -> None:
    async with pool.acquire() as conn, conn.transaction():
        row = await conn.fetchrow(
            "SELECT id FROM documents WHERE id = $1 AND user_id = $2 FOR UPDATE",
            document_id,
            user_id,
        )
        if row is None:
            raise not_found("document")
        in_use = await conn.fetchval(
            """SELECT count(*) FROM runs
               WHERE user_id = $1 AND status = ANY($3::text[])
                 AND (thesis_document_id = $2 OR $2 = ANY(document_ids))""",
            user_id,
            document_id,
            list(ACTIVE_RUN_STATUSES),
        )
        if in_use:
            raise ApiError(
                409,
                "document_in_use",
                "This document is part of a run that has not finished; cancel the run or wait "
                "for it before deleting the document.",
            )
        # Lock the document's unfinished items; a parser claiming right now skips locked rows.
        items = await conn.fetch(
            "SELECT state FROM parse_items WHERE document_id = $1 "
            "AND state IN ('queued', 'running') FOR UPDATE",
            document_id,
        )
        if any(item["state"] == "running" for item in items):
            raise ApiError(
                409,
                "document_being_parsed",
                "This document is being parsed right now; delete it once parsing has finished.",
                retry_after=DOCUMENT_BEING_PARSED_RETRY_S,
            )
        if items:
            await conn.execute(WITHDRAW_QUEUED_ITEMS_SQL, document_id)
        # Chunks, links, parse items and thesis analysis cascade with the document.
        await conn.execute("DELETE FROM documents WHERE id = $1", document_id)
