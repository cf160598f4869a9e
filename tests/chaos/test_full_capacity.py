"""Every slot of a worker busy with sleeping tasks while notifications keep arriving (new work
it cannot take yet): the worker must wait, not spin. Measured on a real worker process."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from citeproof.queue import notify
from tests.integration.queue_support import (
    drop_test_table,
    enqueue,
    ensure_test_table,
    private_table_name,
)
from tests.integration.test_queue_processes import cpu_seconds, start_queue_app, stop_queue_app

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
    proc = await start_queue_app(database_url, table, channel, CITEPROOF_CONCURRENCY=str(SLOTS))
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
        await stop_queue_app(proc)
        await drop_test_table(pool, table)
