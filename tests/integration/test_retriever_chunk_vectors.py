"""On-demand chunk embeddings (ADR 0022) against a real PostgreSQL and the real local embedder:
a chunk is embedded the first time a claim needs it, stored once, reused, and ranked exactly
as if the parser had embedded it."""

from __future__ import annotations

import asyncio
import uuid

import asyncpg
import numpy as np
import pytest

from citeproof.retriever.cache import IndexCache
from citeproof.retriever.chunk_vectors import EMBED_SLICE_CHUNKS, ChunkVectors
from citeproof.retriever.index import DocumentIndex
from citeproof.retriever.retrieval import EvidencePassage, Retriever
from citeproof.retriever.service import default_embed, default_embed_chunks
from citeproof.retriever.settings import DEFAULT_CANDIDATE_CHUNKS, RetrieverSettings

from .retriever_support import (
    HEAT_ISLANDS,
    SLEEP_MEMORY,
    SOIL_BACTERIA,
    add_chunks,
    add_document,
    new_user,
)

CLAIMS = (
    "City centres stay about three degrees warmer at night than the countryside.",
    "Blocks with many street trees are cooler at midday.",
    "Legumes host nitrogen-fixing bacteria in their root nodules.",
    "Sleeping after learning improves the recall of word pairs.",
)
PARAGRAPHS = (*HEAT_ISLANDS, *SOIL_BACTERIA, *SLEEP_MEMORY)
# Depth of the candidate list in the tests on long sources (the default is larger).
DEPTH = 6


def long_source(count: int) -> list[str]:
    """`count` distinct chunk texts, each one of the fixture paragraphs in its own district."""
    return [
        f"Field report {i} from district {i * 7 % 31}. {PARAGRAPHS[i % len(PARAGRAPHS)]} The "
        f"survey counted {i * 37 % 101} stations and {i * 13 % 17} missing records."
        for i in range(count)
    ]


def cache() -> IndexCache:
    return IndexCache(1 << 28, 3600.0)


