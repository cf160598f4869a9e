"""The stage-queue runtime against a real PostgreSQL."""

from __future__ import annotations

import asyncio
import uuid

import asyncpg
import pytest
from prometheus_client import REGISTRY

from citeproof.db.pool import create_pool
from citeproof.queue import LeaseLost, Stage, TaskContext, Worker, WorkerHooks, _sql, notify
from citeproof.queue._sweeper import sweep_expired
from citeproof.queue.metrics import LEASES_LOST

from .queue_support import (
    drop_test_table,
    enqueue,
    ensure_test_table,
    fast_settings,
    private_table_name,
)


@pytest.fixture
async def queue_pool(pool: asyncpg.Pool) -> asyncpg.Pool:
    await ensure_test_table(pool)
    return pool


def batch_name() -> str:
    return f"b-{uuid.uuid4().hex[:8]}"


async def record_effect(ctx: TaskContext) -> None:
    async with ctx.complete() as conn:
        await conn.execute(
            "INSERT INTO test_task_effects (task_id, worker_id, batch) VALUES ($1, $2, $3)",
            ctx.task_id,
            ctx.worker_id,
            ctx.row["batch"],
        )


async def another_live_worker(pool: asyncpg.Pool) -> str:
    """A registered, freshly seen worker of another service: the sweeper leaves its rows to it
    (it reclaims rows of owners missing from the registry)."""
    worker_id = f"other-{uuid.uuid4().hex[:8]}"
    await pool.execute(
        "INSERT INTO worker_heartbeats (worker_id, service, version, hostname, pid) "
        "VALUES ($1, 'elsewhere', 'dev', 'another-host', 1)",
        worker_id,
    )
    return worker_id


async def wait_until(predicate, timeout: float = 30.0, interval: float = 0.05) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        if await predicate():
            return
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(interval)


async def count_state(pool: asyncpg.Pool, batch: str, state: str) -> int:
    return await pool.fetchval(
        "SELECT count(*) FROM test_tasks WHERE batch = $1 AND state = $2", batch, state
    )


async def test_many_workers_process_each_row_exactly_once(queue_pool, db_settings) -> None:
    batch = batch_name()
    await enqueue(queue_pool, batch, 400)
    stage = Stage(name="test", table="test_tasks", channel="citeproof_test", handler=record_effect)
    pools = [await create_pool(db_settings, max_size=6) for _ in range(4)]
    workers = [
        Worker(service="test", stages=[stage], pool=p, listen_url=None,
               settings=fast_settings(concurrency=4, batch_size=4))
        for p in pools
    ]  # fmt: skip
    try:
        for w in workers:
            await w.start()
        await wait_until(lambda: _all_done(queue_pool, batch, 400))
    finally:
        for w in workers:
            await w.drain(1.0)
        for p in pools:
            await p.close()
    effects = await queue_pool.fetch(
        "SELECT task_id, count(*) AS n FROM test_task_effects WHERE batch = $1 GROUP BY task_id",
        batch,
    )
    assert len(effects) == 400
    assert all(r["n"] == 1 for r in effects)
    workers_used = await queue_pool.fetchval(
        "SELECT count(DISTINCT worker_id) FROM test_task_effects WHERE batch = $1", batch
    )
    assert workers_used >= 2  # the load really was shared
    assert (
        await queue_pool.fetchval("SELECT max(attempts) FROM test_tasks WHERE batch = $1", batch)
        == 1
    )


async def _all_done(pool: asyncpg.Pool, batch: str, n: int) -> bool:
    return await count_state(pool, batch, "succeeded") == n


