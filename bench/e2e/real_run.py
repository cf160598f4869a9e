"""The `real_thesis` workload (bench/e2e/real_thesis.py) through the running services.

For each way of embedding source passages (`CITEPROOF_EMBEDDINGS_CHUNKS`: `on_demand`, the
default, and `at_parse`, the path before ADR 0022), on a fresh embedded PostgreSQL with the API
and one process per service (default settings):

- cold: one user uploads the 64 sources and the thesis and starts a run; from the first upload
  request to the report in hand, nothing parsed or cached before. Time to the first verdict is
  the first judge verdict's commit time (`verdicts.created_at`) after the first request.
- embedding CPU: `citeproof_embedding_cpu_seconds` of the parser and the retriever over the cold
  run (thread CPU of the embedding calls: source passages, claims and evidence sentences).
- recall@5: per citation, the share of its gold sentences (the passage the claim was built from)
  that one of its first five evidence passages hits (bench/retrieval.py's overlap rule), averaged.
- re-check (on_demand only, the services still running): the same user uploads the edited thesis
  (five claims reworded, one citation added) and all sources again, whole, in a new session, and
  starts a run; to the report in hand. Counted: the documents parsed, the evidence reused and
  retrieved, the verdicts reused and judged.
- latency per claim, in this process after the services stopped (they would compete for the
  cores): cold = nothing cached in the retriever and, on demand, the claim's source not embedded
  yet (its stored vectors cleared first), so each claim pays what the first claim of a source
  pays; warm = everything cached, as a later claim of a source finds it: three passes after a
  filling one, a claim's warm time the median of its three (the single-pass p99 is kept too).
"""

from __future__ import annotations

import asyncio
import os
import re
import statistics
import time
from pathlib import Path
from typing import Final

import asyncpg

from bench import common
from bench.e2e import observe
from bench.e2e.real_thesis import RealClaim, RealThesis, RenderedThesis
from bench.e2e.users import one_user
from bench.e2e.work import ThesisWork
from bench.retrieval import hits
from citeproof.auth import create_token, create_user
from citeproof.db.migrate import apply_migrations
from citeproof.devstack import DevStack
from citeproof.embeddings.settings import CHUNKS_AT_PARSE, CHUNKS_ON_DEMAND
from citeproof.retriever.cache import IndexCache
from citeproof.retriever.chunk_vectors import ChunkVectors
from citeproof.retriever.query import build_query, strip_markers
from citeproof.retriever.retrieval import Retriever
from citeproof.retriever.service import configure_process, default_embed, default_embed_chunks
from citeproof.retriever.settings import RetrieverSettings

MODES: Final = (CHUNKS_ON_DEMAND, CHUNKS_AT_PARSE)
RECALL_K: Final = 5
# Warm passes per claim; the warm figure of a claim is the median of its passes (the machine is
# shared: one pass's p99 is mostly other people's work).
WARM_PASSES: Final = 3
TOPS: Final = "_top5"
EMBEDDING_SERVICES: Final = ("parser", "retriever")

FIRST_VERDICT_SQL: Final = """
SELECT extract(epoch FROM min(created_at)) FROM verdicts
WHERE run_id = $1 AND backend <> 'pipeline'
"""
TOTALS_SQL: Final = """
SELECT
    (SELECT coalesce(sum(pages), 0) FROM documents WHERE kind = 'source') AS source_pages,
    (SELECT coalesce(sum(pages), 0) FROM documents
      WHERE id = (SELECT thesis_document_id FROM runs WHERE id = $1)) AS thesis_pages,
    (SELECT count(*) FROM documents WHERE kind = 'source') AS sources,
    (SELECT count(*) FROM chunks c JOIN documents d ON d.id = c.document_id
      WHERE d.kind = 'source') AS source_chunks,
    (SELECT count(*) FROM citations
      WHERE document_id = (SELECT thesis_document_id FROM runs WHERE id = $1)) AS citations,
    (SELECT count(*) FROM chunks WHERE embedding IS NOT NULL) AS chunks_with_vectors
"""
# The run's citations with their claims as checked and the source each was retrieved in.
CITATIONS_SQL: Final = """
SELECT c.id, c.reference_label, coalesce(nullif(c.claim_checked, ''), c.claim_text) AS claim,
       c.context_text, t.source_document_id
FROM citations c
JOIN runs r ON r.thesis_document_id = c.document_id
LEFT JOIN retrieve_tasks t ON t.run_id = r.id AND t.citation_id = c.id
WHERE r.id = $1
ORDER BY c.ordinal
"""
EVIDENCE_SQL: Final = "SELECT citation_id, rank, text FROM evidence WHERE run_id = $1"
RECHECK_SQL: Final = """
SELECT
    (SELECT count(*) FROM parse_items WHERE created_at >= to_timestamp($2)) AS parse_items,
    (SELECT count(*) FROM documents WHERE parsed_at >= to_timestamp($2)) AS documents_parsed,
    (SELECT evidence_reused FROM runs WHERE id = $1) AS evidence_reused,
    (SELECT retrieved FROM runs WHERE id = $1) AS retrieved,
    (SELECT count(*) FILTER (WHERE cached) FROM verdicts WHERE run_id = $1) AS verdicts_reused,
    (SELECT count(*) FILTER (WHERE NOT cached AND backend <> 'pipeline') FROM verdicts
      WHERE run_id = $1) AS verdicts_judged
"""
CLEAR_VECTORS_SQL: Final = "UPDATE chunks SET embedding = NULL WHERE document_id = $1"