class Counting:
    """The chunk embedder, counting the texts it embedded."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    async def __call__(self, texts: list[str]) -> np.ndarray:
        self.texts.extend(texts)
        return await default_embed_chunks(texts)


def on_demand(settings: RetrieverSettings | None = None, embed_chunks=None) -> Retriever:
    vectors = ChunkVectors(embed_chunks or default_embed_chunks)
    return Retriever(settings or RetrieverSettings(), cache(), default_embed, vectors)


def shown(passages: list[EvidencePassage]) -> list[tuple]:
    return [(p.rank, p.page, p.text) for p in passages]


def scores(passages: list[EvidencePassage]) -> list[float | None]:
    return [s for p in passages for s in (p.vector_score, p.bm25_score, p.fused_score)]


async def vectors_by_ordinal(pool: asyncpg.Pool, document_id: uuid.UUID) -> list:
    rows = await pool.fetch(
        "SELECT embedding FROM chunks WHERE document_id = $1 ORDER BY ordinal", document_id
    )
    return [None if r["embedding"] is None else r["embedding"].to_numpy() for r in rows]


async def two_copies(
    pool: asyncpg.Pool, texts: list[str]
) -> tuple[uuid.UUID, uuid.UUID, uuid.UUID]:
    """The same source twice for one user: embedded at parse time, and not embedded."""
    user = await new_user(pool)
    at_parse = await add_document(pool, user)
    await add_chunks(pool, user, at_parse, texts)
    lazy = await add_document(pool, user)
    await add_chunks(pool, user, lazy, texts, embedded=False)
    return user, at_parse, lazy


async def test_a_small_source_embedded_on_demand_ranks_as_the_parse_time_vectors_do(
    pool,
) -> None:
    small = list(PARAGRAPHS[:DEFAULT_CANDIDATE_CHUNKS])  # no more chunks than the depth
    user, at_parse, lazy = await two_copies(pool, small)
    eager = Retriever(RetrieverSettings(), cache(), default_embed)  # every chunk embedded
    retriever = on_demand()
    for claim in CLAIMS:
        expected = await eager.retrieve(pool, user, at_parse, claim)
        got = await retriever.retrieve(pool, user, lazy, claim)
        assert shown(got) == shown(expected)
        assert scores(got) == pytest.approx(scores(expected), abs=1e-6)
    # A small source is embedded whole, with the very vectors the parser stores.
    stored, parsed = await vectors_by_ordinal(pool, lazy), await vectors_by_ordinal(pool, at_parse)
    assert all(v is not None for v in stored)
    for mine, theirs in zip(stored, parsed, strict=True):
        np.testing.assert_array_equal(mine, theirs)


async def test_a_long_source_embeds_only_the_claims_candidates_and_reuses_them(pool) -> None:
    texts = long_source(30)
    user, _, lazy = await two_copies(pool, texts)
    counting = Counting()
    retriever = on_demand(RetrieverSettings(candidate_chunks=DEPTH), counting)
    first = await retriever.retrieve(pool, user, lazy, CLAIMS[0])
    assert first
    embedded = sum(v is not None for v in await vectors_by_ordinal(pool, lazy))
    assert 0 < embedded <= DEPTH == len(counting.texts)
    # The same claim again, and from another process: nothing is embedded twice.
    again = await retriever.retrieve(pool, user, lazy, CLAIMS[0])
    other_process = on_demand(RetrieverSettings(candidate_chunks=DEPTH), counting)
    elsewhere = await other_process.retrieve(pool, user, lazy, CLAIMS[0])
    assert shown(again) == shown(elsewhere) == shown(first)
    assert len(counting.texts) == DEPTH


async def test_a_claim_retrieves_the_same_whatever_other_claims_embedded_before(pool) -> None:
    texts = long_source(30)
    user = await new_user(pool)
    fresh, worn = await add_document(pool, user), await add_document(pool, user)
    await add_chunks(pool, user, fresh, texts, embedded=False)
    await add_chunks(pool, user, worn, texts, embedded=False)
    settings = RetrieverSettings(candidate_chunks=DEPTH)
    history = on_demand(settings)
    for claim in CLAIMS[1:]:
        await history.retrieve(pool, user, worn, claim)  # embeds other chunks first
    after_others = await history.retrieve(pool, user, worn, CLAIMS[0])
    alone = await on_demand(settings).retrieve(pool, user, fresh, CLAIMS[0])
    assert shown(after_others) == shown(alone)
    assert scores(after_others) == pytest.approx(scores(alone), abs=1e-6)


async def _index(pool: asyncpg.Pool, user: uuid.UUID, document: uuid.UUID) -> DocumentIndex:
    """The document's index as a fresh process builds it (its own cache)."""
    return await on_demand().index(pool, user, document)


async def test_two_retrievers_embedding_the_same_chunks_at_once_store_each_once(pool) -> None:
    texts = long_source(2 * EMBED_SLICE_CHUNKS)
    user, at_parse, lazy = await two_copies(pool, texts)
    both_inside = asyncio.Barrier(2)

    async def embed_side_by_side(batch: list[str]) -> np.ndarray:
        # Neither process stores a slice before the other has computed it too.
        await both_inside.wait()
        return await default_embed_chunks(batch)

    first, second = ChunkVectors(embed_side_by_side), ChunkVectors(embed_side_by_side)
    ids = (await _index(pool, user, lazy)).chunk_ids
    stored = await asyncio.gather(
        first.ensure(pool, user, lazy, await _index(pool, user, lazy), ids),
        second.ensure(pool, user, lazy, await _index(pool, user, lazy), ids),
    )
    # Both computed every vector; each chunk was stored by exactly one of them.
    assert sum(stored) == len(ids) == len(texts)
    for mine, theirs in zip(
        await vectors_by_ordinal(pool, lazy), await vectors_by_ordinal(pool, at_parse), strict=True
    ):
        np.testing.assert_array_equal(mine, theirs)