async def test_expired_lease_is_reclaimed_and_late_completion_is_fenced(queue_pool) -> None:
    batch = batch_name()
    table = private_table_name()  # the sweep below must count this test's row alone
    await ensure_test_table(queue_pool, table)
    await enqueue(queue_pool, batch, 1, table=table)
    release_first = asyncio.Event()
    first_claimed = asyncio.Event()
    first_result: dict[str, object] = {}

    async def slow_then_complete(ctx: TaskContext) -> None:
        first_claimed.set()
        await release_first.wait()
        try:
            await record_effect(ctx)
            first_result["outcome"] = "completed"
        except LeaseLost:
            first_result["outcome"] = "fenced"
            raise

    slow = Stage(name="test", table=table, channel="c1", handler=slow_then_complete)
    fast = Stage(name="test", table=table, channel="c1", handler=record_effect)
    # No heartbeats during the test: the first worker's lease must run out.
    first = Worker(
        service="test",
        stages=[slow],
        pool=queue_pool,
        listen_url=None,
        settings=fast_settings(
            lease_s=1.0, heartbeat_s=0.5, sweep_interval_s=60, concurrency=1, batch_size=1
        ),
    )
    first._heartbeat_loop = _never  # type: ignore[method-assign]
    await first.start()
    lost_before = LEASES_LOST.labels("test")._value.get()
    try:
        await asyncio.wait_for(first_claimed.wait(), 10)
        await asyncio.sleep(1.2)  # the lease is 1 s on the database clock
        assert await sweep_expired(queue_pool, fast, fast_settings()) == 1
        second = Worker(
            service="test",
            stages=[fast],
            pool=queue_pool,
            listen_url=None,
            settings=fast_settings(),
        )
        await second.start()

        async def done() -> bool:
            query = f"SELECT count(*) FROM {table} WHERE batch = $1 AND state = 'succeeded'"
            return await queue_pool.fetchval(query, batch) == 1

        await wait_until(done)
        await second.drain(1.0)
        release_first.set()
        await wait_until(lambda: _has(first_result, "outcome"))
    finally:
        release_first.set()
        await first.drain(1.0)
    assert first_result["outcome"] == "fenced"
    assert LEASES_LOST.labels("test")._value.get() == lost_before + 1
    rows = await queue_pool.fetch("SELECT worker_id FROM test_task_effects WHERE batch = $1", batch)
    assert [r["worker_id"] for r in rows] == [second.worker_id]
    row = await queue_pool.fetchrow(f"SELECT state, attempts FROM {table} WHERE batch = $1", batch)
    await drop_test_table(queue_pool, table)
    assert (row["state"], row["attempts"]) == ("succeeded", 2)


async def _never() -> None:
    await asyncio.Event().wait()


async def _has(d: dict, key: str) -> bool:
    return key in d


async def test_heartbeat_keeps_a_long_task_alive(queue_pool) -> None:
    batch = batch_name()
    await enqueue(queue_pool, batch, 1)

    async def long_task(ctx: TaskContext) -> None:
        await asyncio.sleep(4.0)  # four lease lengths
        await record_effect(ctx)

    stage = Stage(name="test", table="test_tasks", channel="c2", handler=long_task)
    worker = Worker(
        service="test",
        stages=[stage],
        pool=queue_pool,
        listen_url=None,
        settings=fast_settings(lease_s=1.0, heartbeat_s=0.25, sweep_interval_s=0.2),
    )
    await worker.start()
    try:
        await wait_until(lambda: _all_done(queue_pool, batch, 1), timeout=20)
    finally:
        await worker.drain(1.0)
    row = await queue_pool.fetchrow(
        "SELECT attempts, worker_id FROM test_tasks WHERE batch = $1", batch
    )
    assert row["attempts"] == 1
    assert row["worker_id"] == worker.worker_id


async def test_a_stage_with_a_short_lease_is_heartbeated_at_its_own_interval(pool) -> None:
    table = private_table_name()
    await ensure_test_table(pool, table)
    batch = batch_name()
    await enqueue(pool, batch, 1, table=table)

    async def longer_than_the_stage_lease(ctx: TaskContext) -> None:
        await asyncio.sleep(3.0)  # three of the stage's lease lengths

    stage = Stage(
        name="test", table=table, channel="c_own_beat", handler=longer_than_the_stage_lease
    )
    worker = Worker(
        service="test",
        stages=[stage],
        pool=pool,
        listen_url=None,
        # The process-wide beat (2.5 s) is far longer than this stage's 1 s lease.
        settings=fast_settings(lease_s=10.0, heartbeat_s=2.5),
        stage_overrides={"test": fast_settings(lease_s=1.0, heartbeat_s=0.25)},
    )
    await worker.start()
    try:
        query = f"SELECT state, attempts, worker_id FROM {table} WHERE batch = $1"

        async def finished() -> bool:
            return (await pool.fetchrow(query, batch))["state"] in ("succeeded", "dead")

        await wait_until(finished, timeout=30)
        row = await pool.fetchrow(query, batch)
        # Never swept: one attempt, by the worker that claimed it first.
        assert (row["state"], row["attempts"]) == ("succeeded", 1)
        assert row["worker_id"] == worker.worker_id
    finally:
        await worker.drain(1.0)
        await drop_test_table(pool, table)


def _worker_clock_ahead(monkeypatch, seconds: float) -> None:
    """The worker module's clock (and only it) reads `seconds` later than now: how /healthz
    judges a worker after a quiet spell, without waiting for one."""
    import time

    from citeproof.queue import worker as worker_module

    later = time.monotonic() + seconds

    class _Clock:
        @staticmethod
        def monotonic() -> float:
            return later

    monkeypatch.setattr(worker_module, "time", _Clock)


