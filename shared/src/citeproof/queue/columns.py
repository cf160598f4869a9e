"""The queue-row contract: the columns and partial indexes every stage's queue table carries.

The runtime's statements (`_sql.py`) claim, lease, fence, retry, bury and sweep through exactly
these columns, so a stage table is any table with an `id` primary key, its own payload columns
and these. The migrations create the product's tables; tests and benchmarks build theirs with
`queue_table_ddl`, and a schema test checks that every stage's migrated table matches this
module column by column and index by index.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

# A row's claim state. Terminal: succeeded, failed (a permanent error), dead (out of attempts),
# cancelled (withdrawn by the application).
QUEUE_STATES: Final = ("queued", "running", "succeeded", "failed", "dead", "cancelled")
DEFAULT_MAX_ATTEMPTS: Final = 5


@dataclass(frozen=True)
class QueueColumn:
    """One claim column, with its type spelled the way PostgreSQL's `format_type` prints it."""

    name: str
    sql_type: str
    not_null: bool = False
    # SQL default expression; None for no default. `max_attempts` takes the table's own value.
    default: str | None = None


@dataclass(frozen=True)
class QueueIndex:
    """A partial index the claim, sweep and dead-row queries rely on (`<table>_<suffix>`)."""

    suffix: str
    columns: str
    state: str


MAX_ATTEMPTS_COLUMN: Final = "max_attempts"

QUEUE_COLUMNS: Final = (
    QueueColumn("state", "text", not_null=True, default="'queued'"),
    # Lower first: the claim orders by (priority, run_after).
    QueueColumn("priority", "smallint", not_null=True, default="0"),
    QueueColumn("attempts", "integer", not_null=True, default="0"),
    QueueColumn(MAX_ATTEMPTS_COLUMN, "integer", not_null=True),
    # Not claimable before this time (retry backoff, snoozes).
    QueueColumn("run_after", "timestamp with time zone", not_null=True, default="now()"),
    QueueColumn("claimed_at", "timestamp with time zone"),
    QueueColumn("lease_expires_at", "timestamp with time zone"),
    QueueColumn("worker_id", "text"),
    # The fencing token: only the holder of the current claim may complete or fail the row.
    QueueColumn("claim_token", "uuid"),
    QueueColumn("last_error", "text"),
    QueueColumn("created_at", "timestamp with time zone", not_null=True, default="now()"),
    QueueColumn("finished_at", "timestamp with time zone"),
)
QUEUE_COLUMN_NAMES: Final = tuple(column.name for column in QUEUE_COLUMNS)

QUEUE_INDEXES: Final = (
    # The claim: ready rows in priority order.
    QueueIndex("queued_idx", "priority, run_after", "queued"),
    # The sweeper: expired leases.
    QueueIndex("running_idx", "lease_expires_at", "running"),
    # A draining or vanished worker's rows.
    QueueIndex("worker_idx", "worker_id", "running"),
    # Dead-row counts for /metrics and alerts.
    QueueIndex("dead_idx", "id", "dead"),
)


def _column_ddl(column: QueueColumn, max_attempts: int) -> str:
    parts = [f"{column.name:<17} {column.sql_type}"]
    if column.not_null:
        parts.append("NOT NULL")
    default = str(max_attempts) if column.name == MAX_ATTEMPTS_COLUMN else column.default
    if default is not None:
        parts.append(f"DEFAULT {default}")
    if column.name == "state":
        states = ", ".join(f"'{state}'" for state in QUEUE_STATES)
        parts.append(f"CHECK (state IN ({states}))")
    return " ".join(parts)


def queue_table_ddl(
    table: str,
    payload_columns: Sequence[str],
    *,
    id_column: str = "id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY",
    max_attempts: int = DEFAULT_MAX_ATTEMPTS,
    if_not_exists: bool = False,
) -> str:
    """CREATE TABLE for a queue table with the contract's columns and partial indexes.

    `payload_columns` are the stage's own column definitions (one SQL definition each);
    `table` may be schema-qualified, in which case index names use its last part.
    """
    guard = "IF NOT EXISTS " if if_not_exists else ""
    columns = [id_column, *payload_columns]
    columns += [_column_ddl(column, max_attempts) for column in QUEUE_COLUMNS]
    body = ",\n    ".join(columns)
    statements = [f"CREATE TABLE {guard}{table} (\n    {body}\n)"]
    base = table.rsplit(".", 1)[-1]
    statements += [
        f"CREATE INDEX {guard}{base}_{index.suffix} ON {table} ({index.columns}) "
        f"WHERE state = '{index.state}'"
        for index in QUEUE_INDEXES
    ]
    return ";\n".join(statements) + ";\n"
