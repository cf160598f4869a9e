"""Session payloads."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated

import msgspec

from citeproof.api.documents.schemas import DocumentSummary

# PostgreSQL text cannot hold U+0000: refuse it as invalid input instead of failing the insert.
NO_NUL = r"^[^\x00]*$"
SessionName = Annotated[str, msgspec.Meta(min_length=1, max_length=200, pattern=NO_NUL)]
ReferenceLabel = Annotated[str, msgspec.Meta(min_length=1, max_length=200, pattern=NO_NUL)]


class SessionCreate(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    name: SessionName


class SessionOut(msgspec.Struct, frozen=True):
    id: uuid.UUID
    name: str
    created_at: datetime


class SessionList(msgspec.Struct, frozen=True):
    items: list[SessionOut]
    # Pass as ?cursor= for the next page; null on the last one.
    next_cursor: str | None = None


class SessionDetail(msgspec.Struct, frozen=True):
    id: uuid.UUID
    name: str
    created_at: datetime
    documents: list[DocumentSummary]


class ReferenceOverrideIn(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    thesis_document_id: uuid.UUID
    # The reference label as the thesis writes it (`12`, `Smith2020a`).
    label: ReferenceLabel
    # The source document that reference cites; null: "no source, report source_missing".
    document_id: uuid.UUID | None


class ReferenceOverrideOut(msgspec.Struct, frozen=True):
    session_id: uuid.UUID
    thesis_document_id: uuid.UUID
    label: str
    document_id: uuid.UUID | None


class ResetSourcesOut(msgspec.Struct, frozen=True):
    # How many source documents were unlinked from the session (the thesis stays).
    unlinked: int