async def test_tasks_of_one_process_needing_the_same_chunks_embed_them_once(pool) -> None:
    texts = long_source(3 * EMBED_SLICE_CHUNKS)
    user, _, lazy = await two_copies(pool, texts)
    counting = Counting()
    vectors = ChunkVectors(counting)
    index = await _index(pool, user, lazy)
    ids = index.chunk_ids
    stored = await asyncio.gather(
        vectors.ensure(pool, user, lazy, index, ids),
        vectors.ensure(pool, user, lazy, index, ids[::2]),
        vectors.ensure(pool, user, lazy, await _index(pool, user, lazy), ids[1::2]),
    )
    assert sorted(counting.texts) == sorted(texts)  # each chunk embedded once
    assert sum(stored) == len(texts)
    assert all(v is not None for v in await vectors_by_ordinal(pool, lazy))


async def test_a_retriever_dying_mid_embed_loses_nothing_it_stored(pool) -> None:
    texts = long_source(3 * EMBED_SLICE_CHUNKS)
    user, at_parse, lazy = await two_copies(pool, texts)
    calls: list[int] = []

    async def dies_in_the_second_slice(batch: list[str]) -> np.ndarray:
        calls.append(len(batch))
        if len(calls) == 2:
            raise SystemExit("killed")  # a BaseException, as a dying process's would be
        return await default_embed_chunks(batch)

    ids = (await _index(pool, user, lazy)).chunk_ids
    with pytest.raises(SystemExit):
        await ChunkVectors(dies_in_the_second_slice).ensure(
            pool, user, lazy, await _index(pool, user, lazy), ids
        )
    stored = [v is not None for v in await vectors_by_ordinal(pool, lazy)]
    assert sum(stored) == EMBED_SLICE_CHUNKS  # the first slice was committed when it returned
    # The replacement embeds only what is missing, and ends with the parse-time vectors.
    counting = Counting()
    resumed = await ChunkVectors(counting).ensure(
        pool, user, lazy, await _index(pool, user, lazy), ids
    )
    assert resumed == len(counting.texts) == len(texts) - EMBED_SLICE_CHUNKS
    for mine, theirs in zip(
        await vectors_by_ordinal(pool, lazy), await vectors_by_ordinal(pool, at_parse), strict=True
    ):
        np.testing.assert_array_equal(mine, theirs)


async def test_a_task_waiting_on_a_failed_embedding_takes_it_over(pool) -> None:
    texts = long_source(EMBED_SLICE_CHUNKS)
    user, _, lazy = await two_copies(pool, texts)
    started = asyncio.Event()
    release = asyncio.Event()

    async def fails_once(batch: list[str]) -> np.ndarray:
        if not started.is_set():
            started.set()
            await release.wait()
            raise RuntimeError("the first task's thread raised")
        return await default_embed_chunks(batch)

    vectors = ChunkVectors(fails_once)
    index = await _index(pool, user, lazy)
    ids = index.chunk_ids
    failing = asyncio.create_task(vectors.ensure(pool, user, lazy, index, ids))
    await started.wait()
    waiting = asyncio.create_task(vectors.ensure(pool, user, lazy, index, ids))
    await asyncio.sleep(0.05)  # the second task is now waiting on the first one's futures
    release.set()
    with pytest.raises(RuntimeError):
        await failing
    assert await waiting == len(texts)
    assert all(v is not None for v in await vectors_by_ordinal(pool, lazy))


async def test_a_user_never_embeds_another_users_chunks(pool) -> None:
    owner, other = await new_user(pool), await new_user(pool)
    document = await add_document(pool, owner)
    await add_chunks(pool, owner, document, PARAGRAPHS, embedded=False)
    ids = [r["id"] for r in await pool.fetch("SELECT id FROM chunks WHERE document_id = $1",
                                             document)]  # fmt: skip
    index = await _index(pool, owner, document)
    stored = await ChunkVectors(default_embed_chunks).ensure(pool, other, document, index, ids)
    assert stored == 0
    assert all(v is None for v in await vectors_by_ordinal(pool, document))