async def test_healthz_judges_a_stage_loop_by_that_stage_poll_interval(pool, monkeypatch) -> None:
    table = private_table_name()
    await ensure_test_table(pool, table)
    stage = Stage(name="test", table=table, channel="c_slow_poll", handler=record_effect)
    quiet = dict(lease_s=600.0, heartbeat_s=20.0, sweep_interval_s=60.0)
    worker = Worker(
        service="test",
        stages=[stage],
        pool=pool,
        listen_url=None,
        settings=fast_settings(poll_interval_s=0.2, **quiet),
        # This stage legitimately wakes once a minute when nothing notifies it.
        stage_overrides={"test": fast_settings(poll_interval_s=60.0, **quiet)},
    )
    await worker.start()
    try:
        await asyncio.sleep(0.3)
        assert worker.is_alive()
        # 40 s later with no event: quiet for this stage, not stalled.
        _worker_clock_ahead(monkeypatch, 40.0)
        assert worker.is_alive()
        # Five of its poll intervals without a tick is a stall.
        _worker_clock_ahead(monkeypatch, 60.0 * 6)
        assert not worker.is_alive()
    finally:
        monkeypatch.undo()
        await worker.drain(1.0)
        await drop_test_table(pool, table)


async def test_a_pruned_worker_registers_again_at_its_next_heartbeat(pool) -> None:
    table = private_table_name()
    await ensure_test_table(pool, table)
    stage = Stage(name="test", table=table, channel="c_pruned", handler=record_effect)
    worker = Worker(
        service="test-pruned",
        stages=[stage],
        pool=pool,
        listen_url=None,
        settings=fast_settings(heartbeat_s=0.2),
        capabilities=["test", "extra"],
    )
    await worker.start()
    try:
        # As the pruning of a worker that was partitioned from the database for a long time.
        await pool.execute("DELETE FROM worker_heartbeats WHERE worker_id = $1", worker.worker_id)

        async def registered() -> bool:
            return bool(
                await pool.fetchval(
                    "SELECT count(*) FROM worker_heartbeats WHERE worker_id = $1",
                    worker.worker_id,
                )
            )

        await wait_until(registered, timeout=5)
        row = await pool.fetchrow(
            "SELECT service, capabilities, pid, draining FROM worker_heartbeats "
            "WHERE worker_id = $1",
            worker.worker_id,
        )
        assert (row["service"], row["capabilities"], row["draining"]) == (
            "test-pruned",
            ["test", "extra"],
            False,
        )
    finally:
        await worker.drain(1.0)
        await drop_test_table(pool, table)


async def _insert_expired(pool, table: str, batch: str, payload: str, expired_s: float) -> int:
    """A row a vanished worker held on its last attempt: the sweeper buries it."""
    return await pool.fetchval(
        f"INSERT INTO {table} (batch, payload, state, attempts, max_attempts, worker_id, "
        "claim_token, claimed_at, lease_expires_at) VALUES ($1, $2, 'running', 1, 1, 'gone', "
        "gen_random_uuid(), now(), now() - make_interval(secs => $3)) RETURNING id",
        batch,
        payload,
        expired_s,
    )


async def test_a_failing_terminal_hook_is_isolated_to_its_row(pool) -> None:
    table = private_table_name()
    await ensure_test_table(pool, table)
    batch = batch_name()
    # The poisoned row expired first, so it sorts first in every sweep.
    poisoned = await _insert_expired(pool, table, batch, "poison", 30)
    await _insert_expired(pool, table, batch, "", 20)
    await _insert_expired(pool, table, batch, "", 10)

    async def bookkeeping(conn, row, outcome) -> None:
        await conn.execute(
            "INSERT INTO test_task_effects (task_id, worker_id, batch) VALUES ($1, $2, $3)",
            row["id"],
            f"hook:{outcome.state}",
            row["batch"],
        )
        if row["payload"] == "poison":
            raise RuntimeError("bookkeeping bug")

    stage = Stage(
        name="test", table=table, channel="c_hook", handler=record_effect, on_terminal=bookkeeping
    )
    worker = Worker(
        service="test", stages=[stage], pool=pool, listen_url=None, settings=fast_settings()
    )
    effects = "SELECT task_id FROM test_task_effects WHERE batch = $1 AND worker_id = 'hook:dead'"
    try:
        await worker.start()  # the boot sweep meets the poisoned row first

        async def others_buried() -> bool:
            return len(await pool.fetch(effects, batch)) == 2

        await wait_until(others_buried, timeout=10)
        # The failing hook's writes were rolled back; its row is dead and says why.
        assert poisoned not in {r["task_id"] for r in await pool.fetch(effects, batch)}
        row = await pool.fetchrow(f"SELECT state, last_error FROM {table} WHERE id = $1", poisoned)
        assert row["state"] == "dead"
        assert "bookkeeping bug" in row["last_error"]
        # The sweeper loop lives on: a row expiring later is buried by it, not at boot.
        late = await _insert_expired(pool, table, batch, "", 1)

        async def late_buried() -> bool:
            return late in {r["task_id"] for r in await pool.fetch(effects, batch)}

        await wait_until(late_buried, timeout=10)
        assert worker.is_alive()
    finally:
        await worker.drain(1.0)
        await drop_test_table(pool, table)


