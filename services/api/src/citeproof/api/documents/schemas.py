"""Document and parse-job payloads."""

from __future__ import annotations

import uuid

import msgspec


class DocumentSummary(msgspec.Struct, frozen=True):
    id: uuid.UUID
    filename: str
    kind: str
    state: str
    error_code: str | None
    error_detail: str | None
    title: str | None
    pages: int | None


class DocumentList(msgspec.Struct, frozen=True):
    items: list[DocumentSummary]
    # Pass as ?cursor= for the next page; null on the last one.
    next_cursor: str | None = None


class UploadedDocument(msgspec.Struct, frozen=True):
    id: uuid.UUID
    filename: str
    kind: str
    state: str
    # True when these exact bytes were already uploaded by this user: no new parse item.
    duplicate: bool


class UploadAccepted(msgspec.Struct, frozen=True):
    job_id: uuid.UUID
    documents: list[UploadedDocument]


class JobItem(msgspec.Struct, frozen=True):
    document_id: uuid.UUID
    filename: str
    state: str
    error_code: str | None
    error_detail: str | None


class JobStatus(msgspec.Struct, frozen=True):
    id: uuid.UUID
    state: str
    total: int
    succeeded: int
    failed: int
    items: list[JobItem]
