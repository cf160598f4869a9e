"""The retriever's two stages: `plan` (claims `runs`) and `retrieve` (claims `retrieve_tasks`).

One `RetrieverService` per process holds what is worth keeping between tasks — the settings,
the document-index cache and the embedder — and builds the Stage definitions the runtime runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import asyncpg
import numpy as np

from citeproof.contracts.findings import Finding
from citeproof.embeddings import EmbeddingSettings, get_embedder
from citeproof.embeddings.base import PURPOSE_CHUNKS, PURPOSE_QUERIES, aembed
from citeproof.embeddings.settings import CHUNKS_ON_DEMAND
from citeproof.findings import PRODUCER_RETRIEVE, Found, replace_findings
from citeproof.pipeline import (
    EVENTS_CHANNEL,
    JUDGE_CHANNEL,
    PLAN_STAGE,
    RETRIEVE_CHANNEL,
    RETRIEVE_STAGE,
    STAGE_TABLES,
    VERIFY_CHANNEL,
    VERIFY_STAGE,
)
from citeproof.queue import Stage, TaskContext, notify
from citeproof.retriever.cache import IndexCache
from citeproof.retriever.chunk_vectors import ChunkVectors
from citeproof.retriever.content_check import citation_input, content_findings
from citeproof.retriever.content_rules import ContentRulesConfig
from citeproof.retriever.evidence_cache import EvidenceCache
from citeproof.retriever.index import EmbedFn
from citeproof.retriever.planning import Planner
from citeproof.retriever.query import build_query, strip_markers
from citeproof.retriever.retrieval import HYBRID, EvidencePassage, RetrievalStats, Retriever
from citeproof.retriever.settings import RetrieverSettings
from citeproof.retriever.verify.settings import VerifySettings
from citeproof.retriever.verify.stage import VerificationQueue, VerifyStage
from citeproof.settings import load
from citeproof.verdicts import TERMINAL_RUN_STATUSES, failure_verdict_hook
from citeproof.worker_service import StageDefaults, WorkerService

RETRIEVER_BACKEND: Final = "retriever"

SELECT_CITATION = """
SELECT c.claim_text, c.claim_checked, c.claim_start, c.claim_end, c.context_text, c.document_id,
       c.marker_start, c.marker_end, c.pinpoint_pages, c.block_quote, r.status
FROM citations c JOIN runs r ON r.id = $1
WHERE c.id = $2
"""

# Markers of every citation in the same sentence (a claim citing [3] and [5] is one sentence
# with two citation rows), as offsets into the claim.
SELECT_CLAIM_MARKERS = """
SELECT marker_start - $2 AS start, marker_end - $2 AS "end"
FROM citations
WHERE document_id = $1 AND marker_start >= $2 AND marker_end <= $3
"""

# Also the cancellation check: a run that ended meanwhile gets no evidence and no judge task.
COUNT_RETRIEVED = """
UPDATE runs SET retrieved = retrieved + 1, evidence_reused = evidence_reused + $2,
    chunks_embedded = chunks_embedded + $3, status = 'judging'
WHERE id = $1 AND status NOT IN ('completed', 'cancelled', 'failed')
RETURNING id
"""

DELETE_EVIDENCE = "DELETE FROM evidence WHERE run_id = $1 AND citation_id = $2"

INSERT_EVIDENCE = """
INSERT INTO evidence (run_id, citation_id, rank, chunk_id, page, text, vector_score,
                      bm25_score, fused_score)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
