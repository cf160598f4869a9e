"""Claims are fair across users: one user's backlog does not hold every worker while another
user's single item waits (the product's parse stage, in a database of its own)."""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import uuid

import asyncpg

from citeproof.db.pool import create_pool
from citeproof.db.settings import DatabaseSettings
from citeproof.parser.service import ParseService
from citeproof.parser.settings import ParserSettings
from citeproof.queue import TaskContext, Worker

from .queue_support import drop_database, fast_settings, fresh_database

ITEM_S = 0.5
WORKERS = 2
CONCURRENCY = 2
BACKLOG = 40


async def _user_with_document(pool: asyncpg.Pool) -> tuple[uuid.UUID, uuid.UUID, uuid.UUID]:
    user = await pool.fetchval(
        "INSERT INTO users (name) VALUES ($1) RETURNING id", f"fair-{uuid.uuid4().hex[:8]}"
    )
    document = await pool.fetchval(
        "INSERT INTO documents (user_id, sha256, kind, filename, size_bytes) "
        "VALUES ($1, $2, 'source', 'x.pdf', 1) RETURNING id",
        user,
        hashlib.sha256(user.bytes).digest(),
    )
    job = await pool.fetchval("INSERT INTO parse_jobs (user_id) VALUES ($1) RETURNING id", user)
    return user, document, job


async def _enqueue_items(pool, user, document, job, count: int) -> None:
    await pool.execute(
        "INSERT INTO parse_items (job_id, user_id, document_id, filename, size_bytes) "
        "SELECT $1, $2, $3, 'x.pdf', 1 FROM generate_series(1, $4)",
        job,
        user,
        document,
        count,
    )


async def _slow_item(ctx: TaskContext) -> None:
    await asyncio.sleep(ITEM_S)


async def test_one_users_backlog_does_not_hold_another_users_item(database_url) -> None:
    url = await fresh_database(database_url, "citeproof_fair")
    settings = DatabaseSettings(url=url, pool_min=1, pool_max=CONCURRENCY + 4)
    pools = [await create_pool(settings) for _ in range(WORKERS)]
    # The product's parse stage, with a handler that only takes its time.
    stage = dataclasses.replace(ParseService(ParserSettings()).parse_stage, handler=_slow_item)
    workers = [
        Worker(service="parser", stages=[stage], pool=p, listen_url=None,
               settings=fast_settings(concurrency=CONCURRENCY, batch_size=CONCURRENCY))
        for p in pools
    ]  # fmt: skip
    try:
        a_user, a_doc, a_job = await _user_with_document(pools[0])
        b_user, b_doc, b_job = await _user_with_document(pools[0])
        await _enqueue_items(pools[0], a_user, a_doc, a_job, BACKLOG)
        for worker in workers:
            await worker.start()
        await asyncio.sleep(2 * ITEM_S)  # A's backlog holds every slot
        await _enqueue_items(pools[0], b_user, b_doc, b_job, 1)

        async def b_claimed() -> bool:
            return await pools[0].fetchval(
                "SELECT claimed_at IS NOT NULL FROM parse_items WHERE user_id = $1", b_user
            )

        deadline = asyncio.get_running_loop().time() + BACKLOG * ITEM_S
        while not await b_claimed():
            assert asyncio.get_running_loop().time() < deadline, "B was never claimed"
            await asyncio.sleep(0.05)
        b_wait = await pools[0].fetchval(
            "SELECT extract(epoch FROM claimed_at - run_after) FROM parse_items WHERE user_id = $1",
            b_user,
        )
        a_before_b = await pools[0].fetchval(
            "SELECT count(*) FROM parse_items WHERE user_id = $1 AND claimed_at > "
            "(SELECT run_after FROM parse_items WHERE user_id = $2)",
            a_user,
            b_user,
        )
    finally:
        for worker in workers:
            await worker.drain(1.0)
        for p in pools:
            await p.close()
        await drop_database(url)
    # B's item starts when the first slot frees: within about one item's time (FIFO: ~5 s).
    assert float(b_wait) <= 2 * ITEM_S, f"B waited {float(b_wait):.2f} s"
    assert a_before_b <= WORKERS * CONCURRENCY
