"""A judge backend that is down (connection refused) trips the stage's circuit breaker: tasks
stay queued with no attempt charged, the outage is reported, and work resumes by itself when
the backend answers again. A real HTTP server, stopped and started again on its port."""

from __future__ import annotations

import asyncio
import json
import socket

from citeproof.api.runs.services import get_run_status
from citeproof.judge.backend import build_backend
from citeproof.judge.service import JudgeService
from citeproof.judge.settings import load_judge_settings
from citeproof.queue import Worker
from citeproof.retriever.service import RetrieverService
from citeproof.retriever.settings import RetrieverSettings

from .llm_support import FakeOpenAI, Reply
from .queue_support import fast_settings
from .test_judge_stage import _run_to_judging, _world
from .test_queue_runtime import wait_until

VERDICT = json.dumps(
    {"label": "unsupported", "confidence": 0.6, "rationale": "Not in the passages.",
     "quote": None, "passage": None}
)  # fmt: skip


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def test_a_judge_backend_outage_holds_the_tasks_and_work_resumes_when_it_returns(
    pool,
) -> None:
    retriever = RetrieverService(RetrieverSettings())
    user, session, thesis, docs = await _world(pool)
    run = await _run_to_judging(pool, retriever, user, session, thesis, docs)
    port = _free_port()  # nothing listens there yet: connection refused
    settings = load_judge_settings({
        "CITEPROOF_JUDGE_BACKEND": "llm",
        "CITEPROOF_JUDGE_LLM_BASE_URL": f"http://127.0.0.1:{port}/v1",
        "CITEPROOF_JUDGE_LLM_MODEL": f"fake-{port}",  # no cached verdict answers for it
        "CITEPROOF_JUDGE_LLM_API_KEY": "sk-test",
        "CITEPROOF_JUDGE_LLM_MAX_RETRIES": "0",
    })  # fmt: skip
    stage = JudgeService(build_backend(settings)).judge_stage
    worker = Worker(service="judge", stages=[stage], pool=pool, listen_url=None,
                    settings=fast_settings(heartbeat_s=0.2))  # fmt: skip
    tasks = "SELECT state, attempts FROM judge_tasks WHERE run_id = $1"
    try:
        await worker.start()
        await asyncio.sleep(3.0)  # a dozen claim passes and probes against a dead port
        rows = await pool.fetch(tasks, run)
        assert rows and {(r["state"], r["attempts"]) for r in rows} == {("queued", 0)}
        registered = await pool.fetchrow(
            "SELECT capabilities, unavailable FROM worker_heartbeats WHERE worker_id = $1",
            worker.worker_id,
        )
        assert "judge" not in registered["capabilities"]
        assert "judge" in json.loads(registered["unavailable"])
        async with pool.acquire() as conn:
            status = await get_run_status(conn, user, run, 90.0)
        assert any("judge backend unreachable since" in w for w in status.waiting_for), status

        with FakeOpenAI([Reply(content=VERDICT)], port=port):

            async def completed() -> bool:
                return await pool.fetchval("SELECT status FROM runs WHERE id = $1", run) == (
                    "completed"
                )

            await wait_until(completed, timeout=30)
        rows = await pool.fetch(tasks, run)
        assert {(r["state"], r["attempts"]) for r in rows} == {("succeeded", 1)}
        labels = await pool.fetch("SELECT label FROM verdicts WHERE run_id = $1", run)
        assert "judge_error" not in {r["label"] for r in labels}
    finally:
        await worker.drain(1.0)


async def test_an_outage_longer_than_the_limit_fails_the_tasks_as_judge_error(pool) -> None:
    retriever = RetrieverService(RetrieverSettings())
    user, session, thesis, docs = await _world(pool)
    run = await _run_to_judging(pool, retriever, user, session, thesis, docs)
    await pool.execute("UPDATE judge_tasks SET max_attempts = 2 WHERE run_id = $1", run)
    port = _free_port()  # and nothing ever listens there
    settings = load_judge_settings({
        "CITEPROOF_JUDGE_BACKEND": "llm",
        "CITEPROOF_JUDGE_LLM_BASE_URL": f"http://127.0.0.1:{port}/v1",
        "CITEPROOF_JUDGE_LLM_MODEL": f"fake-{port}",
        "CITEPROOF_JUDGE_LLM_API_KEY": "sk-test",
        "CITEPROOF_JUDGE_LLM_MAX_RETRIES": "0",
    })  # fmt: skip
    stage = JudgeService(build_backend(settings)).judge_stage
    limits = fast_settings(heartbeat_s=0.2, dependency_probe_s=0.2, dependency_outage_max_s=1.0)
    worker = Worker(service="judge", stages=[stage], pool=pool, listen_url=None, settings=limits)
    try:
        await worker.start()

        async def completed() -> bool:
            return await pool.fetchval("SELECT status FROM runs WHERE id = $1", run) == (
                "completed"
            )

        await wait_until(completed, timeout=30)
    finally:
        await worker.drain(1.0)
    labels = await pool.fetch(
        "SELECT label FROM verdicts WHERE run_id = $1 AND label <> 'source_missing'", run
    )
    assert [r["label"] for r in labels] == ["judge_error"] * 3
    rows = await pool.fetch("SELECT state, attempts FROM judge_tasks WHERE run_id = $1", run)
    assert {(r["state"], r["attempts"]) for r in rows} == {("dead", 2)}
