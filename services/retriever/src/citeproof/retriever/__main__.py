"""`citeproof-retriever`: the worker process that plans runs and retrieves evidence."""

from __future__ import annotations

import asyncpg

from citeproof.queue import run_worker
from citeproof.retriever.service import RetrieverService, configure_process


def main() -> None:
    retriever = RetrieverService()
    configure_process(retriever.settings)

    async def warm_up(_pool: asyncpg.Pool) -> None:
        # Load the embedding model before claiming, so the first task does not pay for it while
        # holding a lease (and /healthz is honest about when we can work).
        await retriever.retriever.embed(["warm-up"])

    run_worker(
        service="retriever",
        stages=[retriever.plan_stage, retriever.retrieve_stage],
        capabilities=["plan", "retrieve"],
        on_start=warm_up,
    )


if __name__ == "__main__":
    main()
