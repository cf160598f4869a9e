"""Run planning against a real PostgreSQL: waiting for parsing, the single fan-out, and the
verdicts the pipeline decides by itself (reference_missing, source_missing, source_unreadable,
not_checkable)."""

from __future__ import annotations

import asyncio
import json
import uuid

import asyncpg
import pytest

from citeproof.queue import QueueSettings, TaskContext, TerminalOutcome, Worker, run_once
from citeproof.queue._executor import execute
from citeproof.queue._sweeper import sweep_expired
from citeproof.retriever.service import RetrieverService
from citeproof.retriever.settings import RetrieverSettings

from .retriever_support import (
    HEAT_ISLANDS,
    HEAT_TITLE,
    SOIL_BACTERIA,
    Cite,
    add_chunks,
    add_document,
    add_thesis,
    create_run,
    new_session,
    new_user,
    task_citations,
    verdict_labels,
)

SOIL_TITLE = "Nitrogen fixation and mycorrhizal networks under different tillage regimes"
REFERENCES = {
    "1": {"title": HEAT_TITLE, "authors": ["Okafor"], "year": 2021},
    "2": {"title": SOIL_TITLE, "authors": ["Lindqvist"], "year": 2019},
    "3": {
        "title": "A study nobody uploaded about deep sea vents",
        "authors": ["Tan"],
        "year": 2020,
    },
}
CITES = [
    Cite("City centres are about three degrees warmer at night than the countryside [1].", "[1]",
         ["1"]),
    Cite("Tillage halves mycorrhizal fungi within a few seasons [2].", "[2]", ["2"]),
    Cite("Hydrothermal vents host chemosynthetic communities [3].", "[3]", ["3"]),
    Cite("Trees cool city blocks and legumes fix nitrogen [1, 2].", "[1, 2]", ["1", "2"]),
    Cite("This was shown before [9].", "[9]", [None]),
    Cite("See [1].", "[1]", ["1"]),
]  # fmt: skip


@pytest.fixture(scope="module")
def service() -> RetrieverService:
    return RetrieverService(RetrieverSettings())


async def _world(pool: asyncpg.Pool, *, soil_state: str = "parsed"):
    user = await new_user(pool)
    session = await new_session(pool, user)
    heat = await add_document(pool, user, title=HEAT_TITLE, authors=["Okafor"], year=2021,
                              session_id=session)  # fmt: skip
    await add_chunks(pool, user, heat, HEAT_ISLANDS)
    error = "scanned_pdf" if soil_state == "failed" else None
    soil = await add_document(pool, user, title=SOIL_TITLE, authors=["Lindqvist"], year=2019,
                              state=soil_state, session_id=session, error_code=error)  # fmt: skip
    if soil_state == "parsed":
        await add_chunks(pool, user, soil, SOIL_BACTERIA)
    thesis = await add_thesis(pool, user, REFERENCES, CITES, session_id=session)
    run = await create_run(pool, user, session, thesis.document_id, [heat, soil])
    return user, session, heat, soil, thesis, run


async def _run_row(pool: asyncpg.Pool, run_id: uuid.UUID) -> asyncpg.Record:
    return await pool.fetchrow("SELECT * FROM runs WHERE id = $1", run_id)


async def test_planning_waits_for_parsing_then_fans_out(pool, service) -> None:
    _, _, heat, soil, thesis, run = await _world(pool, soil_state="pending")
    assert await run_once(pool, service.plan_stage, worker_id="planner-a") >= 1
    row = await _run_row(pool, run)
    # Snoozed: back in the queue, no attempt charged, nothing fanned out.
    assert (row["state"], row["attempts"], row["status"]) == ("queued", 0, "waiting_for_documents")
    assert await pool.fetchval("SELECT run_after > now() FROM runs WHERE id = $1", run)
    assert await task_citations(pool, run) == {}
    assert await verdict_labels(pool, run) == {}

    # The parser finishes the document and nudges the waiting run.
    await add_chunks(pool, row["user_id"], soil, SOIL_BACTERIA)
    await pool.execute("UPDATE documents SET state = 'parsed' WHERE id = $1", soil)
    await pool.execute(
        "UPDATE runs SET run_after = now() WHERE state = 'queued' "
        "AND status = 'waiting_for_documents' AND $1 = ANY(document_ids)",
        soil,
    )
    await run_once(pool, service.plan_stage, worker_id="planner-a")
    row = await _run_row(pool, run)
    assert (row["state"], row["status"]) == ("succeeded", "retrieving")

    c = thesis.citation_ids
    tasks = await task_citations(pool, run)
    assert tasks == {c[0]: heat, c[1]: soil, c[3]: heat, c[4]: soil}
    labels = await verdict_labels(pool, run)
    assert labels == {c[2]: "source_missing", c[5]: "reference_missing", c[6]: "not_checkable"}
    assert (row["citations_total"], row["tasks_total"]) == (7, 4)
    links = {
        r["reference_id"]: (r["document_id"], r["method"])
        for r in await pool.fetch("SELECT * FROM run_reference_links WHERE run_id = $1", run)
    }
    refs = thesis.reference_ids
    assert links[refs["1"]] == (heat, "title")
    assert links[refs["2"]] == (soil, "title")
    assert links[refs["3"]] == (None, "none")