async def test_healthz_reports_a_background_loop_that_ended(pool) -> None:
    table = private_table_name()
    await ensure_test_table(pool, table)
    stage = Stage(name="test", table=table, channel="c_loop_end", handler=record_effect)
    worker = Worker(
        service="test", stages=[stage], pool=pool, listen_url=None, settings=fast_settings()
    )

    async def sweeper_that_crashes() -> None:
        raise RuntimeError("a bug the loop did not expect")

    worker._sweep_loop = sweeper_that_crashes  # type: ignore[method-assign]
    await worker.start()
    try:
        await asyncio.sleep(0.3)
        assert not worker.is_alive()
    finally:
        await worker.drain(1.0)
        await drop_test_table(pool, table)


async def test_healthz_reports_a_stalled_heartbeat_loop(pool, monkeypatch) -> None:
    table = private_table_name()
    await ensure_test_table(pool, table)
    stage = Stage(name="test", table=table, channel="c_beat_stall", handler=record_effect)
    # Claim loop and sweeper are allowed long quiet spells; the heartbeat (1 s) is not.
    settings = fast_settings(poll_interval_s=60.0, sweep_interval_s=60.0, heartbeat_s=1.0)
    worker = Worker(service="test", stages=[stage], pool=pool, listen_url=None, settings=settings)
    worker._heartbeat_loop = _never  # type: ignore[method-assign]  # wedged, never beats
    await worker.start()
    try:
        await asyncio.sleep(0.3)
        assert worker.is_alive()
        _worker_clock_ahead(monkeypatch, 40.0)
        assert not worker.is_alive()
    finally:
        monkeypatch.undo()
        await worker.drain(1.0)
        await drop_test_table(pool, table)


async def _metric_worker(pool, stage_name: str, handler, **stage_kwargs):
    """A started worker on a private table whose stage name labels only this test's metrics."""
    table = private_table_name()
    await ensure_test_table(pool, table)
    stage = Stage(name=stage_name, table=table, channel=f"c_{stage_name}", handler=handler,
                  **stage_kwargs)  # fmt: skip
    worker = Worker(service="test", stages=[stage], pool=pool, listen_url=None,
                    settings=fast_settings(heartbeat_s=0.2, lease_s=5.0))  # fmt: skip
    return table, worker


def _finished(stage_name: str, outcome: str) -> float:
    labels = {"stage": stage_name, "outcome": outcome}
    return REGISTRY.get_sample_value("citeproof_tasks_finished_total", labels) or 0.0


async def test_a_task_whose_failure_could_not_be_recorded_is_not_counted_succeeded(pool) -> None:
    name = f"m_{uuid.uuid4().hex[:6]}"
    finished: list[str] = []

    async def broken(ctx: TaskContext) -> None:
        finished.append("ran")
        raise RuntimeError("handler bug")

    async def hook_bug(conn, row, outcome) -> None:
        raise RuntimeError("bookkeeping bug")  # the bury transaction rolls back

    table, worker = await _metric_worker(pool, name, broken, on_terminal=hook_bug)
    await enqueue(pool, batch_name(), 1, table=table, max_attempts=1)
    await worker.start()
    try:
        await wait_until(lambda: _true_if(finished), timeout=10)
        await asyncio.sleep(0.5)
    finally:
        await worker.drain(1.0)
        await drop_test_table(pool, table)
    assert _finished(name, "succeeded") == 0


async def _true_if(items: list) -> bool:
    return bool(items)