def _make_token(url: str) -> str:
    async def make() -> str:
        conn = await asyncpg.connect(url)
        try:
            user = await create_user(conn, "bench-real-thesis")
            return (await create_token(conn, user, label="bench-e2e"))[1]
        finally:
            await conn.close()

    return asyncio.run(make())


async def _fetch(url: str, sql: str, *args):
    conn = await asyncpg.connect(url)
    try:
        return await conn.fetch(sql, *args)
    finally:
        await conn.close()


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))


def claim_of(thesis: RealThesis, label: str | None, text: str) -> RealClaim | None:
    """The claim a citation was printed from: among the claims citing the reference its
    marker names, the one sharing the most words with the sentence the parser checked."""
    order = thesis.reference_order
    if label is None or not label.isdigit() or not 0 < int(label) <= len(order):
        return None
    source = order[int(label) - 1]
    words = _words(text)
    candidates = [c for c in thesis.claims if c.source == source]
    return max(candidates, key=lambda c: len(words & _words(c.text)), default=None)


def recall_at_k(thesis: RealThesis, citations, evidence, k: int = RECALL_K) -> dict:
    passages: dict[int, list[tuple[int, str]]] = {}
    for row in evidence:
        passages.setdefault(row["citation_id"], []).append((row["rank"], row["text"]))
    scores, unmatched, tops = [], 0, {}
    for citation in citations:
        claim = claim_of(thesis, citation["reference_label"], citation["claim"])
        if claim is None:
            unmatched += 1
            continue
        top = [text for _, text in sorted(passages.get(citation["id"], []))[:k]]
        tops[claim.key] = top
        scores.append(sum(any(hits(p, g) for p in top) for g in claim.gold) / len(claim.gold))
    return {
        "recall_at_5": round(statistics.mean(scores), 4) if scores else None,
        "citations_scored": len(scores),
        "citations_unmatched": unmatched,
        TOPS: tops,  # compared between the modes, then dropped (not written)
    }


def _embedding(before: dict, after: dict) -> dict:
    """Embedding figures of the parser and retriever processes between two scrapes."""
    out = {"cpu_s": 0.0, "chunks_cpu_s": 0.0, "queries_cpu_s": 0.0, "texts": 0.0}
    for name in after:
        if name.rsplit("-", 1)[0] not in EMBEDDING_SERVICES:
            continue
        late, early = after[name], before[name]
        for purpose in ("chunks", "queries"):
            spent = late.counter(observe.EMBED_CPU, purpose=purpose) - early.counter(
                observe.EMBED_CPU, purpose=purpose
            )
            out[f"{purpose}_cpu_s"] += spent
            out["cpu_s"] += spent
        out["texts"] += late.counter(observe.EMBEDDED_TEXTS) - early.counter(observe.EMBEDDED_TEXTS)
    return {key: round(value, 1) for key, value in out.items()}


def _lookups(before: dict, after: dict, result: str) -> int:
    return int(
        sum(
            after[n].counter(observe.EVIDENCE_LOOKUPS, result=result)
            - before[n].counter(observe.EVIDENCE_LOOKUPS, result=result)
            for n in after
        )
    )


def _timed_user(api_url: str, token: str, work: ThesisWork, timeout_s: float):
    began_epoch = time.time()
    began = time.monotonic()
    user = asyncio.run(one_user(api_url, token, work, timeout_s))
    return user, time.monotonic() - began, began_epoch