async def _claim_this_run(pool: asyncpg.Pool, run_id: uuid.UUID, worker_id: str):
    """The claim statement's effect on one chosen run (the shared database holds other
    tests' runs, which a real claim could pick instead)."""
    return await pool.fetchrow(
        "UPDATE runs SET state = 'running', attempts = attempts + 1, worker_id = $2, "
        "claimed_at = now(), lease_expires_at = now() + interval '30 s', "
        "claim_token = gen_random_uuid() WHERE id = $1 AND state = 'queued' RETURNING *",
        run_id,
        worker_id,
    )


async def test_a_parse_that_ends_while_the_run_is_being_planned_is_not_missed(
    pool, service
) -> None:
    from citeproof.parser.service import on_terminal as parse_finished

    user, _, _, soil, _, run = await _world(pool, soil_state="pending")
    job = await pool.fetchval("INSERT INTO parse_jobs (user_id) VALUES ($1) RETURNING id", user)
    item = await pool.fetchrow(
        "INSERT INTO parse_items (job_id, user_id, document_id, filename, size_bytes, state) "
        "VALUES ($1, $2, $3, 'soil.pdf', 1, 'running') RETURNING *",
        job,
        user,
        soil,
    )
    row = await _claim_this_run(pool, run, "planner-a")
    ctx = TaskContext(stage=service.plan_stage, row=row, pool=pool, worker_id="planner-a")
    snooze = ctx.snooze

    async def parse_ends_then_snooze(seconds: float) -> None:
        # The planner has seen the document pending; the parser now stores it and runs its
        # terminal hook (which wakes runs waiting for it) before the planner snoozes.
        await add_chunks(pool, user, soil, SOIL_BACTERIA)
        async with pool.acquire() as conn, conn.transaction():
            await conn.execute("UPDATE documents SET state = 'parsed' WHERE id = $1", soil)
            await parse_finished(conn, item, TerminalOutcome("succeeded"))
        await snooze(seconds)

    ctx.snooze = parse_ends_then_snooze  # type: ignore[method-assign]
    assert await execute(ctx, QueueSettings()) == "handed_back"
    row = await _run_row(pool, run)
    assert (row["state"], row["status"]) == ("queued", "waiting_for_documents")
    # Ready now, not a snooze later.
    assert await pool.fetchval("SELECT run_after <= now() FROM runs WHERE id = $1", run)


async def test_failed_source_is_unreadable(pool, service) -> None:
    _, _, heat, _, thesis, run = await _world(pool, soil_state="failed")
    await run_once(pool, service.plan_stage)
    c = thesis.citation_ids
    labels = await verdict_labels(pool, run)
    assert labels[c[1]] == "source_unreadable"
    assert labels[c[4]] == "source_unreadable"  # the [2] half of "[1, 2]"
    rationale = await pool.fetchval(
        "SELECT rationale FROM verdicts WHERE run_id = $1 AND citation_id = $2", run, c[1]
    )
    assert "scanned_pdf" in rationale
    assert await task_citations(pool, run) == {c[0]: heat, c[3]: heat}