async def test_a_lost_lease_is_counted_once(pool) -> None:
    name = f"m_{uuid.uuid4().hex[:6]}"
    outcomes: list[str] = []
    other = await another_live_worker(pool)

    async def taken_over(ctx: TaskContext) -> None:
        # Another worker's claim replaces ours (as after a sweep and a re-claim) ...
        await pool.execute(
            f"UPDATE {ctx.stage.table} SET claim_token = gen_random_uuid(), worker_id = $2 "
            "WHERE id = $1",
            ctx.task_id,
            other,
        )
        await asyncio.sleep(0.6)  # ... our heartbeat notices ...
        try:
            await record_effect(ctx)  # ... and the fence rejects our completion.
        except LeaseLost:
            outcomes.append("fenced")
            raise

    table, worker = await _metric_worker(pool, name, taken_over)
    await enqueue(pool, batch_name(), 1, table=table)
    await worker.start()
    try:
        await wait_until(lambda: _true_if(outcomes), timeout=10)
    finally:
        await worker.drain(1.0)
        await drop_test_table(pool, table)
    assert LEASES_LOST.labels(name)._value.get() == 1
    assert _finished(name, "lease_lost") == 1


async def test_a_task_that_committed_is_not_counted_as_losing_its_lease(pool) -> None:
    name = f"m_{uuid.uuid4().hex[:6]}"
    worker_ref: list[Worker] = []

    async def commit_then_beat(ctx: TaskContext) -> None:
        await record_effect(ctx)
        # The task's row is committed; a heartbeat before the task leaves the in-flight set
        # no longer finds it running.
        await worker_ref[0].heartbeat()

    table, worker = await _metric_worker(pool, name, commit_then_beat)
    worker_ref.append(worker)
    batch = batch_name()
    await enqueue(pool, batch, 1, table=table)
    await worker.start()
    try:

        async def done() -> bool:
            return _finished(name, "succeeded") == 1

        await wait_until(done, timeout=10)
    finally:
        await worker.drain(1.0)
        await drop_test_table(pool, table)
    assert LEASES_LOST.labels(name)._value.get() == 0


async def test_the_sweeper_does_not_fetch_the_rows_it_requeues(pool) -> None:
    import tracemalloc

    table = private_table_name()
    await ensure_test_table(pool, table)
    stage = Stage(name="test", table=table, channel="c_sweep_mem", handler=record_effect)
    # Ten expired rows of 2 MB each (a parse item's staged bytes can be 50 MiB).
    await pool.execute(
        f"INSERT INTO {table} (batch, payload, state, attempts, max_attempts, worker_id, "
        "claim_token, lease_expires_at) SELECT 'big', repeat('x', 2000000), 'running', 1, 5, "
        "'gone', gen_random_uuid(), now() - interval '1 s' FROM generate_series(1, 10)"
    )
    tracemalloc.start()
    try:
        swept = await sweep_expired(pool, stage, fast_settings())
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        await drop_test_table(pool, table)
    assert swept == 10
    assert peak < 1_000_000, f"sweeping 10 rows allocated {peak / 1e6:.1f} MB"


class _SlowClaimPool:
    """The real pool, but the reply to a claim statement takes a while to arrive: the window
    in which a SIGTERM finds a claim in flight."""

    def __init__(self, pool: asyncpg.Pool, delay_s: float) -> None:
        self._pool = pool
        self._delay_s = delay_s
        self.claim_started = asyncio.Event()

    def __getattr__(self, name: str):
        return getattr(self._pool, name)

    async def fetch(self, query: str, *args, **kwargs):
        rows = await self._pool.fetch(query, *args, **kwargs)
        if "FOR UPDATE SKIP LOCKED" in query and rows:
            self.claim_started.set()
            await asyncio.sleep(self._delay_s)
        return rows


async def test_a_drain_during_a_claim_hands_the_claimed_rows_back(pool) -> None:
    table = private_table_name()
    await ensure_test_table(pool, table)
    batch = batch_name()
    await enqueue(pool, batch, 3, table=table)
    slow = _SlowClaimPool(pool, delay_s=0.5)
    stage = Stage(name="test", table=table, channel="c_drain_claim", handler=record_effect)
    worker = Worker(service="test", stages=[stage], pool=slow, listen_url=None,
                    settings=fast_settings(drain_grace_s=2.0))  # fmt: skip
    try:
        await worker.start()
        await asyncio.wait_for(slow.claim_started.wait(), 10)
        await worker.drain()  # SIGTERM: the claim's reply is still on its way
        rows = await pool.fetch(f"SELECT state, attempts FROM {table} WHERE batch = $1", batch)
        # Each row was either run to the end or handed back uncharged; none is left running.
        assert sorted((r["state"], r["attempts"]) for r in rows) in (
            [("queued", 0)] * 3,
            [("succeeded", 1)] * 3,
        ), rows
    finally:
        await drop_test_table(pool, table)


