"""A worker process on the test queue table, for tests that need a real OS process.

Run as `python -m tests.integration.queue_worker_app`; each task sleeps for the number of
seconds in its payload, then records its effect. QUEUE_APP_TABLE / QUEUE_APP_CHANNEL point it
at a test's own queue table, so it never claims rows another test left in the shared one.
"""

from __future__ import annotations

import asyncio
import os

from citeproof.queue import Stage, TaskContext, run_worker


async def sleepy(ctx: TaskContext) -> None:
    await asyncio.sleep(float(ctx.row["payload"] or 0))
    async with ctx.complete() as conn:
        await conn.execute(
            "INSERT INTO test_task_effects (task_id, worker_id, batch) VALUES ($1, $2, $3)",
            ctx.task_id,
            ctx.worker_id,
            ctx.row["batch"],
        )


STAGE = Stage(
    name="test",
    table=os.environ.get("QUEUE_APP_TABLE", "test_tasks"),
    channel=os.environ.get("QUEUE_APP_CHANNEL", "citeproof_test_app"),
    handler=sleepy,
)

if __name__ == "__main__":
    run_worker(service="testworker", stages=[STAGE])
