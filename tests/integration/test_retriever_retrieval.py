"""Hybrid retrieval and the retrieve stage's hand-off, against a real PostgreSQL and the real
local embedder."""

from __future__ import annotations

import uuid

import asyncpg
import pytest

from citeproof.contracts.chunks import EVIDENCE_ROLES
from citeproof.queue import TerminalOutcome
from citeproof.retriever.retrieval import VECTOR_TOP_K
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
    "Okafor2021": {"title": HEAT_TITLE, "authors": ["Okafor"], "year": 2021},
    "Berg2018": {"title": SLEEP_TITLE, "authors": ["Berg"], "year": 2018},
}
CITES = [
    Cite("Dense city centres stay about three degrees warmer at night than rural land "
         "(Okafor et al., 2021).", "(Okafor et al., 2021)", ["Okafor2021"]),
    Cite("Blocks with many street trees are several degrees cooler at noon "
         "(Okafor et al., 2021; Berg, 2018).", "(Okafor et al., 2021; Berg, 2018)",
         ["Okafor2021", "Berg2018"]),
    Cite("Berg (2018) found that sleeping after learning improves recall of word pairs.",
         "Berg (2018)", ["Berg2018"]),
]  # fmt: skip


@pytest.fixture(scope="module")
def service() -> RetrieverService:
    return RetrieverService(RetrieverSettings())


async def _planned_run(pool: asyncpg.Pool, service: RetrieverService, user=None):
    user = user or await new_user(pool)
    session = await new_session(pool, user)
    heat = await add_document(pool, user, title=HEAT_TITLE, authors=["Okafor"], year=2021,
                              session_id=session)  # fmt: skip
    heat_chunks = await add_chunks(pool, user, heat, HEAT_ISLANDS)
    sleep = await add_document(pool, user, title=SLEEP_TITLE, authors=["Berg"], year=2018,
                               session_id=session)  # fmt: skip
    await add_chunks(pool, user, sleep, SLEEP_MEMORY)
    thesis = await add_thesis(pool, user, REFERENCES, CITES, session_id=session)
    run = await create_run(pool, user, session, thesis.document_id, [heat, sleep])
    await drain(pool, service.plan_stage)
    return run, thesis, heat_chunks


async def _evidence(pool: asyncpg.Pool, run_id: uuid.UUID, citation_id: int):
    return await pool.fetch(
        "SELECT * FROM evidence WHERE run_id = $1 AND citation_id = $2 ORDER BY rank",
        run_id,
        citation_id,
    )


async def test_retrieve_stores_ranked_evidence_and_hands_off(pool, service) -> None:
    run, thesis, heat_chunks = await _planned_run(pool, service)
    await drain(pool, service.retrieve_stage)
    c = thesis.citation_ids

    night = await _evidence(pool, run, c[0])
    assert [e["rank"] for e in night] == list(range(1, len(night) + 1))
    assert "3.2 degrees Celsius higher" in night[0]["text"]
    assert (night[0]["chunk_id"], night[0]["page"]) == (heat_chunks[0], 1)
    assert night[0]["vector_score"] > 0 and night[0]["bm25_score"] > 0
    assert [e["fused_score"] for e in night] == sorted((e["fused_score"] for e in night),
                                                       reverse=True)  # fmt: skip
    trees = await _evidence(pool, run, c[1])
    assert "canopy cover" in trees[0]["text"] and trees[0]["page"] == 2
    sleep = await _evidence(pool, run, c[3])
    assert "word pairs" in " ".join(e["text"] for e in sleep[:2])
    # Every passage is a sentence of the source, verbatim.
    for row in night + trees + sleep:
        assert any(row["text"] in text for text in HEAT_ISLANDS + SLEEP_MEMORY)

    run_row = await pool.fetchrow("SELECT status, retrieved FROM runs WHERE id = $1", run)
    assert tuple(run_row) == ("judging", 4)
    judge = await pool.fetch("SELECT citation_id, state FROM judge_tasks WHERE run_id = $1", run)
    assert sorted(r["citation_id"] for r in judge) == sorted(c[:4])
    assert {r["state"] for r in judge} == {"queued"}


async def test_the_query_never_contains_markers(pool, service) -> None:
    _, thesis, _ = await _planned_run(pool, service)
    queries = []
    async with pool.acquire() as conn:
        for citation_id in thesis.citation_ids:
            citation = await conn.fetchrow(
                "SELECT c.*, 'retrieving' AS status FROM citations c WHERE id = $1", citation_id
            )
            queries.append(await service.query_for(conn, citation))
    assert queries == [
        "Dense city centres stay about three degrees warmer at night than rural land.",
        "Blocks with many street trees are several degrees cooler at noon.",
        "Blocks with many street trees are several degrees cooler at noon.",
        "found that sleeping after learning improves recall of word pairs.",
    ]


