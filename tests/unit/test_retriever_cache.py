"""The document-index LRU (memory budget, TTL, single flight) and rank fusion."""

from __future__ import annotations

import asyncio

import numpy as np

from citeproof.retriever.cache import IndexCache
from citeproof.retriever.fusion import fuse, min_max, ranks, reciprocal_rank_fusion
from citeproof.retriever.index import DocumentIndex

TEXTS = ["Trees cool streets by shading them.", "Cool roofs reflect sunlight back to the sky."]


def _index(document: str, texts=TEXTS) -> DocumentIndex:
    rows = [
        {"id": i, "text": t, "char_start": 0, "page_start": 1, "page_end": 1}
        for i, t in enumerate(texts)
    ]
    return DocumentIndex.build("user", document, rows, None, min_chars=10, max_chars=500)


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


async def test_hits_misses_and_ttl() -> None:
    clock = Clock()
    cache = IndexCache(budget_bytes=10**9, ttl_s=100, clock=clock)
    loads = []

    async def load(name: str) -> DocumentIndex:
        loads.append(name)
        return _index(name)

    first = await cache.get("user", "a", lambda: load("a"))
    assert await cache.get("user", "a", lambda: load("a")) is first
    assert loads == ["a"]
    clock.now = 101  # expired: rebuilt from the database
    assert await cache.get("user", "a", lambda: load("a")) is not first
    assert loads == ["a", "a"]
    # Another user's entry for the same document id is a different entry.
    await cache.get("other-user", "a", lambda: load("a"))
    assert loads == ["a", "a", "a"]


async def test_memory_budget_evicts_least_recently_used() -> None:
    one = _index("x").size_bytes
    cache = IndexCache(budget_bytes=int(one * 2.5), ttl_s=1e9)
    for name in ("a", "b"):
        await cache.get("u", name, lambda name=name: _async(_index(name)))
    await cache.get("u", "a", lambda: _async(_index("a")))  # a is now the most recent
    await cache.get("u", "c", lambda: _async(_index("c")))
    assert ("u", "a") in cache and ("u", "c") in cache and ("u", "b") not in cache
    assert cache.size_bytes <= cache.budget_bytes


async def test_concurrent_misses_build_once() -> None:
    cache = IndexCache(budget_bytes=10**9, ttl_s=1e9)
    builds = 0

    async def slow_load() -> DocumentIndex:
        nonlocal builds
        builds += 1
        await asyncio.sleep(0.05)
        return _index("a")

    results = await asyncio.gather(*(cache.get("u", "a", slow_load) for _ in range(5)))
    assert builds == 1
    assert all(r is results[0] for r in results)


async def _async(value):
    return value


def test_index_units_and_bm25() -> None:
    index = _index("a")
    assert [u.text for u in index.units] == TEXTS
    scores = index.chunk_bm25_scores(["roof"])
    assert scores[1] > 0 and scores[0] == 0
    assert index.unit_bm25_scores(["shade"], [0, 1]).tolist()[0] > 0


def test_reciprocal_rank_fusion_rewards_agreement() -> None:
    vector = np.array([0.9, 0.8, np.nan])
    bm25 = np.array([np.nan, 5.0, 4.0])
    assert ranks(vector).tolist() == [1, 2, np.inf]
    fused = reciprocal_rank_fusion([vector, bm25], k=60)
    assert fused.argmax() == 1  # ranked by both beats first in one
    assert fused[2] > 0


def test_weighted_fusion_and_single_signal() -> None:
    assert min_max(np.array([1.0, 3.0, np.nan])).tolist() == [0.0, 1.0, 0.0]
    fused = fuse(
        [np.array([0.2, 0.4]), np.array([10.0, 0.0])], method="weighted", rrf_k=60,
        vector_weight=0.75,
    )  # fmt: skip
    assert fused.tolist() == [0.25, 0.75]
    single = fuse([np.array([0.1, np.nan])], method="rrf", rrf_k=60, vector_weight=0.5)
    assert single[0] == 0.1 and single[1] == -np.inf
