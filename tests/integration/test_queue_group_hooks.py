"""Implicit completions of a stage with a terminal hook: grouped into one transaction with the
hooks' writes, still fenced, and a raising hook fails only its own row."""

from __future__ import annotations

import asyncio
import uuid

import asyncpg
import pytest

from citeproof.queue import Stage, TaskContext, Worker

from .queue_support import drop_test_table, enqueue, ensure_test_table, fast_settings
from .queue_support import private_table_name as table_name
from .test_queue_runtime import another_live_worker

# The hook records the id of the transaction it ran in, so the test can count transactions.
RECORD_HOOK = """
INSERT INTO test_task_effects (task_id, worker_id, batch)
VALUES ($1, $2 || ':' || txid_current()::text, $3)
"""
HOOK_ROWS = """
SELECT task_id, split_part(worker_id, ':', 1) AS outcome, split_part(worker_id, ':', 2) AS txid
FROM test_task_effects WHERE batch = $1
"""


@pytest.fixture
async def table(pool: asyncpg.Pool):
    name = table_name()
    await ensure_test_table(pool, name)
    yield name
    await drop_test_table(pool, name)


async def record_hook(conn: asyncpg.Connection, row: asyncpg.Record, outcome) -> None:
    """The terminal hook of these tests: one effect row per transition."""
    await conn.execute(RECORD_HOOK, row["id"], outcome.state, row["batch"])


def one_stage_worker(pool: asyncpg.Pool, stage: Stage, *, concurrency: int, batch_size: int):
    return Worker(
        service="test",
        stages=[stage],
        pool=pool,
        listen_url=None,
        settings=fast_settings(concurrency=concurrency, batch_size=batch_size),
    )


async def run_until_done(pool: asyncpg.Pool, worker: Worker, table: str, batch: str) -> None:
    unfinished = f"SELECT count(*) FROM {table} WHERE batch = $1 AND state IN ('queued', 'running')"
    await worker.start()
    try:
        for _ in range(600):
            if not await pool.fetchval(unfinished, batch):
                return
            await asyncio.sleep(0.05)
        raise AssertionError("tasks never finished")
    finally:
        await worker.drain(1.0)


async def run_with_a_stolen_claim(
    pool: asyncpg.Pool, table: str, channel: str, on_succeeded_sql: str | None = None
) -> tuple[int, dict[int, str], list]:
    """120 tasks through a hooked stage whose handler has another live worker take over the
    first row's claim while it runs; returns (stolen id, state by id, hook rows)."""
    batch = f"b-{uuid.uuid4().hex[:8]}"
    stolen: list[int] = []
    other = await another_live_worker(pool)

    async def steal_one_then_return(ctx: TaskContext) -> None:
        if not stolen:
            stolen.append(ctx.task_id)
            # Another (registered, live) worker's claim replaces ours while the handler runs.
            await pool.execute(
                f"UPDATE {table} SET claim_token = gen_random_uuid(), worker_id = $2 WHERE id = $1",
                ctx.task_id,
                other,
            )

    async def on_terminal(conn, row, outcome) -> None:
        await conn.execute(RECORD_HOOK, row["id"], outcome.state, row["batch"])

    stage = Stage(
        name="test", table=table, channel=channel, handler=steal_one_then_return,
        on_terminal=on_terminal, on_succeeded_sql=on_succeeded_sql,
    )  # fmt: skip
    worker = Worker(
        service="test",
        stages=[stage],
        pool=pool,
        listen_url=None,
        settings=fast_settings(concurrency=8, batch_size=8),
    )
    await enqueue(pool, batch, 120, table=table)
    # The stolen row stays running under the other worker: wait for the queue, not for it.
    unfinished = f"SELECT count(*) FROM {table} WHERE batch = $1 AND state = 'queued'"
    await worker.start()
    try:
        for _ in range(600):
            if not await pool.fetchval(unfinished, batch):
                break
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.5)
    finally:
        await worker.drain(1.0)
    states = {
        r["id"]: r["state"]
        for r in await pool.fetch(f"SELECT id, state FROM {table} WHERE batch = $1", batch)
    }
    return stolen[0], states, await pool.fetch(HOOK_ROWS, batch)


