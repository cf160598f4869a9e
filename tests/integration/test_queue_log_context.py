"""Every line a handler logs carries its task's context (stage, task, worker, run), and only
its own task's: the fields are computed when a line is written, not bound per task."""

from __future__ import annotations

import asyncio
import json
import logging
import uuid

import structlog

from citeproof.obs.logs import configure_logging
from citeproof.obs.settings import ObservabilitySettings
from citeproof.queue import Stage, TaskContext, Worker

from .queue_support import drop_test_table, enqueue, ensure_test_table, fast_settings
from .queue_support import private_table_name as table_name


async def test_handler_log_lines_carry_their_own_task_context(pool, capfd) -> None:
    configure_logging("test", ObservabilitySettings(log_format="json", log_level="info"))
    table = table_name()
    await ensure_test_table(pool, table)
    batch = f"b-{uuid.uuid4().hex[:8]}"
    both_running = asyncio.Barrier(2)
    ids: set[str] = set()

    async def handler(ctx: TaskContext) -> None:
        ids.add(str(ctx.task_id))
        await both_running.wait()  # two tasks interleave on the loop while they log
        structlog.get_logger("handler").info("handler.says", payload=ctx.row["payload"])
        logging.getLogger("some.library").warning("library says %s", ctx.row["payload"])

    stage = Stage(name="logctx", table=table, channel="c_logctx", handler=handler)
    worker = Worker(service="test", stages=[stage], pool=pool, listen_url=None,
                    settings=fast_settings(concurrency=2, batch_size=2))  # fmt: skip
    await enqueue(pool, batch, 1, table=table, payload="first")
    await enqueue(pool, batch, 1, table=table, payload="second")
    await worker.start()
    try:
        for _ in range(200):
            done = await pool.fetchval(
                f"SELECT count(*) FROM {table} WHERE batch = $1 AND state = 'succeeded'", batch
            )
            if done == 2:
                break
            await asyncio.sleep(0.05)
    finally:
        await worker.drain(1.0)
        await drop_test_table(pool, table)
        logging.getLogger().setLevel(logging.WARNING)
    out, err = capfd.readouterr()
    lines = [json.loads(line) for line in (out + err).splitlines() if line.startswith("{")]
    said = [line for line in lines if line.get("event") == "handler.says"]
    library = [line for line in lines if str(line.get("event", "")).startswith("library says")]
    assert len(said) == 2 and len(library) == 2
    # Each line names its own task (two tasks logged while both were running).
    assert {line["task_id"] for line in said} == ids
    for line in said + library:
        assert line["stage"] == "logctx" and line["worker_id"] == worker.worker_id
        assert line["service"] == "test"
    by_payload = {line["payload"]: line["task_id"] for line in said}
    for line in library:
        payload = line["event"].rsplit(" ", 1)[1]
        assert line["task_id"] == by_payload[payload]
    # Outside a task, lines carry no task fields.
    structlog.get_logger("outside").warning("outside.says")
    out, err = capfd.readouterr()
    outside = [json.loads(x) for x in (out + err).splitlines() if "outside.says" in x]
    assert outside and "task_id" not in outside[0]
