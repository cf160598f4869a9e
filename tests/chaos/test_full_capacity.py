"""Every slot of a worker busy with sleeping tasks while notifications keep arriving (new work
it cannot take yet): the worker must wait, not spin. Measured on a real worker process."""

from __future__ import annotations

import asyncio
import signal
import sys
import uuid

import pytest

from citeproof.queue import notify
from tests.integration.queue_support import (
    drop_test_table,
    enqueue,
    ensure_test_table,
    private_table_name,
)
from tests.integration.test_queue_processes import REPO_ROOT, cpu_seconds, worker_env

pytestmark = pytest.mark.chaos

SLOTS = 4
WINDOW_S = 5.0
# Under 5% of one core while full: timer wake-ups, heartbeats and keepalives only.
MAX_CORE_SHARE = 0.05
NOTIFY_EVERY_S = 0.05


async def test_a_full_worker_with_notifications_arriving_uses_under_5_percent_of_a_core(
    pool, database_url
) -> None:
    table, channel = private_table_name(), f"full_{uuid.uuid4().hex[:8]}"
    await ensure_test_table(pool, table)
    batch = f"full-{uuid.uuid4().hex[:8]}"
    await enqueue(pool, batch, SLOTS, table=table, payload="30")  # far longer than the window
    env = worker_env(
        database_url,
        CITEPROOF_CONCURRENCY=str(SLOTS),
        CITEPROOF_DRAIN_GRACE_S="0.5",
        QUEUE_APP_TABLE=table,
        QUEUE_APP_CHANNEL=channel,
    )
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.integration.queue_worker_app",
        env=env, cwd=REPO_ROOT, stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    query = f"SELECT count(*) FROM {table} WHERE batch = $1 AND state = 'running'"
    try:
        while await pool.fetchval(query, batch) < SLOTS:
            assert proc.returncode is None, "the worker exited"
            await asyncio.sleep(0.1)
        await asyncio.sleep(0.5)  # start-up work settles
        before = cpu_seconds(proc.pid)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + WINDOW_S
        notifications = 0
        while loop.time() < deadline:
            # More work, announced the way producers announce it, that no slot can take.
            async with pool.acquire() as conn, conn.transaction():
                await enqueue(conn, f"{batch}-more", 1, table=table, payload="0")
                await notify(conn, channel)
            notifications += 1
            await asyncio.sleep(NOTIFY_EVERY_S)
        used = cpu_seconds(proc.pid) - before
        assert await pool.fetchval(query, batch) == SLOTS  # still full the whole time
        share = used / WINDOW_S
        print(f"full worker: {used:.3f} s CPU in {WINDOW_S} s ({share:.1%} of a core), "
              f"{notifications} notifications")  # fmt: skip
        assert share < MAX_CORE_SHARE
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(proc.wait(), 30)
            except TimeoutError:
                proc.kill()
                await proc.wait()
        await drop_test_table(pool, table)