async def _held_by(pool, table: str, batch: str, owner: str, count: int) -> None:
    """Rows another process claimed a moment ago: their leases run for ten more minutes."""
    await pool.execute(
        f"INSERT INTO {table} (batch, state, attempts, worker_id, claim_token, claimed_at, "
        "lease_expires_at) SELECT $1, 'running', 1, $2, gen_random_uuid(), now(), "
        "now() + interval '10 minutes' FROM generate_series(1, $3)",
        batch,
        owner,
        count,
    )


async def _register(pool, worker_id: str, service: str, pid: int) -> None:
    import socket

    await pool.execute(
        "INSERT INTO worker_heartbeats (worker_id, service, version, capabilities, hostname, "
        "pid) VALUES ($1, $2, 'dev', '{test}', $3, $4)",
        worker_id,
        service,
        socket.gethostname(),
        pid,
    )


async def _a_dead_pid() -> int:
    proc = await asyncio.create_subprocess_exec("true")
    await proc.wait()
    return proc.pid


async def _rows_of(pool, table: str, batch: str) -> list[tuple[str, str]]:
    rows = await pool.fetch(f"SELECT state, worker_id FROM {table} WHERE batch = $1", batch)
    return sorted((r["state"], r["worker_id"]) for r in rows)


@pytest.mark.parametrize("owner", ["deregistered", "killed_on_this_host"])
async def test_a_booting_worker_takes_back_the_rows_of_a_gone_owner_at_once(pool, owner) -> None:
    table = private_table_name()
    await ensure_test_table(pool, table)
    batch = batch_name()
    gone = f"gone-{uuid.uuid4().hex[:6]}"
    service = f"svc-{uuid.uuid4().hex[:6]}"
    if owner == "killed_on_this_host":
        # Registered and seen a moment ago, but its process is dead (kill -9).
        await _register(pool, gone, service, await _a_dead_pid())
    await _held_by(pool, table, batch, gone, 3)
    stage = Stage(name="test", table=table, channel="c_gone_owner", handler=record_effect)
    worker = Worker(service=service, stages=[stage], pool=pool, listen_url=None,
                    settings=fast_settings())  # fmt: skip
    try:
        await worker.start()

        async def all_done() -> bool:
            return await _rows_of(pool, table, batch) == [("succeeded", worker.worker_id)] * 3

        await wait_until(all_done, timeout=10)
        assert not await pool.fetchval(
            "SELECT count(*) FROM worker_heartbeats WHERE worker_id = $1", gone
        )
    finally:
        await worker.drain(1.0)
        await pool.execute("DELETE FROM worker_heartbeats WHERE worker_id = $1", gone)
        await drop_test_table(pool, table)


async def test_rows_of_a_live_neighbour_on_this_host_are_left_to_it(pool) -> None:
    table = private_table_name()
    await ensure_test_table(pool, table)
    batch = batch_name()
    neighbour = f"neighbour-{uuid.uuid4().hex[:6]}"
    service = f"svc-{uuid.uuid4().hex[:6]}"
    alive = await asyncio.create_subprocess_exec("sleep", "30")
    await _register(pool, neighbour, service, alive.pid)
    await _held_by(pool, table, batch, neighbour, 2)
    stage = Stage(name="test", table=table, channel="c_neighbour", handler=record_effect)
    worker = Worker(service=service, stages=[stage], pool=pool, listen_url=None,
                    settings=fast_settings())  # fmt: skip
    try:
        await worker.start()
        await asyncio.sleep(1.5)  # boot sweep and several sweeper passes
        assert await _rows_of(pool, table, batch) == [("running", neighbour)] * 2
    finally:
        alive.kill()
        await alive.wait()
        await worker.drain(1.0)
        await pool.execute("DELETE FROM worker_heartbeats WHERE worker_id = $1", neighbour)
        await drop_test_table(pool, table)


async def test_poller_alone_processes_everything(queue_pool, database_url) -> None:
    batch = batch_name()
    stage = Stage(name="test", table="test_tasks", channel="c3_poll", handler=record_effect)
    worker = Worker(
        service="test",
        stages=[stage],
        pool=queue_pool,
        listen_url=database_url,
        settings=fast_settings(poll_interval_s=0.3),
    )
    await worker.start()
    try:
        # A live listener that loses every notification: only the poller finds the work.
        listener = worker.listener
        assert listener is not None
        await asyncio.wait_for(listener.connected.wait(), 10)
        listener.deliver = False
        async with queue_pool.acquire() as conn, conn.transaction():
            await enqueue(conn, batch, 50)
            await notify(conn, "c3_poll")
        await wait_until(lambda: _all_done(queue_pool, batch, 50))
        assert listener.dropped >= 1  # the notification did arrive, and was lost
    finally:
        await worker.drain(1.0)


