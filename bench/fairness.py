"""Fair claiming across users: user A queues 300 slow items, user B one item a second later;
how long does B's item wait for a worker?

Both claims run in the same run on one fresh embedded PostgreSQL: global FIFO (the plain
claim, the baseline) and the fair claim the product's stages use. Items are the product's
`parse_items` rows worked by runtime Workers whose handler only sleeps `--item-s`.
Writes bench/results/fairness.json: `b_wait_s`, `a_items_before_b`, `item_s`, `workers` of the
fair claim at the top (target: b_wait_s <= 1.2 x item_s), the FIFO baseline under `fifo`.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import time
import uuid
from typing import Any

import asyncpg

from bench import common
from citeproof.db.migrate import apply_migrations
from citeproof.db.pool import create_pool
from citeproof.db.settings import DatabaseSettings
from citeproof.obs.logs import configure_logging
from citeproof.obs.settings import ObservabilitySettings
from citeproof.pipeline import PARSE_CHANNEL, PARSE_STAGE, STAGE_TABLES
from citeproof.queue import QueueSettings, Stage, TaskContext, Worker, WorkerHooks

RESULT_NAME = "fairness"
DEFAULT_BACKLOG = 300
DEFAULT_ITEM_S = 1.0
DEFAULT_WORKERS = 4
B_DELAY_S = 1.0
TARGET_RATIO = 1.2
VARIANTS = ("fifo", "fair")


async def _user(pool: asyncpg.Pool) -> tuple[uuid.UUID, uuid.UUID, uuid.UUID]:
    """A user with one document and one parse job to hang items on."""
    user = await pool.fetchval(
        "INSERT INTO users (name) VALUES ($1) RETURNING id", f"bench-{uuid.uuid4().hex[:8]}"
    )
    document = await pool.fetchval(
        "INSERT INTO documents (user_id, sha256, kind, filename, size_bytes) "
        "VALUES ($1, $2, 'source', 'bench.pdf', 1) RETURNING id",
        user,
        hashlib.sha256(user.bytes).digest(),
    )
    job = await pool.fetchval("INSERT INTO parse_jobs (user_id) VALUES ($1) RETURNING id", user)
    return user, document, job


async def _queue(pool: asyncpg.Pool, owner: tuple[Any, Any, Any], count: int) -> None:
    user, document, job = owner
    await pool.execute(
        "INSERT INTO parse_items (job_id, user_id, document_id, filename, size_bytes) "
        "SELECT $1, $2, $3, 'bench.pdf', 1 FROM generate_series(1, $4)",
        job,
        user,
        document,
        count,
    )


async def measure(url: str, variant: str, opts: argparse.Namespace) -> dict[str, float]:
    async def slow_item(_ctx: TaskContext) -> None:
        await asyncio.sleep(opts.item_s)

    stage = Stage(
        name=PARSE_STAGE,
        table=STAGE_TABLES[PARSE_STAGE],
        channel=PARSE_CHANNEL,
        handler=slow_item,
        fair_by_user=variant == "fair",
    )
    db = DatabaseSettings(url=url, pool_min=1, pool_max=4)
    pools = [await create_pool(db) for _ in range(opts.workers)]
    settings = QueueSettings(concurrency=1, worker_http_port=0, drain_grace_s=0).validate()
    b_user: list[uuid.UUID] = []
    b_claimed = asyncio.Event()

    def on_claimed(_stage: str, row: asyncpg.Record) -> None:
        if b_user and row["user_id"] == b_user[0]:
            b_claimed.set()

    hooks = WorkerHooks(on_claimed=on_claimed)
    workers = [
        Worker(service="bench", stages=[stage], pool=p, listen_url=None, settings=settings,
               hooks=hooks)
        for p in pools
    ]  # fmt: skip
    admin = pools[0]
    try:
        a, b = await _user(admin), await _user(admin)
        await _queue(admin, a, opts.backlog)
        for worker in workers:
            await worker.start()
        await asyncio.sleep(B_DELAY_S)
        b_user.append(b[0])
        await _queue(admin, b, 1)
        await b_claimed.wait()
        row = await admin.fetchrow(
            "SELECT extract(epoch FROM b.claimed_at - b.run_after)::float8 AS wait, "
            "(SELECT count(*) FROM parse_items a WHERE a.user_id = $2 "
            " AND a.claimed_at > b.run_after AND a.claimed_at < b.claimed_at) AS before "
            "FROM parse_items b WHERE b.user_id = $1",
            b[0],
            a[0],
        )
    finally:
        for worker in workers:
            await worker.drain(0)
        await admin.execute("DELETE FROM parse_items")
        for p in pools:
            await p.close()
    return {
        "b_wait_s": round(row["wait"], 3),
        "a_items_before_b": int(row["before"]),
        "item_s": opts.item_s,
        "workers": opts.workers,
    }


async def run(url: str, opts: argparse.Namespace) -> dict[str, dict[str, float]]:
    await apply_migrations(url)
    return {variant: await measure(url, variant, opts) for variant in VARIANTS}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backlog", type=int, default=DEFAULT_BACKLOG)
    parser.add_argument("--item-s", type=float, default=DEFAULT_ITEM_S)
    parser.add_argument("--workers", type=int, default=DEFAULT_WORKERS)
    opts = parser.parse_args(argv)
    configure_logging("bench", ObservabilitySettings(log_level="warning"))
    print(
        f"fairness: user A queues {opts.backlog} items of {opts.item_s:g} s, user B one item "
        f"{B_DELAY_S:g} s later; {opts.workers} workers x concurrency 1",
        flush=True,
    )
    began = time.perf_counter()
    with common.fresh_postgres() as url:
        results = asyncio.run(run(url, opts))
    print(f"({time.perf_counter() - began:.0f} s)")
    common.print_table(
        results,
        [
            common.Column("b_wait_s", "B wait s", 2),
            common.Column("a_items_before_b", "A items before B", 0),
        ],
        baseline="fifo",
    )
    fair = results["fair"]
    report = {
        **fair,
        "target_b_wait_s": round(TARGET_RATIO * opts.item_s, 3),
        "meets_target": fair["b_wait_s"] <= TARGET_RATIO * opts.item_s,
        "fifo": results["fifo"],
        "method": (
            f"A queues {opts.backlog} parse_items of {opts.item_s:g} s, B one item "
            f"{B_DELAY_S:g} s later; {opts.workers} runtime Workers (concurrency 1) on one "
            "fresh embedded PostgreSQL; b_wait_s = B's claimed_at - run_after; "
            "a_items_before_b = A's items claimed while B waited; fifo = the plain claim"
        ),
    }
    path = common.write_results(RESULT_NAME, report)
    print(f"wrote {path}")
    return 0 if report["meets_target"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
