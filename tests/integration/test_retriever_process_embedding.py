"""A real `citeproof-retriever` process is SIGKILLed while it embeds a source's chunks on demand
(ADR 0022); a new one finishes the run. Nothing it stored is lost or stored twice, the vectors
are the parser's, and the evidence is what a calm run finds."""

from __future__ import annotations

import asyncio
import signal

import asyncpg
import numpy as np
import pytest

from citeproof.embeddings import EmbeddingSettings
from citeproof.embeddings.settings import CHUNKS_ON_DEMAND
from citeproof.retriever.service import RetrieverService
from citeproof.retriever.settings import RetrieverSettings

from .retriever_support import (
    Cite,
    add_chunks,
    add_document,
    add_thesis,
    create_run,
    drain,
    new_session,
    new_user,
)
from .test_retriever_chunk_vectors import CLAIMS, long_source, vectors_by_ordinal
from .test_retriever_process import REPO_ROOT, _command, _env, _evidence, _progress, _wait_for

pytestmark = pytest.mark.slow

TITLE = "Field reports on heat, soil and sleep from thirty districts"
# Every chunk of the source is a candidate, so the first claim embeds all of them: several
# slices, seconds of work, a wide window for the kill.
CHUNKS = 48
KILL_TRIES = 5


async def _start(database_url: str) -> asyncio.subprocess.Process:
    env = _env(database_url) | {"CITEPROOF_RETRIEVER_CANDIDATE_CHUNKS": str(CHUNKS)}
    return await asyncio.create_subprocess_exec(
        *_command(), env=env, cwd=REPO_ROOT,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip


async def _embedded(pool: asyncpg.Pool, document) -> int:
    return await pool.fetchval(
        "SELECT count(embedding) FROM chunks WHERE document_id = $1", document
    )


async def _thesis_world(pool: asyncpg.Pool):
    """A user with one long source (no vectors yet) and a thesis citing it with every claim."""
    user = await new_user(pool)
    session = await new_session(pool, user)
    source = await add_document(pool, user, title=TITLE, session_id=session)
    await add_chunks(pool, user, source, long_source(CHUNKS), embedded=False)
    cites = [Cite(f"{claim[:-1]} [1].", "[1]", ["1"]) for claim in CLAIMS]
    thesis = await add_thesis(pool, user, {"1": {"title": TITLE}}, cites, session_id=session)
    run = await create_run(pool, user, session, thesis.document_id, [source])
    return user, source, run, len(cites)


async def test_a_retriever_killed_mid_embed_loses_nothing(pool, database_url) -> None:
    # The calm run, in this process, on its own copy of the world.
    _, calm_source, calm, citations = await _thesis_world(pool)
    calm_service = RetrieverService(
        RetrieverSettings(candidate_chunks=CHUNKS),
        embeddings=EmbeddingSettings(chunks=CHUNKS_ON_DEMAND),
    )
    await drain(pool, calm_service.plan_stage)
    await drain(pool, calm_service.retrieve_stage)
    assert (await _progress(pool, calm))["retrieved"] == citations
    assert await _embedded(pool, calm_source) == CHUNKS

    _, source, run, _ = await _thesis_world(pool)
    at_kill = 0
    for _ in range(KILL_TRIES):
        process = await _start(database_url)
        try:

            async def embedding(proc=process) -> bool:
                assert proc.returncode is None, "the retriever exited on its own"
                return await _embedded(pool, source) > 0

            await _wait_for(embedding, timeout=120)
            process.send_signal(signal.SIGKILL)
            await process.wait()
        finally:
            if process.returncode is None:
                process.kill()
        at_kill = await _embedded(pool, source)
        if at_kill < CHUNKS:
            break
    assert 0 < at_kill < CHUNKS, f"none of {KILL_TRIES} kills landed mid-embed"
    print(f"killed with {at_kill} of {CHUNKS} chunks embedded")

    replacement = await _start(database_url)
    try:

        async def all_retrieved() -> bool:
            assert replacement.returncode is None, "the replacement retriever exited"
            progress = await _progress(pool, run)
            return progress["retrieved"] == progress["tasks_total"] == citations

        await _wait_for(all_retrieved, timeout=180)
    finally:
        replacement.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(replacement.wait(), 60)
        finally:
            if replacement.returncode is None:
                replacement.kill()

    for mine, calm_vector in zip(
        await vectors_by_ordinal(pool, source),
        await vectors_by_ordinal(pool, calm_source),
        strict=True,
    ):
        np.testing.assert_array_equal(mine, calm_vector)
    passages, scores = await _evidence(pool, run)
    calm_passages, calm_scores = await _evidence(pool, calm)
    # Different copies: compare what the judge reads (rank, page, text), not the chunk ids.
    assert [p[1:2] + p[3:] for p in passages] == [p[1:2] + p[3:] for p in calm_passages]
    assert len(passages) >= citations
    assert scores == pytest.approx(calm_scores, abs=1e-4)