async def test_implicit_completions_with_a_hook_share_a_transaction_and_stay_fenced(
    pool, table
) -> None:
    stolen, states, hooks = await run_with_a_stolen_claim(pool, table, "c_group_hook")
    # The stolen row was not overwritten and got no hook row; every other row succeeded with
    # exactly one hook row, written in the transaction that completed it.
    assert states.pop(stolen) == "running"
    assert set(states.values()) == {"succeeded"}
    assert sorted(r["task_id"] for r in hooks) == sorted(states)
    assert {r["outcome"] for r in hooks} == {"succeeded"}
    # Grouped: far fewer transactions than tasks.
    assert len({r["txid"] for r in hooks}) < len(hooks) / 2


async def test_a_raising_hook_in_a_group_fails_only_its_own_row(pool, table) -> None:
    batch = f"b-{uuid.uuid4().hex[:8]}"

    async def just_return(ctx: TaskContext) -> None:
        return

    async def on_terminal(conn, row, outcome) -> None:
        await conn.execute(RECORD_HOOK, row["id"], outcome.state, row["batch"])
        if row["payload"] == "poison" and outcome.state == "succeeded":
            raise RuntimeError("bookkeeping bug")

    stage = Stage(
        name="test", table=table, channel="c_group_hook2", handler=just_return,
        on_terminal=on_terminal,
    )  # fmt: skip
    worker = Worker(
        service="test",
        stages=[stage],
        pool=pool,
        listen_url=None,
        settings=fast_settings(concurrency=8, batch_size=8),
    )
    await enqueue(pool, batch, 30, table=table)
    await enqueue(pool, batch, 1, table=table, payload="poison", max_attempts=2)
    await enqueue(pool, batch, 30, table=table)
    await run_until_done(pool, worker, table, batch)
    rows = await pool.fetch(f"SELECT id, state, payload FROM {table} WHERE batch = $1", batch)
    hooks = await pool.fetch(HOOK_ROWS, batch)
    poison = next(r["id"] for r in rows if r["payload"] == "poison")
    # The poisoned row's succeeded-hook writes never commit; it ends dead with its dead hook.
    assert {r["state"] for r in rows if r["id"] != poison} == {"succeeded"}
    assert next(r["state"] for r in rows if r["id"] == poison) == "dead"
    assert [r["outcome"] for r in hooks if r["task_id"] == poison] == ["dead"]
    # Its neighbours in the group completed (alone, after the group rolled back) with their
    # hook rows.
    ok = {r["task_id"] for r in hooks if r["outcome"] == "succeeded"}
    assert ok == {r["id"] for r in rows if r["id"] != poison}


async def test_a_stage_group_hook_is_called_once_per_group(pool, table) -> None:
    batch = f"b-{uuid.uuid4().hex[:8]}"
    calls: list[int] = []

    async def just_return(ctx: TaskContext) -> None:
        return

    async def on_terminal(conn, row, outcome) -> None:
        await conn.execute(RECORD_HOOK, row["id"], outcome.state, row["batch"])

    async def on_terminal_group(conn, rows, outcome) -> None:
        calls.append(len(rows))
        for row in rows:
            await on_terminal(conn, row, outcome)

    stage = Stage(
        name="test", table=table, channel="c_group_hook3", handler=just_return,
        on_terminal=on_terminal, on_terminal_group=on_terminal_group,
    )  # fmt: skip
    worker = Worker(
        service="test",
        stages=[stage],
        pool=pool,
        listen_url=None,
        settings=fast_settings(concurrency=8, batch_size=8),
    )
    await enqueue(pool, batch, 80, table=table)
    await run_until_done(pool, worker, table, batch)
    hooks = await pool.fetch(HOOK_ROWS, batch)
    assert len(hooks) == 80 and sum(calls) == 80
    assert len(calls) < 40


