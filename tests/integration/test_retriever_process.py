"""A real `citeproof-retriever` process is SIGKILLed in the middle of a run; a new one reclaims
its work and the run ends with exactly the evidence a calm, uninterrupted run produces."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

import asyncpg
import pytest

from citeproof.retriever.service import RetrieverService
from citeproof.retriever.settings import RetrieverSettings

from .retriever_support import (
    HEAT_ISLANDS,
    SLEEP_MEMORY,
    SOIL_BACTERIA,
    Cite,
    add_chunks,
    add_document,
    add_thesis,
    create_run,
    drain,
    new_session,
    new_user,
)

pytestmark = pytest.mark.slow

REPO_ROOT = Path(__file__).resolve().parents[2]
SOURCES = {
    "1": ("Urban heat islands and street trees in dense city centres", HEAT_ISLANDS),
    "2": ("Soil bacteria, tillage and mycorrhizal fungi in arable fields", SOIL_BACTERIA),
    "3": ("Sleep, slow waves and the consolidation of declarative memory", SLEEP_MEMORY),
}
CLAIMS = [
    ("Cities are warmer than the countryside at night [1].", "1"),
    ("Shade from trees cools streets at midday [1].", "1"),
    ("Reflective roofs keep top-floor flats cooler [1].", "1"),
    ("Insulation weakens the effect of cool roofs [1].", "1"),
    ("Legumes host nitrogen-fixing bacteria in their roots [2].", "2"),
    ("Ploughing every year destroys fungal networks [2].", "2"),
    ("Fungal networks help plants take up phosphorus [2].", "2"),
    ("Sleeping after study helps people remember word pairs [3].", "3"),
    ("Slow waves replay hippocampal activity [3].", "3"),
    ("Noise that disturbs deep sleep makes recall worse [3].", "3"),
]
REPEATS = 8  # 80 citations: enough work that the kill lands mid-run
KILL_TRIES = 5


def _command() -> list[str]:
    script = Path(sys.executable).with_name("citeproof-retriever")
    return [str(script)] if script.exists() else [sys.executable, "-m", "citeproof.retriever"]


def _env(database_url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITEPROOF_")}
    env.update(
        DATABASE_URL=database_url,
        CITEPROOF_LEASE_S="3",
        CITEPROOF_HEARTBEAT_S="1",
        CITEPROOF_POLL_INTERVAL_S="0.2",
        CITEPROOF_SWEEP_INTERVAL_S="1",
        CITEPROOF_BACKOFF_BASE_S="0.2",
        CITEPROOF_WORKER_HTTP_PORT="0",
        CITEPROOF_RETRIEVE_CONCURRENCY="1",
        CITEPROOF_LOG_FORMAT="json",
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
    )
    return env


async def _start(database_url: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        *_command(), env=_env(database_url), cwd=REPO_ROOT,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip


async def _progress(pool: asyncpg.Pool, run_id) -> asyncpg.Record:
    return await pool.fetchrow(
        "SELECT status, retrieved, tasks_total FROM runs WHERE id = $1", run_id
    )


async def _wait_for(predicate, timeout: float) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not await predicate():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.01)


async def _running(pool: asyncpg.Pool, run_id) -> list[int]:
    rows = await pool.fetch(
        "SELECT id FROM retrieve_tasks WHERE run_id = $1 AND state = 'running'", run_id
    )
    return [r["id"] for r in rows]


async def _evidence(pool: asyncpg.Pool, run_id) -> tuple[list[tuple], list[float]]:
    """(citation, rank, chunk, page, text) of every passage, and all scores in the same order
    (scores are compared with a tolerance: batching may move embeddings in the 7th digit)."""
    rows = await pool.fetch(
        "SELECT * FROM evidence WHERE run_id = $1 ORDER BY citation_id, rank", run_id
    )
    passages = [(r["citation_id"], r["rank"], r["chunk_id"], r["page"], r["text"]) for r in rows]
    scores = [r[k] for r in rows for k in ("vector_score", "bm25_score", "fused_score")]
    return passages, scores


async def test_a_killed_retriever_is_replaced_and_the_run_completes_the_same(
    pool, database_url
) -> None:
    user = await new_user(pool)
    session = await new_session(pool, user)
    sources = []
    for title, texts in SOURCES.values():
        document = await add_document(pool, user, title=title, session_id=session)
        await add_chunks(pool, user, document, texts)
        sources.append(document)
    references = {label: {"title": title} for label, (title, _) in SOURCES.items()}
    cites = [Cite(claim, f"[{label}]", [label]) for claim, label in CLAIMS * REPEATS]
    thesis = await add_thesis(pool, user, references, cites, session_id=session)

    # The calm run, in this process.
    calm = await create_run(pool, user, session, thesis.document_id, sources)
    calm_service = RetrieverService(RetrieverSettings())
    await drain(pool, calm_service.plan_stage)
    await drain(pool, calm_service.retrieve_stage)
    assert (await _progress(pool, calm))["retrieved"] == len(cites)

    # The same thesis again, worked by a real retriever process that dies mid-run - with a
    # task in flight: a kill that lands between two tasks proves nothing, so it is repeated
    # (a new process, killed again) until one hits a task.
    run = await create_run(pool, user, session, thesis.document_id, sources)
    orphaned: list[int] = []
    for _ in range(KILL_TRIES):
        first = await _start(database_url)
        try:

            async def working_mid_run(proc=first) -> bool:
                assert proc.returncode is None, "the retriever exited on its own"
                progress = await _progress(pool, run)
                return progress["retrieved"] >= 3 and bool(await _running(pool, run))

            await _wait_for(working_mid_run, timeout=120)
            first.send_signal(signal.SIGKILL)
            await first.wait()
        finally:
            if first.returncode is None:
                first.kill()
        orphaned = await _running(pool, run)
        if orphaned:
            break
    at_kill = await _progress(pool, run)
    assert orphaned, f"none of {KILL_TRIES} kills hit a task in flight"
    assert 0 < at_kill["retrieved"] < at_kill["tasks_total"] == len(cites)
    print(f"killed after {at_kill['retrieved']} retrievals holding {len(orphaned)} task(s)")

    second = await _start(database_url)
    try:

        async def all_retrieved() -> bool:
            assert second.returncode is None, "the replacement retriever exited"
            progress = await _progress(pool, run)
            return progress["retrieved"] == progress["tasks_total"]

        await _wait_for(all_retrieved, timeout=180)
    finally:
        second.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(second.wait(), 60)
        finally:
            if second.returncode is None:
                second.kill()

    states = await pool.fetch(
        "SELECT state, count(*) AS n FROM retrieve_tasks WHERE run_id = $1 GROUP BY state", run
    )
    assert {r["state"]: r["n"] for r in states} == {"succeeded": len(cites)}
    # The task the dead process held was reclaimed and run a second time.
    reclaimed = await pool.fetch(
        "SELECT attempts FROM retrieve_tasks WHERE id = ANY($1::bigint[])", orphaned
    )
    assert all(r["attempts"] == 2 for r in reclaimed)
    judge_tasks = await pool.fetchval("SELECT count(*) FROM judge_tasks WHERE run_id = $1", run)
    assert judge_tasks == len(cites)
    assert (await _progress(pool, run))["status"] == "judging"
    passages, scores = await _evidence(pool, run)
    calm_passages, calm_scores = await _evidence(pool, calm)
    assert len(passages) >= len(cites)
    assert passages == calm_passages
    assert scores == pytest.approx(calm_scores, abs=1e-4)
