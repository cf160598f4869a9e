"""Run payloads."""

from __future__ import annotations

import uuid
from datetime import datetime

import msgspec


class RunCreate(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    thesis_document_id: uuid.UUID


class RunAccepted(msgspec.Struct, frozen=True):
    run_id: uuid.UUID


class StageProgress(msgspec.Struct, frozen=True, omit_defaults=True):
    done: int
    total: int
    # Of `done`, how many needed no work again (omitted when none): documents already parsed
    # when the run started, evidence and verdicts kept from an earlier run of the same claims.
    reused: int = 0
    # retrieve only: source passages this run's retrievals embedded on demand (ADR 0022): the
    # embedding that moved from parsing to the first claim that needs a passage.
    embedded: int = 0


class RunProgress(msgspec.Struct, frozen=True):
    parse: StageProgress
    retrieve: StageProgress
    judge: StageProgress


class RunStatus(msgspec.Struct, frozen=True):
    id: uuid.UUID
    # waiting_for_documents | planning | retrieving | judging | verifying (references: ADR
    # 0024) | completed | cancelled | failed
    status: str
    session_id: uuid.UUID
    thesis_document_id: uuid.UUID
    created_at: datetime
    finished_at: datetime | None
    message: str | None
    # Workers the run needs and that are not running, e.g. ["parser worker"].
    waiting_for: list[str]
    progress: RunProgress
    # Verdicts so far by label.
    counts: dict[str, int]


class RunCancelled(msgspec.Struct, frozen=True):
    run_id: uuid.UUID
    status: str


class RunSummary(msgspec.Struct, frozen=True):
    id: uuid.UUID
    status: str
    thesis_document_id: uuid.UUID
    created_at: datetime
    finished_at: datetime | None


class RunList(msgspec.Struct, frozen=True):
    items: list[RunSummary]
    # Pass as ?cursor= for the next page; null on the last one.
    next_cursor: str | None = None