async def test_implicit_completions_are_grouped_and_still_fenced(queue_pool) -> None:
    """Handlers that just return are completed in groups; a row taken over by another
    worker while its handler ran is not overwritten, and its task counts a lost lease."""
    batch = batch_name()
    stolen: list[int] = []
    other = await another_live_worker(queue_pool)

    async def steal_one_then_return(ctx: TaskContext) -> None:
        if not stolen:
            stolen.append(ctx.task_id)
            # Another worker's claim replaces ours, as after a sweep and a re-claim.
            await queue_pool.execute(
                "UPDATE test_tasks SET claim_token = gen_random_uuid(), worker_id = $2 "
                "WHERE id = $1",
                ctx.task_id,
                other,
            )

    stage = Stage(name="test", table="test_tasks", channel="c6", handler=steal_one_then_return)
    worker = Worker(
        service="test",
        stages=[stage],
        pool=queue_pool,
        listen_url=None,
        settings=fast_settings(concurrency=8, batch_size=8),
    )
    lost_before = LEASES_LOST.labels("test")._value.get()
    await enqueue(queue_pool, batch, 200)
    await worker.start()
    try:
        await wait_until(lambda: _all_done(queue_pool, batch, 199))
    finally:
        await worker.drain(1.0)
    rows = await queue_pool.fetch(
        "SELECT id, state, worker_id, attempts FROM test_tasks WHERE batch = $1", batch
    )
    by_state = {r["id"]: (r["state"], r["worker_id"]) for r in rows}
    assert by_state.pop(stolen[0]) == ("running", other)
    assert {state for state, _ in by_state.values()} == {"succeeded"}
    assert {r["attempts"] for r in rows} == {1}
    assert LEASES_LOST.labels("test")._value.get() == lost_before + 1


async def test_always_failing_task_ends_dead_with_its_error(queue_pool) -> None:
    batch = batch_name()
    await enqueue(queue_pool, batch, 1, max_attempts=3)
    finished: list[str] = []

    async def broken(ctx: TaskContext) -> None:
        raise RuntimeError(f"boom on attempt {ctx.attempt}")

    terminal: list[tuple[str, str | None]] = []

    async def on_terminal(conn, row, outcome) -> None:
        terminal.append((outcome.state, outcome.error_code))

    stage = Stage(
        name="test", table="test_tasks", channel="c4", handler=broken, on_terminal=on_terminal
    )
    worker = Worker(
        service="test",
        stages=[stage],
        pool=queue_pool,
        listen_url=None,
        settings=fast_settings(),
        hooks=WorkerHooks(on_finished=lambda _s, _r, outcome: finished.append(outcome)),
    )
    await worker.start()
    try:
        await wait_until(lambda: _state_is(queue_pool, batch, "dead"))
    finally:
        await worker.drain(1.0)
    row = await queue_pool.fetchrow(
        "SELECT attempts, last_error, finished_at FROM test_tasks WHERE batch = $1", batch
    )
    assert row["attempts"] == 3
    assert "boom on attempt 3" in row["last_error"]
    assert row["finished_at"] is not None
    assert finished == ["retried", "retried", "dead"]
    assert terminal == [("dead", "internal_error")]


async def _state_is(pool, batch, state) -> bool:
    return await count_state(pool, batch, state) == 1


async def test_notify_wakes_a_worker_long_before_its_poll(queue_pool, database_url) -> None:
    batch = batch_name()
    stage = Stage(name="test", table="test_tasks", channel="citeproof_wake", handler=record_effect)
    worker = Worker(
        service="test",
        stages=[stage],
        pool=queue_pool,
        listen_url=database_url,
        settings=fast_settings(poll_interval_s=60),
    )
    await worker.start()
    try:
        await asyncio.wait_for(worker.listener.connected.wait(), 10)
        async with queue_pool.acquire() as conn, conn.transaction():
            await enqueue(conn, batch, 3)
            await notify(conn, "citeproof_wake")
        await wait_until(lambda: _all_done(queue_pool, batch, 3), timeout=5)
    finally:
        await worker.drain(1.0)