"""

INSERT_JUDGE_TASK = """
INSERT INTO judge_tasks (run_id, citation_id, user_id) VALUES ($1, $2, $3)
ON CONFLICT (run_id, citation_id) DO NOTHING
"""


async def default_embed(texts: list[str]) -> np.ndarray:
    return await aembed(get_embedder(role="queries"), texts, purpose=PURPOSE_QUERIES)


async def default_embed_chunks(texts: list[str]) -> np.ndarray:
    """Source chunks embedded on demand: the parser's `documents` embedder, so a vector is the
    one the parser would have stored (ADR 0022)."""
    return await aembed(get_embedder(role="documents"), texts, purpose=PURPOSE_CHUNKS)


async def on_demand_embed(texts: list[str]) -> np.ndarray:
    """Claims and evidence sentences when chunks are embedded on demand: the same `documents`
    embedder (int8 by default). Query-time embedding is then most of the retriever's embedding
    work, and int8 does a sentence in under half the CPU of fp32 for a recall@5 within 0.01
    of fp32 sentences on the train thesis (ADR 0022); the process loads one model."""
    return await aembed(get_embedder(role="documents"), texts, purpose=PURPOSE_QUERIES)


def configure_process(settings: RetrieverSettings) -> None:
    """Process-wide knobs of a retriever process (called once at start-up, before the first
    embedding)."""
    if settings.embed_threads:
        import torch

        torch.set_num_threads(settings.embed_threads)


class RetrieverService(WorkerService):
    name = "retriever"
    capabilities = ("plan", "retrieve", VERIFY_STAGE)
    stage_defaults = (
        StageDefaults(
            VERIFY_STAGE,
            {"concurrency": 4},
            "a verify task mostly waits for the indexes (their per-index gates, not the "
            "stage's slots, bound the requests), so several runs are verified at once.",
        ),
    )

    def __init__(
        self,
        settings: RetrieverSettings | None = None,
        embed: EmbedFn | None = None,
        *,
        embeddings: EmbeddingSettings | None = None,
        embed_chunks: EmbedFn | None = None,
    ):
        self.settings = settings or load(RetrieverSettings)
        budget = self.settings.cache_budget_mb * 1024 * 1024
        self.cache = IndexCache(budget, self.settings.cache_ttl_s)
        embeddings = embeddings or load(EmbeddingSettings)
        on_demand = embeddings.chunks == CHUNKS_ON_DEMAND
        self.chunk_vectors = (
            ChunkVectors(embed_chunks or default_embed_chunks) if on_demand else None
        )
        query_embed = embed or (on_demand_embed if on_demand else default_embed)
        self.retriever = Retriever(self.settings, self.cache, query_embed, self.chunk_vectors)
        self.evidence_cache = EvidenceCache(self.settings, embeddings)
        self.planner = Planner(self.settings)
        self.content_rules = ContentRulesConfig(
            number_not_in_source=self.settings.number_not_in_source
        )
        self.use_verification(load(VerifySettings))
        # A retrieval that can never succeed must not hold its run back.
        self.on_retrieve_terminal = failure_verdict_hook(
            "Retrieval failed for this citation", backend=RETRIEVER_BACKEND, before_judge=True
        )

    def stages(self) -> list[Stage]:
        return [self.plan_stage, self.retrieve_stage, self.verify_stage]

    def use_verification(self, settings: VerifySettings) -> None:
        """Reference verification (ADR 0024) with these settings: the stage always runs (it
        idles on an empty table); the planner queues runs only where the server enables it."""
        self.verifier = VerifyStage(settings)
        self.planner.verification = VerificationQueue(settings) if settings.enabled else None

    async def warm_up(self, pool: asyncpg.Pool) -> None:
        configure_process(self.settings)
        # Load the embedding models before claiming, so the first task does not pay for them
        # while holding a lease (and /healthz is honest about when we can work).
        await self.retriever.embed(["warm-up"])
        if self.chunk_vectors is not None:  # usually the same model: a no-op then
            await self.chunk_vectors.embed_chunks(["warm-up"])

    @property
    def plan_stage(self) -> Stage:
        return Stage(
            name=PLAN_STAGE,
            table=STAGE_TABLES[PLAN_STAGE],
            channel=RETRIEVE_CHANNEL,
            handler=self.planner,
            on_terminal=self.planner.on_terminal,
            fair_by_user=True,
        )

    @property
    def retrieve_stage(self) -> Stage:
        return Stage(
            name=RETRIEVE_STAGE,
            table=STAGE_TABLES[RETRIEVE_STAGE],
            channel=RETRIEVE_CHANNEL,
            handler=self.retrieve,
            on_terminal=self.on_retrieve_terminal,
            fair_by_user=True,
        )

    @property
    def verify_stage(self) -> Stage:
        return Stage(
            name=VERIFY_STAGE,
            table=STAGE_TABLES[VERIFY_STAGE],
            channel=VERIFY_CHANNEL,
            handler=self.verifier,
            on_terminal=self.verifier.on_terminal,
            fair_by_user=True,
            defaults=self.defaults_for(VERIFY_STAGE),
        )

    async def query_for(
        self, conn: asyncpg.Connection | asyncpg.Pool, citation: asyncpg.Record
    ) -> str:
        if citation["claim_checked"]:
            # The parser's marker-free claim: the same words whatever the citation style.
            claim = strip_markers(citation["claim_checked"])
            context = strip_markers(citation["context_text"] or "")
            return build_query(claim, context, use_context=self.settings.use_context)
        spans = [
            (r["start"], r["end"])
            for r in await conn.fetch(
                SELECT_CLAIM_MARKERS,
                citation["document_id"],
                citation["claim_start"],
                citation["claim_end"],
            )
        ]
        claim = strip_markers(citation["claim_text"], spans)
        context = strip_markers(citation["context_text"] or "")
        return build_query(claim, context, use_context=self.settings.use_context)

    async def retrieve(self, ctx: TaskContext) -> None:
        task = ctx.row
        # Statement by statement on the pool, never one connection for the whole handler:
        # retrieval embeds the query and sentences (CPU-bound, seconds under load), and a
        # connection held across that would starve other tasks' completions of the pool.
        citation = await ctx.pool.fetchrow(SELECT_CITATION, task["run_id"], task["citation_id"])
        if citation is None or citation["status"] in TERMINAL_RUN_STATUSES:
            return  # cancelled run: the runtime completes the task, nothing is handed on
        query = await self.query_for(ctx.pool, citation)
        stats = RetrievalStats()
        passages, reused = await self.evidence_for(
            ctx.pool, task["user_id"], task["source_document_id"], query, stats
        )
        findings = await self.content_findings(ctx.pool, task, citation, passages)
        await self.hand_off(
            ctx, passages, findings, reused=reused, chunks_embedded=stats.chunks_embedded
        )
        ctx.log.info("retrieve.done", passages=len(passages), findings=len(findings), reused=reused)

    async def evidence_for(
        self,
        pool: asyncpg.Pool,
        user_id: Any,
        document_id: Any,
        query: str,
        stats: RetrievalStats | None = None,
    ) -> tuple[list[EvidencePassage], bool]:
        """The claim's passages in the source: kept from an earlier run that asked the same of
        the same parse (a re-check), else retrieved now and kept. Returns (passages, reused)."""
        cache = self.evidence_cache
        key = cache.key(await cache.version(pool, user_id, document_id), query, HYBRID)
        kept = await cache.get(pool, user_id, document_id, key)
        if kept is not None:
            return kept, True
        passages = await self.retriever.retrieve(pool, user_id, document_id, query, stats=stats)
        # Committed on its own, before the hand-off: a task that fails after this point
        # retrieves the same passages when retried, so an entry is never wrong.
        await cache.put(pool, user_id, document_id, key, passages)
        return passages, False

    async def content_findings(
        self,
        pool: asyncpg.Pool,
        task: asyncpg.Record,
        citation: asyncpg.Record,
        passages: Sequence[EvidencePassage] = (),
    ) -> list[Finding]:
        """The content rules (quotations, numbers, pinpoint page) of this citation against its
        linked source: every retrieve task runs them, so a retrieved citation is a checked one.
        ``passages`` are the claim's evidence just retrieved (or kept): the number and page
        rules align the claim with them first."""
        markers = [
            (r["start"], r["end"])
            for r in await pool.fetch(
                SELECT_CLAIM_MARKERS,
                citation["document_id"],
                citation["claim_start"],
                citation["claim_end"],
            )
        ]
        # A cache hit: retrieval has just built or used this index.
        index = await self.retriever.index(pool, task["user_id"], task["source_document_id"])
        findings = await content_findings(
            pool, index, citation_input(citation, markers, passages), self.content_rules
        )
        self.cache.enforce_budget()  # the source text now counts in the entry's size
        return findings

    async def hand_off(
        self,
        ctx: TaskContext,
        passages: list[EvidencePassage],
        findings: Sequence[Finding] = (),
        *,
        reused: bool = False,
        chunks_embedded: int = 0,
    ) -> None:
        """Complete the task, store its evidence and content findings and queue the judge —
        one transaction."""
        run_id, citation_id = ctx.row["run_id"], ctx.row["citation_id"]
        async with ctx.complete() as conn:
            counted = await conn.fetchval(COUNT_RETRIEVED, run_id, int(reused), chunks_embedded)
            if counted is None:
                return
            # Replaces this task's earlier findings: a retried task stores one set.
            await replace_findings(
                conn,
                run_id=run_id,
                user_id=ctx.row["user_id"],
                producer=PRODUCER_RETRIEVE,
                found=[Found(finding, citation_id=citation_id) for finding in findings],
                citation_ids=[citation_id],
            )
            # Delete-then-insert: a retry after an unacknowledged commit writes the same rows.
            await conn.execute(DELETE_EVIDENCE, run_id, citation_id)
            await conn.executemany(
                INSERT_EVIDENCE,
                [(run_id, citation_id, *p.columns()) for p in passages],
            )
            await conn.execute(INSERT_JUDGE_TASK, run_id, citation_id, ctx.row["user_id"])
            await notify(conn, JUDGE_CHANNEL)
            await notify(conn, EVENTS_CHANNEL, str(run_id))