async def test_overrides_beat_the_linker(pool, service) -> None:
    _, session, _, soil, thesis, run = await _world(pool)
    # [1] explicitly has no source; [3] is the soil paper after all.
    await pool.executemany(
        "INSERT INTO reference_overrides (session_id, thesis_document_id, label, document_id) "
        "VALUES ($1, $2, $3, $4)",
        [(session, thesis.document_id, "1", None), (session, thesis.document_id, "3", soil)],
    )
    await run_once(pool, service.plan_stage)
    c = thesis.citation_ids
    labels = await verdict_labels(pool, run)
    assert labels[c[0]] == labels[c[3]] == "source_missing"
    assert "marked as having no uploaded source" in await pool.fetchval(
        "SELECT rationale FROM verdicts WHERE run_id = $1 AND citation_id = $2", run, c[0]
    )
    assert await task_citations(pool, run) == {c[1]: soil, c[2]: soil, c[4]: soil}
    method = await pool.fetchval(
        "SELECT method FROM run_reference_links WHERE run_id = $1 AND reference_id = $2",
        run,
        thesis.reference_ids["3"],
    )
    assert method == "explicit"


async def test_an_override_to_another_users_document_is_ignored(pool, service) -> None:
    _, session, _, _, thesis, run = await _world(pool)
    stranger = await new_user(pool)
    foreign = await add_document(pool, stranger, title="Deep sea vents")
    await pool.execute(
        "INSERT INTO reference_overrides (session_id, thesis_document_id, label, document_id) "
        "VALUES ($1, $2, '3', $3)",
        session,
        thesis.document_id,
        foreign,
    )
    await run_once(pool, service.plan_stage)
    assert (await verdict_labels(pool, run))[thesis.citation_ids[2]] == "source_missing"
    assert foreign not in (await task_citations(pool, run)).values()


async def test_a_thesis_without_citations_completes_and_says_so(pool, service) -> None:
    user = await new_user(pool)
    session = await new_session(pool, user)
    thesis = await add_thesis(pool, user, {}, [], session_id=session)
    run = await create_run(pool, user, session, thesis.document_id, [])
    async with pool.acquire() as conn:
        events: list[str] = []

        def on_event(_conn, _pid, _channel, payload: str) -> None:
            events.append(payload)

        await conn.add_listener("citeproof_events", on_event)
        await run_once(pool, service.plan_stage)
        await asyncio.sleep(0.2)
        await conn.remove_listener("citeproof_events", on_event)
    row = await _run_row(pool, run)
    assert (row["status"], row["message"], row["citations_total"]) == (
        "completed",
        "no citations found",
        0,
    )
    assert str(run) in events


async def test_a_cancelled_run_is_not_fanned_out(pool, service) -> None:
    *_, run = await _world(pool)
    await pool.execute("UPDATE runs SET status = 'cancelled' WHERE id = $1", run)
    await run_once(pool, service.plan_stage)
    assert (await _run_row(pool, run))["state"] == "succeeded"
    assert await task_citations(pool, run) == {}
    assert await verdict_labels(pool, run) == {}


async def test_two_racing_planners_fan_out_each_run_exactly_once(pool, db_settings, service):
    from citeproof.db.pool import create_pool

    runs = []
    for _ in range(6):
        *_, run = await _world(pool)
        runs.append(run)
    settings = QueueSettings(poll_interval_s=0.05, concurrency=2, batch_size=2, heartbeat_s=1,
                             lease_s=30, worker_http_port=0)  # fmt: skip
    pools = [await create_pool(db_settings, max_size=4) for _ in range(2)]
    planners = [RetrieverService(RetrieverSettings()) for _ in range(2)]
    workers = [
        Worker(service="retriever", stages=[p.plan_stage], pool=wp, listen_url=None,
               settings=settings)
        for p, wp in zip(planners, pools, strict=True)
    ]  # fmt: skip
    try:
        for worker in workers:
            await worker.start()
        for _ in range(400):
            states = await pool.fetch("SELECT state FROM runs WHERE id = ANY($1)", runs)
            if all(r["state"] == "succeeded" for r in states):
                break
            await asyncio.sleep(0.05)
    finally:
        for worker in workers:
            await worker.drain(1.0)
        for p in pools:
            await p.close()
    for run in runs:
        row = await _run_row(pool, run)
        assert (row["state"], row["attempts"], row["tasks_total"]) == ("succeeded", 1, 4)
        assert (
            await pool.fetchval("SELECT count(*) FROM retrieve_tasks WHERE run_id = $1", run) == 4
        )
        assert len(await verdict_labels(pool, run)) == 3


