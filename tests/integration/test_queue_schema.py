"""The migrated schema honours the queue-row contract (`citeproof.queue.columns`): every stage's
table has exactly the claim columns the runtime's statements use, with their types, nullability
and defaults, the state CHECK, and the partial indexes the claim, sweep and metrics rely on.

Read from the catalog of the migrated database, the way procrastinate tests its schema, so a
migration that drifts from the runtime fails here rather than at the first claim."""

from __future__ import annotations

import asyncpg
import pytest

from citeproof.pipeline import STAGE_TABLES
from citeproof.queue.columns import (
    MAX_ATTEMPTS_COLUMN,
    QUEUE_COLUMNS,
    QUEUE_INDEXES,
    QUEUE_STATES,
    queue_table_ddl,
)

COLUMNS_SQL = """
SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS sql_type,
       a.attnotnull AS not_null, pg_get_expr(d.adbin, d.adrelid) AS default
FROM pg_attribute a
LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped
"""

INDEXES_SQL = """
SELECT c.relname AS name, pg_get_indexdef(i.indexrelid) AS definition
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
WHERE i.indrelid = $1::regclass
"""

STATE_CHECK_SQL = """
SELECT pg_get_constraintdef(oid) FROM pg_constraint
WHERE conrelid = $1::regclass AND contype = 'c' AND pg_get_constraintdef(oid) LIKE '%state%'
"""


def _default(expression: str | None) -> str | None:
    """`'queued'::text` as the catalog prints it is `'queued'` as the contract writes it."""
    return expression.removesuffix("::text") if expression is not None else None


async def _claim_columns(conn: asyncpg.Connection, table: str) -> dict[str, tuple]:
    rows = await conn.fetch(COLUMNS_SQL, table)
    wanted = {column.name for column in QUEUE_COLUMNS}
    return {
        row["name"]: (row["sql_type"], row["not_null"], _default(row["default"]))
        for row in rows
        if row["name"] in wanted
    }


async def _check_table(conn: asyncpg.Connection, table: str) -> None:
    found = await _claim_columns(conn, table)
    for column in QUEUE_COLUMNS:
        assert column.name in found, f"{table} lacks the claim column {column.name}"
        sql_type, not_null, default = found[column.name]
        assert (sql_type, not_null) == (column.sql_type, column.not_null), (table, column.name)
        if column.name != MAX_ATTEMPTS_COLUMN:  # each table picks its own attempt budget
            assert default == column.default, (table, column.name, default)
        else:
            assert default is not None and int(default) >= 1, (table, default)
    (check,) = [row[0] for row in await conn.fetch(STATE_CHECK_SQL, table)]
    assert all(f"'{state}'" in check for state in QUEUE_STATES), (table, check)
    indexes = {row["name"]: row["definition"] for row in await conn.fetch(INDEXES_SQL, table)}
    for index in QUEUE_INDEXES:
        name = f"{table}_{index.suffix}"
        assert name in indexes, f"{table} lacks the partial index {name}"
        assert f"USING btree ({index.columns})" in indexes[name], indexes[name]
        assert indexes[name].endswith(f"WHERE (state = '{index.state}'::text)"), indexes[name]


@pytest.mark.parametrize("stage", sorted(STAGE_TABLES))
async def test_every_stage_table_has_the_queue_columns_and_indexes(pool, stage):
    async with pool.acquire() as conn:
        await _check_table(conn, STAGE_TABLES[stage])


async def test_a_table_built_from_the_contract_passes_the_same_check(pool):
    # The DDL that tests and benchmarks use is checked by the same function, so the check above
    # is known to accept exactly the contract.
    async with pool.acquire() as conn:
        try:
            await conn.execute(queue_table_ddl("contract_probe", ["payload text NOT NULL"]))
            await _check_table(conn, "contract_probe")
        finally:
            await conn.execute("DROP TABLE IF EXISTS contract_probe")


async def test_the_check_refuses_a_table_missing_a_claim_column(pool):
    async with pool.acquire() as conn:
        try:
            await conn.execute(queue_table_ddl("contract_broken", ["payload text NOT NULL"]))
            await conn.execute("ALTER TABLE contract_broken DROP COLUMN claim_token")
            with pytest.raises(AssertionError, match="claim_token"):
                await _check_table(conn, "contract_broken")
        finally:
            await conn.execute("DROP TABLE IF EXISTS contract_broken")
