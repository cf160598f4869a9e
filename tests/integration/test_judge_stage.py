"""The judge stage on the real database: verdicts, the cache, exactly-once run completion."""

from __future__ import annotations

import asyncio
import uuid

import asyncpg
import pytest

from citeproof.contracts.judging import JudgeRequest, Verdict
from citeproof.judge.backend import build_backend
from citeproof.judge.service import JudgeService
from citeproof.judge.settings import load_judge_settings
from citeproof.pipeline import BANDS
from citeproof.queue import QueueSettings, run_once
from citeproof.retriever.service import RetrieverService
from citeproof.retriever.settings import RetrieverSettings

from .retriever_support import (
    HEAT_ISLANDS,
    HEAT_TITLE,
    SLEEP_MEMORY,
    SLEEP_TITLE,
    Cite,
    add_chunks,
    add_document,
    add_thesis,
    create_run,
    drain,
    new_session,
    new_user,
)

REFERENCES = {
    "1": {"title": HEAT_TITLE, "authors": ["Okafor"], "year": 2021},
    "2": {"title": SLEEP_TITLE, "authors": ["Berg"], "year": 2018},
    "3": {"title": "A paper nobody uploaded", "authors": ["Nobody"], "year": 2001},
}
CITES = [
    Cite("Night-time air temperatures in dense city centres were on average 3.2 degrees Celsius "
         "higher than in the surrounding rural areas [1].", "[1]", ["1"]),
    Cite("Participants who slept for eight hours recalled 20 percent more word pairs than "
         "those kept awake [2].", "[2]", ["2"]),
    Cite("Cool roofs made top-floor apartments much warmer [1, 3].", "[1, 3]", ["1", "3"]),
]  # fmt: skip


