"""`citeproof-parser`: the parse-stage worker process."""

from __future__ import annotations

import os

from citeproof.parser.service import ParseService, expire_staged_bytes
from citeproof.queue import PeriodicJob, run_worker

CAPABILITIES = ["parse:pdf", "parse:docx", "parse:html", "parse:markdown", "parse:text"]


def main() -> None:
    os.environ.setdefault("DO_NOT_TRACK", "1")
    # Parsing is CPU-bound and a claimed row carries the whole upload: claim one item at a
    # time so that idle replicas share a burst instead of one worker hoarding it.
    os.environ.setdefault("CITEPROOF_PARSE_BATCH_SIZE", "1")
    os.environ.setdefault("CITEPROOF_PARSE_CONCURRENCY", "2")
    service = ParseService()

    async def staged_ttl(pool) -> int:
        return await expire_staged_bytes(pool, service.settings.staged_ttl_s)

    try:
        run_worker(
            service="parser",
            stages=[service.stage()],
            capabilities=CAPABILITIES,
            periodic=[
                PeriodicJob(
                    name="staged_bytes_ttl",
                    interval_s=service.settings.staged_ttl_interval_s,
                    run=staged_ttl,
                )
            ],
            on_start=service.warm_up,
        )
    finally:
        service.sandbox.close()


if __name__ == "__main__":
    main()
