"""The stack behind a real PgBouncer in transaction pooling mode: DATABASE_URL through it,
LISTEN_DATABASE_URL direct, CITEPROOF_STATEMENT_CACHE_SIZE=0 (PgBouncer 1.18 cannot follow
named prepared statements). The sample thesis is verified while a worker is killed -9 and
PgBouncer itself is restarted mid-run. `make test-pgbouncer` installs PgBouncer and runs this.
"""

from __future__ import annotations

import asyncio
import json
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from citeproof.db.pool import create_pool
from citeproof.db.settings import DatabaseSettings
from citeproof.devkit.journey import client, outcome, report, submit_thesis, wait_for_run
from citeproof.devstack import DevStack, free_port
from tests.e2e.conftest import _new_user_token
from tests.integration.queue_support import fresh_database

from .pgbouncer import PgBouncer, installed

pytestmark = [pytest.mark.chaos, pytest.mark.timeout(900)]

PARALLEL_CLIENTS = 8
QUERIES_EACH = 25


@pytest.fixture(scope="module")
def bouncer(pg_server) -> Iterator[PgBouncer]:
    if not installed():
        pytest.skip("PgBouncer is not installed: `make test-pgbouncer` installs it")
    if pg_server is None:
        pytest.skip("needs the embedded PostgreSQL (PgBouncer reaches it on its Unix socket)")
    # PgBouncer refuses to run as root: as root, run it as the embedded server's user.
    user = "pgserver" if os.geteuid() == 0 else None
    work_dir = Path(tempfile.mkdtemp(prefix="citeproof-pgbouncer-"))
    pgbouncer = PgBouncer(pg_server.socket_dir, work_dir, free_port(), user)
    pgbouncer.start()
    try:
        yield pgbouncer
    finally:
        pgbouncer.destroy()


def _database(url: str) -> str:
    return urlsplit(url).path.lstrip("/")


async def test_pools_work_through_the_transaction_pooler_with_the_statement_cache_off(
    bouncer, database_url
) -> None:
    settings = DatabaseSettings(
        url=bouncer.url(_database(database_url)), statement_cache_size=0, pool_max=4
    )
    pool = await create_pool(settings)

    async def client_work(i: int) -> None:
        for j in range(QUERIES_EACH):
            async with pool.acquire() as conn, conn.transaction():
                assert await conn.fetchval("SELECT $1::int + $2::int", i, j) == i + j

    try:
        # More clients than pooled connections, transactions interleaved across them.
        await asyncio.gather(*(client_work(i) for i in range(PARALLEL_CLIENTS)))
    finally:
        await pool.close()


def test_the_journey_survives_a_killed_worker_and_a_pgbouncer_restart(
    bouncer, database_url, demo_pdfs, tmp_path
) -> None:
    # A database of its own (its live workers must not claim other tests' rows), migrated
    # over the direct connection, as operations.md prescribes behind a transaction pooler.
    direct = asyncio.run(fresh_database(database_url, "citeproof_pgb"))
    stack = DevStack(
        database_url=bouncer.url(_database(direct)),
        log_dir=tmp_path / "logs",
        env={
            "LISTEN_DATABASE_URL": direct,
            "CITEPROOF_STATEMENT_CACHE_SIZE": "0",
            "CITEPROOF_POLL_INTERVAL_S": "0.5",
            "CITEPROOF_DRAIN_GRACE_S": "10",
        },
    )
    stack.start()
    try:
        stack.wait_ready()
        token = _new_user_token(direct)
        with client(stack.api_url, token) as http:
            run_id = submit_thesis(
                http,
                Path(demo_pdfs["thesis"]),
                [Path(p) for p in demo_pdfs["sources"]],
                name="behind pgbouncer",
            )
            # Mid-run: a worker dies without a word, then the pooler itself goes away.
            time.sleep(2.0)
            parser = next(p for p in stack.processes if p.service == "parser")
            stack.replace(parser, graceful=False)
            bouncer.stop()
            time.sleep(2.0)
            bouncer.start()
            status = wait_for_run(http, run_id)
            assert status["status"] == "completed", status
            body = report(http, run_id).json()
    finally:
        stack.stop()
    expected = json.loads(Path(demo_pdfs["expected"]).read_text())
    expected_citations = sum(len(s["citations"]) for s in expected["sentences"])
    assert len(body["citations"]) == expected_citations
    # Every citation ends judged: a verdict, or the finding a pipeline label is reported as.
    assert all(outcome(c)[0] for c in body["citations"]), body["citations"]
    assert body["summary"]["total"] == expected_citations
