"""The judge stage: one verdict per judge task, the verdict cache, and run completion.

Everything a task changes commits in the task's completing transaction: the verdict, the
cache entry, the run's counters and — for whichever task is last, whatever crashed before —
the run's completion (`citeproof.verdicts.record_final_verdict`).
"""

from __future__ import annotations

import hashlib

import asyncpg
import msgspec

from citeproof.contracts.judging import JudgeBackend, JudgeRequest, Passage, Verdict
from citeproof.judge import metrics
from citeproof.judge.backend import build_backend
from citeproof.judge.bands import banded_by_label
from citeproof.judge.errors import JudgeBackendError, LlmUnavailableError
from citeproof.judge.settings import load_judge_settings
from citeproof.pipeline import JUDGE_CHANNEL, JUDGE_ERROR, JUDGE_STAGE, STAGE_TABLES, UNSUPPORTED
from citeproof.queue import DependencyDown, PermanentError, Stage, TaskContext
from citeproof.verdicts import (
    TERMINAL_RUN_STATUSES,
    failure_verdict_hook,
    record_final_verdict,
)
from citeproof.worker_service import WorkerService

# How an outage of the judge's backend is named to people (registry, readiness, runs).
JUDGE_BACKEND = "judge backend"

# The claim as the parser checked it (markers removed, the same in every citation style); rows
# parsed before that existed fall back to the sentence as printed.
# What the parser knows about the marker: one citation row per work a marker names (so the rows
# sharing its start are the works it names), and the other markers starting in the same sentence.
SELECT_CITATION = """
SELECT CASE WHEN c.claim_checked <> '' THEN c.claim_checked ELSE c.claim_text END AS claim_text,
       c.context_text, c.document_id, r.status AS run_status,
       (SELECT count(*) FROM citations m
        WHERE m.document_id = c.document_id AND m.marker_start = c.marker_start) AS marker_works,
       (SELECT count(DISTINCT s.marker_start) FROM citations s
        WHERE s.document_id = c.document_id AND s.claim_start = c.claim_start
          AND s.marker_start <> c.marker_start) AS other_markers
FROM citations c JOIN runs r ON r.id = $1
WHERE c.id = $2 AND r.user_id = $3
"""

# With the document each passage came from: a cache entry is purged with those documents.
SELECT_EVIDENCE = """
SELECT e.rank, e.text, e.page, e.chunk_id, e.vector_score, e.bm25_score, e.fused_score,
       ch.document_id
FROM evidence e LEFT JOIN chunks ch ON ch.id = e.chunk_id
WHERE e.run_id = $1 AND e.citation_id = $2 ORDER BY e.rank
"""

SELECT_CACHED = """
SELECT label, confidence, rationale, quote, quote_page, backend, model, prompt_version,
       prompt_tokens, completion_tokens, downgraded_from, downgrade_reason,
       problem_probability, band
FROM verdict_cache WHERE user_id = $1 AND cache_key = $2
"""

INSERT_CACHE = """
INSERT INTO verdict_cache (user_id, cache_key, document_ids, label, confidence, rationale, quote,
    quote_page, backend, model, prompt_version, prompt_tokens, completion_tokens,
    downgraded_from, downgrade_reason, problem_probability, band)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
ON CONFLICT (user_id, cache_key) DO NOTHING
"""


def cache_key(request: JudgeRequest, backend: JudgeBackend) -> bytes:
    """Same claim, context (if the backend reads it), evidence, backend, model and prompt
    version → same verdict.

    Looked up only among the caller's own entries (`verdict_cache` is keyed by user too):
    another tenant's identical claim and source is judged afresh, so neither the verdict nor
    the speed of the answer tells anyone that somebody else holds the same text."""
    material = msgspec.json.encode(
        [
            request.claim,
            # A backend that never reads the context (the local judge) gives the same verdict
            # whatever sentence precedes the claim: an edit of that sentence must not send an
            # unchanged claim to the judge again (issue 28). Backends read it unless they say.
            (request.context or "") if getattr(backend, "reads_context", True) else "",
            request.marker_works,
            request.other_markers,
            [[p.text, p.page] for p in request.passages],
            backend.name,
            backend.model,
            backend.prompt_version,
        ]
    )
    return hashlib.sha256(material).digest()


def _verdict_from_row(row: asyncpg.Record) -> Verdict:
    return Verdict(latency_ms=0.0, **dict(row))


