"""Uploads, documents and parse jobs."""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, delete, get, post

from citeproof.api.content_types import OPT_MULTIPART
from citeproof.api.deps import CallerDep, PathId, Pool, Settings, Uploads
from citeproof.api.documents import services
from citeproof.api.documents.openapi import UploadOperation
from citeproof.api.documents.schemas import DocumentList, JobStatus, UploadAccepted
from citeproof.api.documents.uploads import read_upload
from citeproof.api.errors import OPT_EXTRA_ERROR_STATUSES
from citeproof.api.pagination import DEFAULT_PAGE_SIZE, PageCursor, PageSize, decode_cursor
from citeproof.api.scoping import get_session_row
from citeproof.api.security import BUCKET_UPLOAD, OPT_RATE_BUCKET


class DocumentController(Controller):
    path = "/v1"
    tags = ["documents"]

    @post(
        "/sessions/{session_id:uuid}/documents",
        status_code=202,
        summary="Upload one or more documents (multipart: 'files' parts and a 'kind' field)",
        description=(
            "multipart/form-data with one or many `files` parts and a `kind` field (`thesis` or "
            "`source`). Bytes are staged and parsed asynchronously; poll /v1/jobs/{job_id}."
        ),
        opt={
            OPT_RATE_BUCKET: BUCKET_UPLOAD,
            OPT_MULTIPART: True,
            # A body that stalls (408 upload_timeout); a full process (503 upload_slots_busy).
            OPT_EXTRA_ERROR_STATUSES: (408, 503),
        },
        # The size caps are enforced while streaming (see uploads.py), with their own codes.
        request_max_body_size=None,
        operation_class=UploadOperation,
    )
    async def upload(
        self,
        request: Request[Any, Any, Any],
        session_id: PathId,
        caller: CallerDep,
        pool: Pool,
        api_settings: Settings,
        upload_slots: Uploads,
    ) -> UploadAccepted:
        # Everything that can refuse the upload runs before a byte of the body is read: the
        # session, the caller's share of upload slots, parse jobs, and staged bytes against
        # the declared Content-Length. The body then goes to a spool file, never to memory.
        await get_session_row(pool, caller.user_id, session_id)
        async with upload_slots.hold(caller.user_id):
            room = await services.precheck_admission(
                pool, caller.user_id, api_settings, _content_length(request)
            )
            form = await read_upload(
                request,
                max_file_bytes=api_settings.max_file_bytes,
                max_total_bytes=room,
                max_files=api_settings.max_files_per_upload,
                spool_dir=api_settings.upload_spool_dir,
                idle_timeout_s=api_settings.upload_idle_timeout_s,
                staged_cap_bytes=api_settings.max_staged_bytes,
                min_bytes_per_s=api_settings.upload_min_bytes_per_s,
            )
            try:
                return await services.stage_upload(
                    pool, caller.user_id, session_id, form, api_settings
                )
            finally:
                form.close()

    @get(
        "/sessions/{session_id:uuid}/documents",
        summary="Documents linked to a session, newest first (cursor-paginated)",
    )
    async def list_documents(
        self,
        session_id: PathId,
        caller: CallerDep,
        pool: Pool,
        limit: PageSize = DEFAULT_PAGE_SIZE,
        cursor: PageCursor = None,
    ) -> DocumentList:
        await get_session_row(pool, caller.user_id, session_id)
        items, next_cursor = await services.page_session_documents(
            pool, caller.user_id, session_id, limit, decode_cursor(cursor)
        )
        return DocumentList(items=items, next_cursor=next_cursor)

    @delete(
        "/documents/{document_id:uuid}",
        status_code=204,
        summary="Delete a document (409 document_in_use while an unfinished run uses it)",
    )
    async def delete_document(self, document_id: PathId, caller: CallerDep, pool: Pool) -> None:
        await services.delete_document(pool, caller.user_id, document_id)

    @get("/jobs/{job_id:uuid}", summary="Parse-job status with its items")
    async def get_job(self, job_id: PathId, caller: CallerDep, pool: Pool) -> JobStatus:
        return await services.get_job(pool, caller.user_id, job_id)


def _content_length(request: Request[Any, Any, Any]) -> int | None:
    """The declared body size, when there is a sane one (chunked bodies have none)."""
    raw = request.headers.get("content-length", "")
    return int(raw) if raw.isdigit() else None
