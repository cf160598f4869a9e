"""The baseline's worker: every stage handler of the pipeline in ONE process, called directly.

    python -m bench.e2e.inprocess      (DATABASE_URL: the benchmark's database; stop: SIGTERM)

No service processes, no claim loops, listeners, heartbeats or sweepers: each stage gets a slot
(`SLOTS`) that calls the stage's handler in-process on the next ready row (`run_once`: claim one
row, run the handler inline, record the outcome). The benchmark starts two of these (one per
core) next to the API process; the distributed run has the API and one process per service.
"""

from __future__ import annotations

import argparse
import asyncio
import os

from citeproof.db.pool import create_pool
from citeproof.db.settings import DatabaseSettings
from citeproof.judge.service import JudgeService
from citeproof.obs.logs import configure_logging
from citeproof.obs.settings import ObservabilitySettings
from citeproof.parser.service import ParseService
from citeproof.pipeline import JUDGE_STAGE, PARSE_STAGE, PLAN_STAGE, RETRIEVE_STAGE
from citeproof.queue import run_once
from citeproof.retriever.service import RetrieverService
from citeproof.settings import load

READY = "inprocess-worker-ready"
# A slot that found nothing ready looks again after this long (the services are woken by
# NOTIFY instead; polling this often costs the database little and adds at most this latency).
IDLE_S = 0.1
# Tasks each stage runs at once in one process. One each: the two processes run two of every
# stage at once, and the stages of one process overlap each other's waits on the database.
SLOTS = {PARSE_STAGE: 1, PLAN_STAGE: 1, RETRIEVE_STAGE: 1, JUDGE_STAGE: 1}


async def stage_loop(pool, stage, worker_id: str) -> None:
    """One slot of a stage: run its handler on the next ready row, for ever (the benchmark
    stops the process once it has read its CPU time)."""
    while True:
        if not await run_once(pool, stage, worker_id=worker_id, batch_size=1):
            await asyncio.sleep(IDLE_S)


async def work() -> None:
    services = [ParseService(), RetrieverService(), JudgeService()]
    stages = [stage for service in services for stage in service.stages()]
    slots = sum(SLOTS[stage.name] for stage in stages)
    pool = await create_pool(load(DatabaseSettings), max_size=slots + 2)
    try:
        await asyncio.gather(*(service.warm_up(pool) for service in services))
        print(READY, flush=True)  # the benchmark starts its clock after every worker said so
        worker_id = f"inprocess-{os.getpid()}"
        await asyncio.gather(
            *(
                stage_loop(pool, stage, worker_id)
                for stage in stages
                for _ in range(SLOTS[stage.name])
            )
        )
    finally:
        for service in services:
            service.close()
        await pool.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.parse_args()
    configure_logging("inprocess", ObservabilitySettings(log_level="warning"))
    asyncio.run(work())


if __name__ == "__main__":
    main()
