"""Payloads of the operational endpoints."""

from __future__ import annotations

import uuid
from datetime import datetime

import msgspec


class Me(msgspec.Struct, frozen=True):
    user_id: uuid.UUID
    name: str
    # When the token of this request stops working (null: it does not expire).
    token_expires_at: datetime | None = None


class Health(msgspec.Struct, frozen=True):
    status: str


class Readiness(msgspec.Struct, frozen=True):
    # "ready" or "not_ready"
    status: str
    database: bool
    pending_migrations: list[int]
    # stage -> whether a live worker advertises it (parse, plan, retrieve, judge)
    workers: dict[str, bool]
    # stage -> the outage that keeps its workers from serving it ("judge backend unreachable
    # since ..."): the API itself stays ready, the stage's work waits, uncharged.
    unavailable: dict[str, str] = {}
    # How the live parsers isolate the children that parse uploads: "netns+uid" (own network
    # namespace, unprivileged uid), "netns+uid+view" (the same, the interpreter reached
    # through a private mount namespace), "shared-network+same-uid" (only the NetworkPolicy
    # bounds the network), ... (docs/security.md).
    parser_sandbox: list[str] = []
