"""Runtime behaviour that needs real OS processes and a real server restart."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import uuid
from pathlib import Path

import asyncpg
import pytest

from citeproof.db.embedded import EmbeddedPostgres
from citeproof.db.migrate import apply_migrations
from citeproof.db.pool import create_pool
from citeproof.db.settings import DatabaseSettings
from citeproof.queue import Stage, Worker, notify

from .queue_support import (
    drop_test_table,
    enqueue,
    ensure_test_table,
    fast_settings,
    private_table_name,
)
from .test_queue_runtime import count_state, record_effect, wait_until

REPO_ROOT = Path(__file__).resolve().parents[2]


def worker_env(database_url: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITEPROOF_")}
    env.update(
        DATABASE_URL=database_url,
        CITEPROOF_POLL_INTERVAL_S="0.2",
        CITEPROOF_LEASE_S="10",
        CITEPROOF_HEARTBEAT_S="1",
        CITEPROOF_WORKER_HTTP_PORT="0",
        CITEPROOF_LOG_FORMAT="json",
        PYTHONPATH=str(REPO_ROOT),
    )
    env.update(extra)
    return env


async def test_sigterm_mid_task_hands_the_row_back_without_charging(pool, database_url) -> None:
    table = private_table_name()  # its row is left queued: no other test must meet it
    await ensure_test_table(pool, table)
    batch = f"sig-{uuid.uuid4().hex[:8]}"
    await enqueue(pool, batch, 1, table=table, payload="60")  # far longer than the grace
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.integration.queue_worker_app",
        env=worker_env(database_url, CITEPROOF_DRAIN_GRACE_S="1", QUEUE_APP_TABLE=table),
        cwd=REPO_ROOT, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        await wait_until(lambda: _is_state(pool, batch, "running", table), timeout=60)
        proc.send_signal(signal.SIGTERM)
        _, stderr = await asyncio.wait_for(proc.communicate(), 30)
        assert proc.returncode == 0, stderr.decode()[-2000:]
        row = await pool.fetchrow(
            f"SELECT state, attempts, claim_token FROM {table} WHERE batch = $1", batch
        )
        assert row["state"] == "queued"
        assert row["attempts"] == 0  # no attempt charged
        assert row["claim_token"] is None
        assert b"task.handed_back" in stderr
        # The worker deregistered itself.
        registered = (
            "SELECT count(*) FROM worker_heartbeats WHERE service = 'testworker' AND pid = $1"
        )
        assert await pool.fetchval(registered, proc.pid) == 0
    finally:
        if proc.returncode is None:
            proc.kill()
        await drop_test_table(pool, table)


async def test_sigterm_lets_a_short_task_finish(pool, database_url) -> None:
    table = private_table_name()
    await ensure_test_table(pool, table)
    batch = f"sig2-{uuid.uuid4().hex[:8]}"
    await enqueue(pool, batch, 1, table=table, payload="1.5")
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.integration.queue_worker_app",
        env=worker_env(database_url, CITEPROOF_DRAIN_GRACE_S="20", QUEUE_APP_TABLE=table),
        cwd=REPO_ROOT, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        await wait_until(lambda: _is_state(pool, batch, "running", table), timeout=60)
        proc.send_signal(signal.SIGTERM)
        await asyncio.wait_for(proc.communicate(), 30)
        assert proc.returncode == 0
        assert await _is_state(pool, batch, "succeeded", table)
    finally:
        if proc.returncode is None:
            proc.kill()
        await drop_test_table(pool, table)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def start_queue_app(database_url: str, table: str, channel: str, **extra: str):
    """A real worker process on a test's own queue table (tests.integration.queue_worker_app)."""
    env = worker_env(
        database_url, QUEUE_APP_TABLE=table, QUEUE_APP_CHANNEL=channel,
        CITEPROOF_DRAIN_GRACE_S="0.5", **extra,
    )  # fmt: skip
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.integration.queue_worker_app",
        env=env, cwd=REPO_ROOT, stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip


async def stop_queue_app(proc: asyncio.subprocess.Process) -> None:
    """SIGTERM (a drain, which deregisters the worker), SIGKILL if it does not end."""
    if proc.returncode is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        await asyncio.wait_for(proc.wait(), 30)
    except TimeoutError:
        proc.kill()
        await proc.wait()