class CountingBackend:
    """The real local backend, counting how often it is asked (the cost an LLM would bill)."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.name, self.model, self.prompt_version = inner.name, inner.model, inner.prompt_version
        self.calls = 0

    async def judge(self, request: JudgeRequest) -> Verdict:
        self.calls += 1
        return await self.inner.judge(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


@pytest.fixture(scope="module")
def backend() -> CountingBackend:
    return CountingBackend(build_backend(load_judge_settings({})))


@pytest.fixture(scope="module")
def retriever() -> RetrieverService:
    return RetrieverService(RetrieverSettings())


async def _world(pool: asyncpg.Pool):
    user = await new_user(pool)
    session = await new_session(pool, user)
    heat = await add_document(pool, user, title=HEAT_TITLE, authors=["Okafor"], year=2021,
                              session_id=session)  # fmt: skip
    await add_chunks(pool, user, heat, HEAT_ISLANDS)
    sleep = await add_document(pool, user, title=SLEEP_TITLE, authors=["Berg"], year=2018,
                               session_id=session)  # fmt: skip
    await add_chunks(pool, user, sleep, SLEEP_MEMORY)
    thesis = await add_thesis(pool, user, REFERENCES, CITES, session_id=session)
    return user, session, thesis, [heat, sleep]


async def _run_to_judging(pool, retriever, user, session, thesis, docs) -> uuid.UUID:
    run = await create_run(pool, user, session, thesis.document_id, docs)
    await drain(pool, retriever.plan_stage)
    await drain(pool, retriever.retrieve_stage)
    return run


async def _run_row(pool: asyncpg.Pool, run: uuid.UUID) -> asyncpg.Record:
    return await pool.fetchrow(
        "SELECT status, judged, tasks_total, counts, finished_at FROM runs WHERE id = $1", run
    )


async def test_run_completes_once_with_quoted_verdicts_and_reruns_hit_the_cache(
    pool, backend, retriever
) -> None:
    user, session, thesis, docs = await _world(pool)
    run = await _run_to_judging(pool, retriever, user, session, thesis, docs)
    judge = JudgeService(backend)
    stage = judge.judge_stage
    calls_before = backend.calls
    verdicts_before = _verdicts_counted(backend.name)
    # Two judges race for the tasks: the run must still complete exactly once.
    await asyncio.gather(
        run_once(pool, stage, worker_id="judge-a", batch_size=2),
        run_once(pool, stage, worker_id="judge-b", batch_size=2),
    )
    await drain(pool, stage)
    row = await _run_row(pool, run)
    assert row["status"] == "completed" and row["finished_at"] is not None
    assert row["judged"] == row["tasks_total"] == 3
    verdicts = await pool.fetch(
        "SELECT v.label, v.quote, v.quote_page, v.cached, c.reference_label "
        "FROM verdicts v JOIN citations c ON c.id = v.citation_id WHERE v.run_id = $1",
        run,
    )
    assert len(verdicts) == 4  # three judged, one source_missing written by the planner
    by_label: dict[str, int] = {}
    for v in verdicts:
        by_label[v["label"]] = by_label.get(v["label"], 0) + 1
        if v["label"] in ("supported", "partially_supported", "contradicted"):
            # Verbatim in the evidence, with its page.
            assert any(v["quote"] in text for text in HEAT_ISLANDS + SLEEP_MEMORY), v
            assert v["quote_page"] is not None
    assert {v["label"] for v in verdicts if v["reference_label"] == "3"} == {"source_missing"}
    import json

    assert json.loads(row["counts"]) == by_label
    assert backend.calls - calls_before == 3
    # The verdicts metric counts each judged citation once, by label, despite the race.
    assert _verdicts_counted(backend.name) - verdicts_before == 3

    # The same thesis again: every verdict comes from the cache, no backend call.
    rerun = await _run_to_judging(pool, retriever, user, session, thesis, docs)
    calls_before = backend.calls
    await drain(pool, stage)
    assert backend.calls == calls_before
    assert (await _run_row(pool, rerun))["status"] == "completed"
    cached = await pool.fetch(
        "SELECT v.label, v.cached FROM verdicts v WHERE v.run_id = $1 AND v.backend = $2",
        rerun,
        backend.name,
    )
    assert len(cached) == 3 and all(r["cached"] for r in cached)
    first = await pool.fetch(
        "SELECT citation_id, label FROM verdicts WHERE run_id = $1 ORDER BY citation_id", run
    )
    second = await pool.fetch(
        "SELECT citation_id, label FROM verdicts WHERE run_id = $1 ORDER BY citation_id", rerun
    )
    assert [r["label"] for r in first] == [r["label"] for r in second]


def _verdicts_counted(backend_name: str) -> float:
    from prometheus_client import REGISTRY

    return sum(
        sample.value
        for family in REGISTRY.collect()
        if family.name == "citeproof_judge_verdicts"
        for sample in family.samples
        if sample.name == "citeproof_judge_verdicts_total"
        and sample.labels.get("backend") == backend_name
    )


class BrokenBackend(CountingBackend):
    def __init__(self, inner) -> None:
        super().__init__(inner)
        # Another model: the cache (keyed by backend and model) must not answer for it.
        self.model = "broken-model"

    async def judge(self, request: JudgeRequest) -> Verdict:
        self.calls += 1
        raise RuntimeError("the model server is on fire")


async def test_exhausted_judge_task_becomes_judge_error_and_the_run_completes(
    pool, backend, retriever
) -> None:
    user, session, thesis, docs = await _world(pool)
    run = await _run_to_judging(pool, retriever, user, session, thesis, docs)
    await pool.execute("UPDATE judge_tasks SET max_attempts = 2 WHERE run_id = $1", run)
    broken = BrokenBackend(backend.inner)
    stage = JudgeService(broken).judge_stage
    no_backoff = QueueSettings(backoff_base_s=0, backoff_max_s=0)
    for _ in range(2):
        while await run_once(pool, stage, settings=no_backoff):
            pass
    row = await _run_row(pool, run)
    assert row["status"] == "completed"
    labels = await pool.fetch(
        "SELECT label, rationale FROM verdicts WHERE run_id = $1 AND label <> 'source_missing'",
        run,
    )
    assert len(labels) == 3
    assert all(r["label"] == "judge_error" for r in labels)
    assert all("on fire" in r["rationale"] for r in labels)
    assert (
        await pool.fetchval(
            "SELECT count(*) FROM judge_tasks WHERE run_id = $1 AND state = 'dead'", run
        )
        == 3
    )


async def _cached_rows(pool: asyncpg.Pool, run: uuid.UUID) -> list[bool]:
    rows = await pool.fetch(
        "SELECT cached FROM verdicts WHERE run_id = $1 AND label <> 'source_missing'", run
    )
    return [r["cached"] for r in rows]


async def test_the_verdict_cache_is_per_user_and_goes_with_the_users_documents(
    pool, backend, retriever
) -> None:
    stage = JudgeService(backend).judge_stage
    # A judges the thesis: three backend calls, three cache entries of A's.
    a_user, a_session, a_thesis, a_docs = await _world(pool)
    await _run_to_judging(pool, retriever, a_user, a_session, a_thesis, a_docs)
    await drain(pool, stage)
    a_entries = await pool.fetchval("SELECT count(*) FROM verdict_cache WHERE user_id = $1", a_user)
    assert a_entries == 3

    # B uploads the same claims and the same sources: nothing of A's answers for B — the
    # backend is asked again (so a hit cannot be timed) and B's verdicts are not cached ones.
    b_user, b_session, b_thesis, b_docs = await _world(pool)
    b_run = await _run_to_judging(pool, retriever, b_user, b_session, b_thesis, b_docs)
    calls_before = backend.calls
    await drain(pool, stage)
    assert backend.calls - calls_before == 3
    assert await _cached_rows(pool, b_run) == [False, False, False]

    # Deleting one of A's sources removes the entries made from its text, and only those;
    # deleting A's thesis removes the rest. B's entries stay.
    heat = a_docs[0]
    from_heat = await pool.fetchval(
        "SELECT count(*) FROM verdict_cache WHERE user_id = $1 AND $2 = ANY(document_ids)",
        a_user,
        heat,
    )
    assert 0 < from_heat < a_entries
    await pool.execute("DELETE FROM runs WHERE user_id = $1", a_user)
    await pool.execute("DELETE FROM documents WHERE id = $1", heat)
    assert (
        await pool.fetchval("SELECT count(*) FROM verdict_cache WHERE user_id = $1", a_user)
        == a_entries - from_heat
    )
    await pool.execute("DELETE FROM documents WHERE id = $1", a_thesis.document_id)
    assert await pool.fetchval("SELECT count(*) FROM verdict_cache WHERE user_id = $1", a_user) == 0
    assert await pool.fetchval("SELECT count(*) FROM verdict_cache WHERE user_id = $1", b_user) == 3


class RecordingBackend(CountingBackend):
    """The real local backend, keeping every request it was handed."""

    def __init__(self, inner) -> None:
        super().__init__(inner)
        self.requests: list[JudgeRequest] = []

    async def judge(self, request: JudgeRequest) -> Verdict:
        self.requests.append(request)
        return await super().judge(request)


async def test_the_judge_learns_what_the_parser_knows_about_the_marker_and_bands_every_verdict(
    pool, backend, retriever
) -> None:
    """`[1, 3]` names two works (two citation rows share the marker): the judge is told, and
    told that the sentences with one work have no other marker; every judged verdict is stored
    with its problem probability and band."""
    user, session, thesis, docs = await _world(pool)
    run = await _run_to_judging(pool, retriever, user, session, thesis, docs)
    recording = RecordingBackend(backend.inner)
    recording.model = "recording-model"  # not answered from another test's cache
    await drain(pool, JudgeService(recording).judge_stage)
    works = {r.claim.split()[0]: (r.marker_works, r.other_markers) for r in recording.requests}
    assert works == {"Night-time": (1, 0), "Participants": (1, 0), "Cool": (2, 0)}
    banded = await pool.fetch(
        "SELECT label, problem_probability, band FROM verdicts "
        "WHERE run_id = $1 AND label <> 'source_missing'",
        run,
    )
    assert len(banded) == 3
    for row in banded:
        assert 0.0 <= row["problem_probability"] <= 1.0
        assert row["band"] in BANDS