# A stage's success bookkeeping as SQL: the same row as RECORD_HOOK, from the completed rows.
SQL_HOOK = """
INSERT INTO test_task_effects (task_id, worker_id, batch)
SELECT id, 'succeeded:' || txid_current()::text, batch FROM done
"""
# ... and one that fails for the poisoned row only (a division by zero).
POISONED_SQL_HOOK = """
INSERT INTO test_task_effects (task_id, worker_id, batch)
SELECT id, 'succeeded:' || (1 / (payload <> 'poison')::int)::text, batch FROM done
"""


async def test_success_writes_as_sql_complete_a_group_in_one_statement_and_stay_fenced(
    pool, table
) -> None:
    stolen, states, hooks = await run_with_a_stolen_claim(
        pool, table, "c_group_hook4", on_succeeded_sql=SQL_HOOK
    )
    # The stolen row was not overwritten and got no hook row; every other row succeeded with
    # exactly one hook row, written by the statement that completed it.
    assert states.pop(stolen) == "running"
    assert set(states.values()) == {"succeeded"}
    assert sorted(r["task_id"] for r in hooks) == sorted(states)
    assert {r["outcome"] for r in hooks} == {"succeeded"}
    assert len({r["txid"] for r in hooks}) < len(hooks) / 2


async def test_a_failing_sql_hook_fails_only_its_own_row(pool, table) -> None:
    batch = f"b-{uuid.uuid4().hex[:8]}"

    async def just_return(ctx: TaskContext) -> None:
        return

    async def on_terminal(conn, row, outcome) -> None:
        await conn.execute(RECORD_HOOK, row["id"], outcome.state, row["batch"])
        if row["payload"] == "poison" and outcome.state == "succeeded":
            raise RuntimeError("bookkeeping bug")

    stage = Stage(
        name="test", table=table, channel="c_group_hook5", handler=just_return,
        on_terminal=on_terminal, on_succeeded_sql=POISONED_SQL_HOOK,
    )  # fmt: skip
    worker = Worker(
        service="test",
        stages=[stage],
        pool=pool,
        listen_url=None,
        settings=fast_settings(concurrency=8, batch_size=8),
    )
    await enqueue(pool, batch, 30, table=table)
    await enqueue(pool, batch, 1, table=table, payload="poison", max_attempts=2)
    await enqueue(pool, batch, 30, table=table)
    await run_until_done(pool, worker, table, batch)
    rows = await pool.fetch(f"SELECT id, state, payload FROM {table} WHERE batch = $1", batch)
    hooks = await pool.fetch(HOOK_ROWS, batch)
    poison = next(r["id"] for r in rows if r["payload"] == "poison")
    assert {r["state"] for r in rows if r["id"] != poison} == {"succeeded"}
    assert next(r["state"] for r in rows if r["id"] == poison) == "dead"
    assert [r["outcome"] for r in hooks if r["task_id"] == poison] == ["dead"]
    ok = {r["task_id"] for r in hooks if r["outcome"] == "succeeded"}
    assert ok == {r["id"] for r in rows if r["id"] != poison}


def test_a_grouped_hook_needs_the_row_hook_too() -> None:
    async def just_return(ctx: TaskContext) -> None:
        return

    with pytest.raises(ValueError, match="needs on_terminal"):
        Stage(
            name="test", table="t", channel="c", handler=just_return,
            on_succeeded_sql="SELECT 1",
        )  # fmt: skip