# A worker whose every slot is busy has nothing to do but wait: over this window it may use
# a tenth of its time on the CPU (timer wake-ups, heartbeats, the listener's keepalive).
IDLE_WINDOW_S = 2.0
IDLE_CPU_LIMIT_S = 0.2


# "none": only the listener's connect wake-up arrives while the worker is full.
@pytest.mark.parametrize("more_work", ["none", "row_and_notify"])
async def test_a_worker_at_capacity_waits_without_burning_cpu(
    pool, database_url, more_work
) -> None:
    table, channel = private_table_name(), f"cap_{uuid.uuid4().hex[:8]}"
    await ensure_test_table(pool, table)
    batch = f"cap-{uuid.uuid4().hex[:8]}"
    await enqueue(pool, batch, 1, table=table, payload="8")
    proc = await start_queue_app(
        database_url, table, channel, CITEPROOF_CONCURRENCY="1", CITEPROOF_BATCH_SIZE="1"
    )
    try:
        await wait_until(lambda: _is_state(pool, batch, "running", table=table), timeout=60)
        await asyncio.sleep(0.5)  # the listener connects; start-up work settles
        if more_work == "row_and_notify":
            # Work the full worker cannot take yet, announced the way producers announce it.
            async with pool.acquire() as conn, conn.transaction():
                await enqueue(conn, f"{batch}-more", 1, table=table, payload="0")
                await notify(conn, channel)
        before = cpu_seconds(proc.pid)
        await asyncio.sleep(IDLE_WINDOW_S)
        used = cpu_seconds(proc.pid) - before
        # The task still sleeps: the window measured a worker at capacity.
        assert await _is_state(pool, batch, "running", table=table)
        assert used < IDLE_CPU_LIMIT_S, f"{used:.2f} s of CPU in {IDLE_WINDOW_S} s while full"
    finally:
        await stop_queue_app(proc)
        await drop_test_table(pool, table)


async def _is_state(pool: asyncpg.Pool, batch: str, state: str, table: str = "test_tasks") -> bool:
    query = f"SELECT count(*) FROM {table} WHERE batch = $1 AND state = $2"
    return await pool.fetchval(query, batch, state) == 1


@pytest.mark.slow
async def test_worker_survives_a_full_postgres_restart(tmp_path: Path) -> None:
    # A server of its own: restarting the session's server would disturb other tests.
    server = EmbeddedPostgres(tmp_path / "pg").start()
    try:
        await apply_migrations(server.url())
        settings = DatabaseSettings(url=server.url(), pool_min=0, pool_max=6)
        pool = await create_pool(settings)
        await ensure_test_table(pool)
        stage = Stage(name="test", table="test_tasks", channel="citeproof_restart",
                      handler=record_effect)  # fmt: skip
        worker = Worker(service="test", stages=[stage], pool=pool, listen_url=server.url(),
                        settings=fast_settings(poll_interval_s=0.5))  # fmt: skip
        await worker.start()
        try:
            await asyncio.wait_for(worker.listener.connected.wait(), 10)
            await enqueue(pool, "before", 5)
            await wait_until(lambda: _done(pool, "before", 5), timeout=20)
            old_pid = worker.listener.backend_pid

            await asyncio.to_thread(server.stop)
            await asyncio.sleep(1.0)  # the worker's loops now fail and back off
            await asyncio.to_thread(server.start)

            # Work queued after the restart is processed, and the listener came back.
            await wait_until(lambda: _try_enqueue(pool, "after", 5), timeout=30)
            await wait_until(lambda: _done(pool, "after", 5), timeout=30)
            await wait_until(lambda: _listener_back(worker, old_pid), timeout=30)
        finally:
            await worker.drain(1.0)
            await pool.close()
    finally:
        server.destroy()


async def _done(pool: asyncpg.Pool, batch: str, n: int) -> bool:
    try:
        return await count_state(pool, batch, "succeeded") == n
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError):
        return False


async def _try_enqueue(pool: asyncpg.Pool, batch: str, n: int) -> bool:
    try:
        await enqueue(pool, batch, n)
        return True
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError):
        return False


async def _listener_back(worker: Worker, old_pid: int | None) -> bool:
    listener = worker.listener
    return listener.connected.is_set() and listener.backend_pid not in (None, old_pid)