async def test_listener_survives_backend_termination(queue_pool, database_url) -> None:
    batch = batch_name()
    stage = Stage(name="test", table="test_tasks", channel="citeproof_term", handler=record_effect)
    worker = Worker(
        service="test",
        stages=[stage],
        pool=queue_pool,
        listen_url=database_url,
        settings=fast_settings(poll_interval_s=60),
    )
    await worker.start()
    try:
        listener = worker.listener
        await asyncio.wait_for(listener.connected.wait(), 10)
        old_pid = listener.backend_pid
        await queue_pool.execute("SELECT pg_terminate_backend($1)", old_pid)
        # Work queued while the listener is down must still be picked up promptly:
        # the reconnect triggers an immediate claim.
        await enqueue(queue_pool, batch, 2)
        await wait_until(lambda: _reconnected(listener, old_pid), timeout=10)
        await wait_until(lambda: _all_done(queue_pool, batch, 2), timeout=10)
        # And notifications flow again on the new connection.
        batch2 = batch_name()
        async with queue_pool.acquire() as conn, conn.transaction():
            await enqueue(conn, batch2, 1)
            await notify(conn, "citeproof_term")
        await wait_until(lambda: _all_done(queue_pool, batch2, 1), timeout=5)
    finally:
        await worker.drain(1.0)


async def _generic_plan(
    conn: asyncpg.Connection, sql: str, types: str, values: list, *, generic: bool = True
) -> str:
    """EXPLAIN of a prepared statement's plan: the generic one (what a literal-count claim
    runs after its fifth execution) or the one planned for these values."""
    mode = "force_generic_plan" if generic else "force_custom_plan"
    literals = []
    for value in values:
        if isinstance(value, list):
            literals.append("ARRAY[" + ",".join(f"'{v}'" for v in value) + "]::uuid[]")
        elif isinstance(value, str):
            literals.append(f"'{value}'")
        else:
            literals.append(str(value))
    async with conn.transaction():
        await conn.execute(f"SET LOCAL plan_cache_mode = {mode}")
        await conn.execute(f"PREPARE claim_plan ({types}) AS {sql}")
        try:
            rows = await conn.fetch(f"EXPLAIN EXECUTE claim_plan ({', '.join(literals)})")
        finally:
            await conn.execute("DEALLOCATE claim_plan")
    return "\n".join(r["QUERY PLAN"] for r in rows)


async def _reconnected(listener, old_pid) -> bool:
    return listener.connected.is_set() and listener.backend_pid not in (None, old_pid)


async def test_claim_statement_uses_an_index_on_100k_rows(pool, user_id) -> None:
    job = await pool.fetchval("INSERT INTO parse_jobs (user_id) VALUES ($1) RETURNING id", user_id)
    doc = await pool.fetchval(
        "INSERT INTO documents (user_id, sha256, kind, filename, size_bytes) "
        "VALUES ($1, $2, 'source', 'x.pdf', 1) RETURNING id",
        user_id,
        uuid.uuid4().bytes,
    )
    await pool.execute(
        "INSERT INTO parse_items (job_id, user_id, document_id, filename, size_bytes, state) "
        "SELECT $1, $2, $3, 'x.pdf', 1, CASE WHEN g % 10 = 0 THEN 'queued' ELSE 'succeeded' END "
        "FROM generate_series(1, 100000) g",
        job,
        user_id,
        doc,
    )
    await pool.execute("ANALYZE parse_items")
    # Every form of the claim keeps to indexes: the plain claim and the group completion that
    # claims, fair or FIFO, with a full batch written in (planned once per connection: the
    # generic plan is the one that runs) or the count as a parameter (planned per execution).
    plain = (_sql.CLAIM, _sql.COMPLETE_AND_CLAIM)
    fair = (_sql.CLAIM_FAIR, _sql.COMPLETE_AND_CLAIM_FAIR)
    async with pool.acquire() as conn:
        for statement in (*plain, *fair):
            sql = _sql.for_table(statement, "parse_items").replace(
                "{succeeded}", _sql.NO_SUCCESS_SQL
            )
            completes = "done AS" in sql
            values = ["explain-worker", 120.0] + ([[uuid.uuid4()]] if completes else [])
            types = "text, float8" + (", uuid[]" if completes else "")
            plans = [await _generic_plan(conn, _sql.with_limit(sql, 10), types, values)]
            plans.append(await _generic_plan(conn, _sql.with_limit(sql, None), f"{types}, int",
                                             [*values, 10], generic=False))  # fmt: skip
            for text in plans:
                assert "Seq Scan" not in text, text
                assert "parse_items_queued_idx" in text, text
                if statement in fair:
                    # ... and the loose index scan of the users waiting.
                    assert "parse_items_user_queued_idx" in text, text
    await pool.execute("DELETE FROM parse_items WHERE job_id = $1", job)