async def test_a_claim_batch_completes_while_another_batchs_group_is_still_writing(
    pool, table
) -> None:
    """One group write per claim batch in flight: a batch whose tasks are done does not wait
    for the previous batch's statement (concurrency 2, batch 1: two writes at once)."""
    batch = f"b-{uuid.uuid4().hex[:8]}"
    slow_hook_started = asyncio.Event()
    release = asyncio.Event()

    async def handler(ctx: TaskContext) -> None:
        if ctx.row["payload"] != "slow":
            # Returns only once the other task's group is stuck in its hook.
            await asyncio.wait_for(slow_hook_started.wait(), 30)

    async def on_terminal(conn, row, outcome) -> None:
        if row["payload"] == "slow" and outcome.state == "succeeded":
            slow_hook_started.set()
            await asyncio.wait_for(release.wait(), 30)
        await conn.execute(RECORD_HOOK, row["id"], outcome.state, row["batch"])

    stage = Stage(
        name="test", table=table, channel="c_group_hook6", handler=handler,
        on_terminal=on_terminal,
    )  # fmt: skip
    worker = Worker(
        service="test",
        stages=[stage],
        pool=pool,
        listen_url=None,
        settings=fast_settings(concurrency=2, batch_size=1),
    )
    await enqueue(pool, batch, 1, table=table, payload="slow")
    await enqueue(pool, batch, 1, table=table, payload="quick")
    state_of = f"SELECT state FROM {table} WHERE batch = $1 AND payload = $2"
    await worker.start()
    try:
        quick = None
        for _ in range(200):
            quick = await pool.fetchval(state_of, batch, "quick")
            if quick == "succeeded":
                break
            await asyncio.sleep(0.05)
        # The quick task completed while the slow one's group was still in its hook.
        assert quick == "succeeded"
        assert await pool.fetchval(state_of, batch, "slow") == "running"
        release.set()
        for _ in range(200):
            if await pool.fetchval(state_of, batch, "slow") == "succeeded":
                break
            await asyncio.sleep(0.05)
        assert await pool.fetchval(state_of, batch, "slow") == "succeeded"
    finally:
        release.set()
        await worker.drain(1.0)


# The success bookkeeping, slowed down once per statement so that a drain can begin while the
# group completion (and the claim riding on it) is in flight.
SLOW_SQL_HOOK = """
INSERT INTO test_task_effects (task_id, worker_id, batch)
SELECT done.id, 'succeeded:' || txid_current()::text, done.batch
FROM done, (SELECT pg_sleep(0.8)) AS pause
"""


async def test_rows_claimed_by_a_completion_in_flight_when_a_drain_begins_go_back(
    pool, table
) -> None:
    """The completion that claims the next batch is a claim like the loop's: rows it brings in
    after the drain began are handed back uncharged, never started or left running."""
    batch = f"b-{uuid.uuid4().hex[:8]}"
    started: list[int] = []
    both_ran = asyncio.Event()

    async def handler(ctx: TaskContext) -> None:
        started.append(ctx.task_id)
        if len(started) == 2:
            both_ran.set()

    stage = Stage(
        name="test", table=table, channel="c_group_hook7", handler=handler,
        on_terminal=record_hook, on_succeeded_sql=SLOW_SQL_HOOK,
    )  # fmt: skip
    worker = one_stage_worker(pool, stage, concurrency=2, batch_size=2)
    await enqueue(pool, batch, 6, table=table)
    await worker.start()
    await asyncio.wait_for(both_ran.wait(), 10)
    await asyncio.sleep(0.3)  # the first two rows' completion (0.8 s) is in flight, claiming
    await worker.drain(5.0)
    rows = await pool.fetch(
        f"SELECT id, state, attempts FROM {table} WHERE batch = $1 ORDER BY id", batch
    )
    hooks = await pool.fetch(HOOK_ROWS, batch)
    succeeded = [r["id"] for r in rows if r["state"] == "succeeded"]
    # The first batch completed with its hook rows; nothing else ran, and nothing is running:
    # the two rows the completion claimed are queued again with no attempt charged.
    assert succeeded == sorted(started) and len(succeeded) == 2
    assert sorted(r["task_id"] for r in hooks) == succeeded
    assert [(r["state"], r["attempts"]) for r in rows if r["id"] not in succeeded] == [
        ("queued", 0)
    ] * 4