async def test_retrieval_is_deterministic_with_a_cold_cache(pool, service) -> None:
    user = await new_user(pool)
    document = await add_document(pool, user)
    await add_chunks(pool, user, document, HEAT_ISLANDS + SLEEP_MEMORY)
    query = "Trees make city streets cooler by shading them."
    async with pool.acquire() as conn:
        warm_first = await service.retriever.retrieve(conn, user, document, query)
        warm_again = await service.retriever.retrieve(conn, user, document, query)
        fresh = RetrieverService(RetrieverSettings())
        cold = await fresh.retriever.retrieve(conn, user, document, query)
    assert warm_first == warm_again
    assert [(p.chunk_id, p.text, p.page) for p in cold] == [
        (p.chunk_id, p.text, p.page) for p in warm_first
    ]
    assert [p.fused_score for p in cold] == pytest.approx([p.fused_score for p in warm_first])


async def test_a_user_never_retrieves_another_users_chunks(pool, service) -> None:
    alice, bob = await new_user(pool), await new_user(pool)
    # The same bytes uploaded by both: two documents, two sets of identical chunks.
    alice_doc = await add_document(pool, alice, content="same-bytes")
    bob_doc = await add_document(pool, bob, content="same-bytes")
    alice_chunks = set(await add_chunks(pool, alice, alice_doc, HEAT_ISLANDS))
    bob_chunks = set(await add_chunks(pool, bob, bob_doc, HEAT_ISLANDS))
    query = "City centres are warmer at night."
    async with pool.acquire() as conn:
        # Alice's index is cached first; Bob must still get only his own rows.
        from_alice = await service.retriever.retrieve(conn, alice, alice_doc, query)
        from_bob = await service.retriever.retrieve(conn, bob, bob_doc, query)
        # A task naming Bob's document under Alice's user finds nothing at all.
        crossed = await service.retriever.retrieve(conn, alice, bob_doc, query)
    assert from_alice and {p.chunk_id for p in from_alice} <= alice_chunks
    assert from_bob and {p.chunk_id for p in from_bob} <= bob_chunks
    assert [p.text for p in from_alice] == [p.text for p in from_bob]
    assert crossed == []


async def test_exact_vector_search_never_uses_the_hnsw_index(pool) -> None:
    user = await new_user(pool)
    document = await add_document(pool, user)
    await add_chunks(pool, user, document, HEAT_ISLANDS)
    vector = await pool.fetchval("SELECT embedding FROM chunks WHERE document_id = $1", document)
    async with pool.acquire() as conn, conn.transaction():
        # Push the planner towards indexes as hard as possible.
        await conn.execute("SET LOCAL enable_seqscan = off")
        await conn.execute("SET LOCAL enable_sort = off")
        plan = "\n".join(
            r[0]
            for r in await conn.fetch(
                "EXPLAIN " + VECTOR_TOP_K, user, document, vector, 5, list(EVIDENCE_ROLES)
            )
        )
    assert "hnsw" not in plan.lower()
    # The document's rows come from a b-tree on document_id (either index that leads with it,
    # whichever the planner prefers for the table's statistics) or a plain scan.
    assert any(
        path in plan
        for path in ("chunks_user_document_idx", "chunks_document_id_ordinal_key", "Seq Scan")
    ), plan


async def test_a_cancelled_run_gets_no_evidence_and_no_judge_task(pool, service) -> None:
    run, _, _ = await _planned_run(pool, service)
    await pool.execute("UPDATE runs SET status = 'cancelled' WHERE id = $1", run)
    await drain(pool, service.retrieve_stage)
    states = await pool.fetch("SELECT state FROM retrieve_tasks WHERE run_id = $1", run)
    assert {r["state"] for r in states} == {"succeeded"}
    assert await pool.fetchval("SELECT count(*) FROM evidence WHERE run_id = $1", run) == 0
    assert await pool.fetchval("SELECT count(*) FROM judge_tasks WHERE run_id = $1", run) == 0
    assert await pool.fetchval("SELECT status FROM runs WHERE id = $1", run) == "cancelled"


async def test_a_dead_retrieval_does_not_hold_the_run_back(pool, service) -> None:
    run, thesis, _ = await _planned_run(pool, service)
    tasks = await pool.fetch("SELECT * FROM retrieve_tasks WHERE run_id = $1 ORDER BY id", run)
    # Three tasks retrieve and are judged; the fourth dies.
    await pool.execute("UPDATE runs SET judged = 3 WHERE id = $1", run)
    async with pool.acquire() as conn, conn.transaction():
        await service.on_retrieve_terminal(
            conn, tasks[-1], TerminalOutcome("dead", "internal_error", "boom")
        )
    row = await pool.fetchrow("SELECT status, judged, counts FROM runs WHERE id = $1", run)
    assert (row["status"], row["judged"]) == ("completed", 4)
    verdict = await pool.fetchrow(
        "SELECT label, rationale FROM verdicts WHERE run_id = $1 AND citation_id = $2",
        run,
        tasks[-1]["citation_id"],
    )
    assert verdict["label"] == "judge_error" and "boom" in verdict["rationale"]
    assert thesis.citation_ids  # the thesis had citations to judge


