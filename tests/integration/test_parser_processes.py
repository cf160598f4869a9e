"""Real `citeproof-parser` processes: a worker killed with SIGKILL mid-item loses nothing; the
lease expires and another worker parses the item to completion."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

import pytest

from tests.integration import test_parser_stage as stage_support
from tests.integration.test_queue_runtime import wait_until
from tests.unit.test_parser_files import make_pdf, paper_pages

# The stage tests' fixtures: a database of the parser tests' own, a pool on it, a fresh user.
parser_database_url = stage_support.parser_database_url
ppool = stage_support.ppool
puser = stage_support.puser
enqueue = stage_support.enqueue
item = stage_support.item

REPO_ROOT = Path(__file__).resolve().parents[2]
PARSER = Path(sys.executable).with_name("citeproof-parser")


def parser_env(database_url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITEPROOF_")}
    env.update(
        DATABASE_URL=database_url,
        DO_NOT_TRACK="1",
        CITEPROOF_POLL_INTERVAL_S="0.2",
        CITEPROOF_LEASE_S="4",
        CITEPROOF_HEARTBEAT_S="1",
        CITEPROOF_SWEEP_INTERVAL_S="0.5",
        CITEPROOF_BACKOFF_BASE_S="0.2",
        CITEPROOF_BACKOFF_MAX_S="1",
        CITEPROOF_WORKER_HTTP_PORT="0",
        CITEPROOF_LOG_FORMAT="json",
        PYTHONPATH=str(REPO_ROOT),
    )
    return env


async def _start(database_url: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        str(PARSER), env=parser_env(database_url), cwd=REPO_ROOT,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip


@pytest.mark.slow
async def test_sigkill_mid_item_is_retried_by_another_parser(
    ppool, puser, parser_database_url
) -> None:
    if not PARSER.exists():
        pytest.skip("citeproof-parser is not installed in this environment")
    job_id, [item_id] = await enqueue(ppool, puser, [("long.pdf", make_pdf(paper_pages(30)))])
    first = await _start(parser_database_url)
    second = None
    try:

        async def claimed() -> bool:
            return (await item(ppool, item_id))["state"] == "running"

        await wait_until(claimed, timeout=120, interval=0.02)
        first_worker = await ppool.fetchval(
            "SELECT worker_id FROM parse_items WHERE id = $1", item_id
        )
        first.send_signal(signal.SIGKILL)
        await first.wait()
        assert (await item(ppool, item_id))["state"] == "running"  # orphaned, lease still held

        second = await _start(parser_database_url)

        async def finished() -> bool:
            return (await item(ppool, item_id))["state"] in {"succeeded", "failed", "dead"}

        await wait_until(finished, timeout=180, interval=0.2)
        row = await ppool.fetchrow(
            "SELECT state, attempts, worker_id, file_bytes IS NULL AS gone FROM parse_items "
            "WHERE id = $1",
            item_id,
        )
        assert row["state"] == "succeeded"
        assert row["attempts"] == 2
        assert row["worker_id"] != first_worker
        assert row["gone"]
        document = await item(ppool, item_id)
        assert document["document_state"] == "parsed" and document["pages"] == 30
        assert await ppool.fetchval("SELECT state FROM parse_jobs WHERE id = $1", job_id) == (
            "succeeded"
        )
        second.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(second.wait(), 60) == 0
    finally:
        for proc in (first, second):
            if proc is not None and proc.returncode is None:
                proc.kill()
                await proc.wait()