async def test_a_planner_that_lost_its_lease_cannot_fan_out_again(pool, service) -> None:
    *_, run = await _world(pool)
    stage = service.plan_stage
    # Planner A claims the run, then stalls past its lease.
    row = await _claim_this_run(pool, run, "planner-a")
    await pool.execute("UPDATE runs SET lease_expires_at = now() - interval '1 s' WHERE id = $1",
                       run)  # fmt: skip
    assert await sweep_expired(pool, stage, QueueSettings()) >= 1
    await pool.execute("UPDATE runs SET run_after = now() WHERE id = $1", run)  # skip the backoff
    # Planner B takes over and plans.
    await run_once(pool, stage, worker_id="planner-b")
    planned = await task_citations(pool, run)
    assert len(planned) == 4
    # A wakes up and runs its (stale) claim to the end: the fence rejects its transaction.
    ctx = TaskContext(stage=stage, row=row, pool=pool, worker_id="planner-a")
    assert await execute(ctx, QueueSettings()) == "lease_lost"
    assert await task_citations(pool, run) == planned
    row = await _run_row(pool, run)
    assert (row["worker_id"], row["tasks_total"]) == ("planner-b", 4)


async def test_a_run_whose_planning_dies_is_failed_not_left_waiting(pool, service) -> None:
    *_, run = await _world(pool)
    async with pool.acquire() as conn, conn.transaction():
        row = await conn.fetchrow("SELECT * FROM runs WHERE id = $1", run)
        await service.planner.on_terminal(
            conn, row, TerminalOutcome("dead", "internal_error", "linker crashed")
        )
    row = await _run_row(pool, run)
    assert row["status"] == "failed"
    assert "linker crashed" in row["message"]


async def test_the_runtime_fails_a_run_whose_planning_keeps_crashing(pool, service) -> None:
    """Through the runtime's own failure path (no direct hook call): the last attempt buries
    the run's planning row and the stage's terminal hook fails the run, in one transaction."""
    import dataclasses

    *_, run = await _world(pool)
    await pool.execute("UPDATE runs SET max_attempts = 1 WHERE id = $1", run)

    async def linker_crash(_ctx: TaskContext) -> None:
        raise RuntimeError("linker crashed")

    stage = dataclasses.replace(service.plan_stage, handler=linker_crash)
    row = await _claim_this_run(pool, run, "planner-a")
    ctx = TaskContext(stage=stage, row=row, pool=pool, worker_id="planner-a")
    assert await execute(ctx, QueueSettings()) == "dead"
    row = await _run_row(pool, run)
    assert (row["state"], row["status"]) == ("dead", "failed")
    assert "linker crashed" in row["message"]


async def test_the_sweeper_fails_a_run_whose_planner_died_on_its_last_attempt(
    pool, service
) -> None:
    *_, run = await _world(pool)
    await pool.execute("UPDATE runs SET max_attempts = 1 WHERE id = $1", run)
    await _claim_this_run(pool, run, "planner-gone")  # a planner that never comes back
    await pool.execute("UPDATE runs SET lease_expires_at = now() - interval '1 s' WHERE id = $1",
                       run)  # fmt: skip
    assert await sweep_expired(pool, service.plan_stage, QueueSettings()) >= 1
    row = await _run_row(pool, run)
    assert (row["state"], row["status"]) == ("dead", "failed")
    assert "planner-gone" in row["message"]


async def test_a_run_with_nothing_checkable_completes_with_its_verdicts(pool, service) -> None:
    user = await new_user(pool)
    session = await new_session(pool, user)
    thesis = await add_thesis(
        pool, user, REFERENCES, [CITES[2], CITES[4]], session_id=session
    )  # [3] has no source, [9] no reference entry
    run = await create_run(pool, user, session, thesis.document_id, [])
    await run_once(pool, service.plan_stage)
    row = await _run_row(pool, run)
    assert (row["status"], row["tasks_total"], row["citations_total"]) == ("completed", 0, 2)
    assert row["message"] == "no citation could be checked against an uploaded source"
    assert set((await verdict_labels(pool, run)).values()) == {
        "source_missing",
        "reference_missing",
    }
    assert json.loads(row["counts"]) == {"source_missing": 1, "reference_missing": 1}