async def test_retrieval_holds_no_pooled_connection_while_embedding(pool, db_settings) -> None:
    import asyncio

    from citeproof.db.pool import create_pool
    from citeproof.queue import TaskContext
    from citeproof.queue._executor import execute
    from citeproof.queue.settings import QueueSettings
    from citeproof.retriever.service import default_embed

    one = await create_pool(db_settings, min_size=1, max_size=1)
    free_while_embedding: list[bool] = []

    async def probing_embed(texts: list[str]):
        # With a pool of one connection, the embedding step can only get it if retrieval
        # does not hold it across the (slow, CPU-bound) embedding.
        try:
            async with asyncio.timeout(2):
                conn = await one.acquire()
            await one.release(conn)
            free_while_embedding.append(True)
        except TimeoutError:
            free_while_embedding.append(False)
        return await default_embed(texts)

    probing = RetrieverService(RetrieverSettings(), embed=probing_embed)
    try:
        run, _, _ = await _planned_run(pool, service=probing)
        # Claim this run's tasks only: the session's database holds other tests' tasks.
        rows = await pool.fetch(
            "UPDATE retrieve_tasks SET state = 'running', attempts = attempts + 1, "
            "worker_id = 'probe', claim_token = gen_random_uuid(), "
            "lease_expires_at = now() + interval '60 s' WHERE run_id = $1 RETURNING *",
            run,
        )
        for row in rows:
            ctx = TaskContext(stage=probing.retrieve_stage, row=row, pool=one, worker_id="probe")
            assert await execute(ctx, QueueSettings()) == "succeeded"
    finally:
        await one.close()
    assert free_while_embedding and all(free_while_embedding)


async def test_the_document_index_is_built_off_the_event_loop(pool, monkeypatch) -> None:
    import threading

    from citeproof.retriever import index as index_module

    user = await new_user(pool)
    document = await add_document(pool, user)
    await add_chunks(pool, user, document, HEAT_ISLANDS + SLEEP_MEMORY)
    built_on: list[bool] = []
    original = index_module.DocumentIndex.build.__func__

    def recording_build(cls, *args, **kwargs):
        built_on.append(threading.current_thread() is threading.main_thread())
        return original(cls, *args, **kwargs)

    monkeypatch.setattr(index_module.DocumentIndex, "build", classmethod(recording_build))
    cold = RetrieverService(RetrieverSettings())
    passages = await cold.retriever.retrieve(pool, user, document, "Trees cool city streets.")
    assert passages
    assert built_on == [False]  # built once, in a worker thread


async def test_a_re_parsed_document_is_not_served_from_its_old_index(pool) -> None:
    user = await new_user(pool)
    document = await add_document(pool, user)
    await add_chunks(pool, user, document, HEAT_ISLANDS)
    warm = RetrieverService(RetrieverSettings())
    query = "Sleeping after learning improves memory of word pairs."
    assert await warm.retriever.retrieve(pool, user, document, query)  # cached: heat text
    # The same document id parsed again (a failed parse retried, a source re-sent as the
    # thesis): new chunks, new parse time - as the parser's store writes them.
    await pool.execute("DELETE FROM chunks WHERE document_id = $1", document)
    new_chunks = set(await add_chunks(pool, user, document, SLEEP_MEMORY))
    await pool.execute("UPDATE documents SET parsed_at = now() WHERE id = $1", document)
    passages = await warm.retriever.retrieve(pool, user, document, query)
    assert passages
    assert {p.chunk_id for p in passages} <= new_chunks
    assert all(p.text in " ".join(SLEEP_MEMORY) for p in passages)


async def test_the_runtime_writes_the_verdict_of_a_retrieval_that_keeps_crashing(
    pool, service
) -> None:
    """Through the runtime's own failure path (no direct hook call): the last attempt buries
    the task and the stage's terminal hook records a judge_error verdict for its citation."""
    import dataclasses

    from citeproof.queue import TaskContext
    from citeproof.queue._executor import execute
    from citeproof.queue.settings import QueueSettings

    run, _, _ = await _planned_run(pool, service)

    async def index_crash(_ctx: TaskContext) -> None:
        raise RuntimeError("index build crashed")

    stage = dataclasses.replace(service.retrieve_stage, handler=index_crash)
    # This run's first task only: the session's database holds other tests' tasks.
    row = await pool.fetchrow(
        "UPDATE retrieve_tasks SET state = 'running', attempts = attempts + 1, max_attempts = 1,"
        " worker_id = 'crashy', claim_token = gen_random_uuid(), "
        "lease_expires_at = now() + interval '60 s' "
        "WHERE id = (SELECT min(id) FROM retrieve_tasks WHERE run_id = $1) RETURNING *",
        run,
    )
    ctx = TaskContext(stage=stage, row=row, pool=pool, worker_id="crashy")
    assert await execute(ctx, QueueSettings()) == "dead"
    verdict = await pool.fetchrow(
        "SELECT label, rationale FROM verdicts WHERE run_id = $1 AND citation_id = $2",
        run,
        row["citation_id"],
    )
    assert verdict["label"] == "judge_error" and "index build crashed" in verdict["rationale"]