class JudgeService(WorkerService):
    """Holds the process's backend (built once) and implements the stage's callbacks."""

    name = "judge"
    capabilities = ("judge",)

    def __init__(self, backend: JudgeBackend | None = None) -> None:
        self.backend = backend or build_backend(load_judge_settings())
        # A task that can never be judged must not hold its run back.
        self.on_terminal = failure_verdict_hook(
            "The judge failed on this citation",
            backend=self.backend.name,
            model=self.backend.model,
        )

    def stages(self) -> list[Stage]:
        return [self.judge_stage]

    @property
    def judge_stage(self) -> Stage:
        return Stage(
            name=JUDGE_STAGE,
            table=STAGE_TABLES[JUDGE_STAGE],
            channel=JUDGE_CHANNEL,
            handler=self.handle,
            on_terminal=self.on_terminal,
            fair_by_user=True,
        )

    async def handle(self, ctx: TaskContext) -> None:
        run_id, citation_id = ctx.row["run_id"], ctx.row["citation_id"]
        citation = await ctx.pool.fetchrow(SELECT_CITATION, run_id, citation_id, ctx.row["user_id"])
        if citation is None or citation["run_status"] in TERMINAL_RUN_STATUSES:
            return  # cancelled or deleted run: nothing to judge; the runtime completes the row
        evidence = await ctx.pool.fetch(SELECT_EVIDENCE, run_id, citation_id)
        passages = [
            Passage(**{k: v for k, v in row.items() if k != "document_id"}) for row in evidence
        ]
        # A passage whose chunk is gone cannot be tied to a document, so its verdict could not
        # be purged with it: such a verdict is not cached.
        cacheable = all(row["document_id"] is not None for row in evidence)
        document_ids = sorted({citation["document_id"], *(r["document_id"] for r in evidence)})
        request = JudgeRequest(
            claim=citation["claim_text"],
            context=citation["context_text"],
            passages=passages,
            citation_key=f"{run_id}:{citation_id}",
            marker_works=citation["marker_works"],
            other_markers=citation["other_markers"],
        )
        key = cache_key(request, self.backend)
        user_id = ctx.row["user_id"]
        cached_row = await ctx.pool.fetchrow(SELECT_CACHED, user_id, key)
        if cached_row is not None:
            verdict, cached = _verdict_from_row(cached_row), True
        else:
            # Every backend verifies its quote against the passages it was shown (verbatim,
            # else downgraded with the reason kept): it knows which passage it quoted.
            verdict = await self._decide(request) if passages else _no_evidence(self.backend)
            cached = False
        async with ctx.complete() as conn:
            if not cached and cacheable:
                await conn.execute(
                    INSERT_CACHE, user_id, key, document_ids, verdict.label, verdict.confidence,
                    verdict.rationale, verdict.quote, verdict.quote_page, verdict.backend,
                    verdict.model, verdict.prompt_version, verdict.prompt_tokens,
                    verdict.completion_tokens, verdict.downgraded_from, verdict.downgrade_reason,
                    verdict.problem_probability, verdict.band,
                )  # fmt: skip
            recorded = await record_final_verdict(conn, run_id, citation_id, verdict, cached=cached)
        if recorded:  # counted once per citation, after the completion committed
            metrics.VERDICTS.labels(verdict.label, verdict.backend).inc()
        ctx.log.info("judge.verdict", label=verdict.label, cached=cached)

    async def _decide(self, request: JudgeRequest) -> Verdict:
        try:
            return await self.backend.judge(request)
        except LlmUnavailableError as exc:
            # Unreachable, timing out or overloaded beyond its own retries: the backend is
            # down, not this citation. The runtime holds the stage's tasks uncharged until it
            # answers again (or the outage outlasts CITEPROOF_JUDGE_DEPENDENCY_OUTAGE_MAX_S).
            raise DependencyDown(JUDGE_BACKEND, str(exc)) from exc
        except JudgeBackendError as exc:
            if exc.retryable:
                raise  # the endpoint may come back: retried with backoff, then judge_error
            # The server answered, and will answer the same again: no point in retrying.
            raise PermanentError(JUDGE_ERROR, str(exc)) from exc


def _no_evidence(backend: JudgeBackend) -> Verdict:
    return banded_by_label(
        Verdict(
            label=UNSUPPORTED,
            confidence=0.5,
            rationale="No passage of the cited source matched the claim.",
            quote=None,
            quote_page=None,
            backend=backend.name,
            model=backend.model,
            prompt_version=backend.prompt_version,
            latency_ms=0.0,
            prompt_tokens=0,
            completion_tokens=0,
        )
    )