async def _latency(url: str, on_demand: bool, queries: list[tuple]) -> dict:
    """Per-claim retrieval time in this process (see the module docstring)."""
    pool = await common_pool(url)
    try:
        retriever = Retriever(
            RetrieverSettings(),
            IndexCache(1 << 31, 1e9),
            default_embed,
            ChunkVectors(default_embed_chunks) if on_demand else None,
        )
        await retriever.retrieve(pool, *queries[0])  # the models and the pool warm up
        cold = []
        for user, document, query in queries:
            retriever.cache.clear()
            if on_demand:
                await pool.execute(CLEAR_VECTORS_SQL, document)
            started = time.perf_counter()
            await retriever.retrieve(pool, user, document, query)
            cold.append((time.perf_counter() - started) * 1000)
        for user, document, query in queries:  # fills every cache
            await retriever.retrieve(pool, user, document, query)
        passes: list[list[float]] = []
        for _ in range(WARM_PASSES):
            passes.append([])
            for user, document, query in queries:
                started = time.perf_counter()
                await retriever.retrieve(pool, user, document, query)
                passes[-1].append((time.perf_counter() - started) * 1000)
        warm = [statistics.median(claim) for claim in zip(*passes, strict=True)]
    finally:
        await pool.close()
    return {
        "cold_p50_ms": round(statistics.median(cold), 1),
        "cold_p99_ms": round(common.percentile(cold, 99), 1),
        "warm_p50_ms": round(statistics.median(warm), 1),
        "warm_p99_ms": round(common.percentile(warm, 99), 1),
        "warm_single_pass_p99_ms": round(common.percentile(passes[0], 99), 1),
        "claims": len(queries),
        "load_average_1m": round(os.getloadavg()[0], 2),
    }


async def common_pool(url: str) -> asyncpg.Pool:
    from citeproof.db.pool import create_pool
    from citeproof.db.settings import DatabaseSettings

    return await create_pool(DatabaseSettings(url=url, pool_min=1, pool_max=4))


def run_mode(
    mode: str, thesis: RealThesis, rendered: RenderedThesis, log_dir: Path, timeout_s: float
) -> dict:
    log_dir.mkdir(parents=True, exist_ok=True)
    on_demand = mode == CHUNKS_ON_DEMAND
    work = ThesisWork(1, len(thesis.claims), rendered.thesis, rendered.sources)
    with common.fresh_postgres(f"citeproof-e2e-real-{mode}-") as url:
        asyncio.run(apply_migrations(url))
        token = _make_token(url)
        stack = DevStack(
            database_url=url, log_dir=log_dir, env={"CITEPROOF_EMBEDDINGS_CHUNKS": mode}
        )
        try:
            stack.start({})
            stack.wait_ready()
            pids = {p.name: p.popen.pid for p in stack.processes}
            metrics = {p.name: f"http://127.0.0.1:{p.health_port}/metrics" for p in stack.processes}
            before = {n: observe.scrape(u) for n, u in metrics.items()}
            cpu_before = observe.cpu_by_process(pids)
            machine_before = observe.machine_cpu_seconds()
            load_before = os.getloadavg()[0]
            print(f"real_thesis {mode}: cold run starts", flush=True)
            user, cold_s, began_epoch = _timed_user(stack.api_url, token, work, timeout_s)
            machine = observe.machine_cpu_seconds() - machine_before
            cpu_after = observe.cpu_by_process(pids)
            after = {n: observe.scrape(u) for n, u in metrics.items()}
            load_after = os.getloadavg()[0]
            first_at = asyncio.run(_fetch(url, FIRST_VERDICT_SQL, user.run_id))[0][0]
            first = float(first_at) - began_epoch
            totals = dict(asyncio.run(_fetch(url, TOTALS_SQL, user.run_id))[0])
            citations = asyncio.run(_fetch(url, CITATIONS_SQL, user.run_id))
            evidence = asyncio.run(_fetch(url, EVIDENCE_SQL, user.run_id))
            cpu = {n: round(cpu_after[n] - cpu_before[n], 1) for n in pids}
            ours = sum(cpu.values())
            result = {
                "mode": mode,
                "status": user.status,
                "cold_s": round(cold_s, 1),
                "first_verdict_s": round(float(first), 1),
                "embedding": _embedding(before, after),
                "chunks_embedded": totals["chunks_with_vectors"],
                "source_chunks": totals["source_chunks"],
                **recall_at_k(thesis, citations, evidence),
                "pages": totals["source_pages"] + totals["thesis_pages"],
                "source_pages": totals["source_pages"],
                "sources": totals["sources"],
                "citations": totals["citations"],
                "citations_reported": user.citations_reported,
                "cpu_s": cpu,
                "others_cpu_busy": round(max(0.0, machine - ours) / cold_s, 2),
                "load_average_1m": [round(load_before, 2), round(load_after, 2)],
            }
            print(f"real_thesis {mode}: cold {cold_s:.1f} s, first verdict {first:.1f} s, "
                  f"embedding {result['embedding']['cpu_s']} CPU-s", flush=True)  # fmt: skip
            if on_demand:
                result["recheck"] = _recheck(stack, url, token, thesis, rendered, timeout_s)
        finally:
            stack.stop()
        owner = asyncio.run(_fetch(url, "SELECT user_id FROM runs WHERE id = $1", user.run_id))
        queries = [
            (
                owner[0][0],
                row["source_document_id"],
                build_query(strip_markers(row["claim"]), "", use_context=False),
            )
            for row in citations
            if row["source_document_id"] is not None
        ]
        configure_process(RetrieverSettings())
        result["latency_ms"] = asyncio.run(_latency(url, on_demand, queries))
    return result


