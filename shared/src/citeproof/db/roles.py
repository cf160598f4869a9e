"""Least-privilege database roles: one migration role owns the schema, each service runs as a
role that may only read and write its own tables, and KEDA may only count queued rows.

The migration role (whatever role `citeproof migrate` connects as; the k8s migration Job's
`MIGRATION_DATABASE_URL`) owns every table and is the only one that runs DDL. After applying
migrations it (re)grants the runtime roles below — those that exist; an operator creates them
with their passwords (docs/operations.md). A role missing from the database is skipped, so the
embedded default, one superuser for everything, keeps working unchanged.

A runtime role gets DML only (SELECT, INSERT, UPDATE, DELETE) on the tables its service's SQL
names, read access to the migration ledger (boot and readiness check it), and no CREATE on the
schema: a stolen service credential cannot alter, drop or truncate a table, create a function
or read another service's tables. Cascading deletes run as the tables' owner, so the API can
delete a document without holding privileges on its chunks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

import asyncpg
import structlog

from citeproof.pipeline import (
    JUDGE_STAGE,
    PARSE_STAGE,
    PLAN_STAGE,
    RETRIEVE_STAGE,
    STAGE_TABLES,
    VERIFY_STAGE,
)

log = structlog.get_logger("citeproof.db.roles")

LEDGER_TABLE: Final = "schema_migrations"
# Every worker registers in the worker registry.
_REGISTRY: Final = ("worker_heartbeats",)

# Runtime roles are named after their service. (Built, not spelled out: "citeproof_judge" is
# also the judge's NOTIFY channel, a different thing that only the pipeline contract spells.)
ROLE_PREFIX: Final = "citeproof_"


def service_role(service: str) -> str:
    """The runtime role of a service (``api``, ``parser``, ``retriever``, ``judge``)."""
    return f"{ROLE_PREFIX}{service}"


# role -> the tables its service reads and writes (checked against the services' SQL by
# tests/unit/test_db_roles.py, so a new query on another table fails the test, not production).
RUNTIME_ROLES: Final[Mapping[str, tuple[str, ...]]] = {
    service_role("api"): (
        "users",
        "api_tokens",
        "rate_limit_events",
        "sessions",
        "session_sources",
        "documents",
        "parse_jobs",
        "parse_items",
        "staged_upload_chunks",
        "runs",
        "retrieve_tasks",
        "judge_tasks",
        "citations",
        "references",
        "reference_overrides",
        "run_reference_links",
        "verdicts",
        "verdict_cache",
        # Reference verification: the run's stage rows (its status) and per-entry results.
        STAGE_TABLES[VERIFY_STAGE],
        "reference_checks",
        *_REGISTRY,
    ),
    service_role("parser"): (
        STAGE_TABLES[PARSE_STAGE],
        "parse_jobs",
        "documents",
        "chunks",
        "citations",
        "references",
        "session_sources",
        "runs",
        *_REGISTRY,
    ),
    service_role("retriever"): (
        STAGE_TABLES[PLAN_STAGE],
        STAGE_TABLES[RETRIEVE_STAGE],
        "judge_tasks",
        "users",
        "documents",
        "session_sources",
        "parse_jobs",
        "parse_items",
        "chunks",
        "citations",
        "references",
        "reference_overrides",
        "run_reference_links",
        "evidence",
        "verdicts",
        "open_access_lookups",
        "open_access_documents",
        "retrieval_cache",
        # Reference verification (its stage runs in the retriever; ADR 0024).
        STAGE_TABLES[VERIFY_STAGE],
        "scholarly_lookups",
        "reference_checks",
        "retraction_notices",
        "findings",
        *_REGISTRY,
    ),
    service_role("judge"): (
        STAGE_TABLES[JUDGE_STAGE],
        "runs",
        "citations",
        "chunks",
        "evidence",
        "verdicts",
        "verdict_cache",
        *_REGISTRY,
    ),
}

# KEDA's postgresql scaler counts ready rows and their age: the columns its queries read, on
# the queue tables, and nothing else (not the staged upload bytes next to them).
KEDA_ROLE: Final = service_role("keda")
KEDA_COLUMNS: Final = ("state", "run_after")
KEDA_TABLES: Final = tuple(STAGE_TABLES.values())

# Which of the roles exist (an operator creates them, with their passwords).
SELECT_EXISTING_ROLES = "SELECT rolname FROM pg_roles WHERE rolname = ANY($1::text[])"


def _table_list(tables: Sequence[str]) -> str:
    return ", ".join(f'"{table}"' for table in tables)


def grant_statements(role: str) -> list[str]:
    """The statements that give `role` exactly its privileges (revoking what it had first,
    so a table dropped from its list loses the grant too)."""
    quoted = f'"{role}"'
    statements = [
        f"REVOKE ALL ON ALL TABLES IN SCHEMA public FROM {quoted}",
        f"REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM {quoted}",
        f"REVOKE CREATE ON SCHEMA public FROM {quoted}",
        f"GRANT USAGE ON SCHEMA public TO {quoted}",
    ]
    if role == KEDA_ROLE:
        columns = ", ".join(KEDA_COLUMNS)
        statements += [
            f'GRANT SELECT ({columns}) ON "{table}" TO {quoted}' for table in KEDA_TABLES
        ]
        return statements
    statements += [
        f"GRANT SELECT, INSERT, UPDATE, DELETE ON {_table_list(RUNTIME_ROLES[role])} TO {quoted}",
        f'GRANT SELECT ON "{LEDGER_TABLE}" TO {quoted}',
        # Identity and serial columns draw from sequences.
        f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {quoted}",
    ]
    return statements


def all_roles() -> list[str]:
    return [*RUNTIME_ROLES, KEDA_ROLE]


def roles_sql() -> str:
    """The whole setup as SQL for an operator to read or run by hand (`citeproof migrate
    --print-roles`): create the roles, then the grants the migration Job repeats."""
    lines = [
        "-- Run as the migration role (the owner of citeproof's tables) after `citeproof migrate`.",
        "-- Set each password; `citeproof migrate` re-applies the grants after every migration.",
    ]
    lines += [f"CREATE ROLE \"{role}\" LOGIN PASSWORD 'CHANGE-ME';" for role in all_roles()]
    for role in all_roles():
        lines += [f"{statement};" for statement in grant_statements(role)]
    return "\n".join(lines) + "\n"


async def grant_runtime_roles(conn: asyncpg.Connection) -> list[str]:
    """Grant every existing citeproof role its privileges, in one transaction; the roles
    granted (none on a one-role database such as the embedded default)."""
    existing = [row["rolname"] for row in await conn.fetch(SELECT_EXISTING_ROLES, all_roles())]
    async with conn.transaction():
        for role in existing:
            for statement in grant_statements(role):
                await conn.execute(statement)
    if existing:
        log.info("db.roles_granted", roles=existing)
    return existing