def _recheck(
    stack: DevStack, url: str, token: str, thesis: RealThesis, rendered: RenderedThesis,
    timeout_s: float,
) -> dict:  # fmt: skip
    edited = thesis.edited()
    work = ThesisWork(2, len(edited.claims), rendered.edited, rendered.sources)
    metrics = {p.name: f"http://127.0.0.1:{p.health_port}/metrics" for p in stack.processes}
    before = {n: observe.scrape(u) for n, u in metrics.items()}
    load = os.getloadavg()[0]
    print("real_thesis: re-check of the edited thesis starts", flush=True)
    user, seconds, began_epoch = _timed_user(stack.api_url, token, work, timeout_s)
    after = {n: observe.scrape(u) for n, u in metrics.items()}
    counts = dict(asyncio.run(_fetch(url, RECHECK_SQL, user.run_id, began_epoch))[0])
    citations = asyncio.run(_fetch(url, CITATIONS_SQL, user.run_id))
    evidence = asyncio.run(_fetch(url, EVIDENCE_SQL, user.run_id))
    print(f"real_thesis: re-check {seconds:.1f} s", flush=True)
    return {
        "recheck_s": round(seconds, 1),
        "status": user.status,
        "citations": len(citations),
        "claims_changed": sum(c.key.endswith("-edited") for c in edited.claims),
        "claims_added": sum(c.key.endswith("-added") for c in edited.claims),
        "documents_parsed": counts["documents_parsed"],
        "parse_items": counts["parse_items"],
        "evidence_reused": counts["evidence_reused"],
        "evidence_retrieved": counts["retrieved"] - counts["evidence_reused"],
        "evidence_cache_misses": _lookups(before, after, "miss"),
        "verdicts_reused": counts["verdicts_reused"],
        "verdicts_judged": counts["verdicts_judged"],
        "embedding": _embedding(before, after),
        **recall_at_k(edited, citations, evidence),
        "load_average_1m": round(load, 2),
    }


def measure(thesis: RealThesis, rendered: RenderedThesis, log_root: Path, timeout_s: float) -> dict:
    """Both modes, on-demand first; the figures e2e.json's `real_thesis` holds."""
    runs = {mode: run_mode(mode, thesis, rendered, log_root / mode, timeout_s) for mode in MODES}
    lazy, eager = runs[CHUNKS_ON_DEMAND], runs[CHUNKS_AT_PARSE]
    lazy_tops, eager_tops = lazy.pop(TOPS), eager.pop(TOPS)
    lazy["recheck"].pop(TOPS)
    same = sum(lazy_tops.get(key) == top for key, top in eager_tops.items())
    return {
        "cold_s": lazy["cold_s"],
        "first_verdict_s": lazy["first_verdict_s"],
        "recheck_s": lazy["recheck"]["recheck_s"],
        "eager_cold_s": eager["cold_s"],
        "eager_first_verdict_s": eager["first_verdict_s"],
        "embed_cpu_s": lazy["embedding"]["cpu_s"],
        "eager_embed_cpu_s": eager["embedding"]["cpu_s"],
        "recall_at_5": lazy["recall_at_5"],
        "eager_recall_at_5": eager["recall_at_5"],
        # Citations whose five passages are the same, in the same order, in both modes.
        "top5_same_as_eager": round(same / max(len(eager_tops), 1), 3),
        "warm_p99_ms": lazy["latency_ms"]["warm_p99_ms"],
        "cold_p99_ms": lazy["latency_ms"]["cold_p99_ms"],
        "pages": lazy["pages"],
        "citations": lazy["citations"],
        "sources": lazy["sources"],
        "cold_speedup": round(eager["cold_s"] / lazy["cold_s"], 2),
        "embed_cpu_ratio": round(
            eager["embedding"]["cpu_s"] / max(lazy["embedding"]["cpu_s"], 0.1), 2
        ),
        "split": thesis.split,
        "seed": thesis.seed,
        "runs": runs,
    }
