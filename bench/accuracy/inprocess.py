"""The same benchmark claims judged in this process, with the judge fed different evidence: the
controls that tell where the whole pipeline loses accuracy.

* ``simulated_retrieval``: the top passages of the cited abstract by dense similarity, chunked as
  ``citeproof.devkit.checkcovid`` simulates it (the judge engineer's offline document level).
* ``gold_sentences``: own-abstract claims see exactly their gold evidence sentences; mis-cited
  claims keep their simulated-retrieval verdict (they have no gold evidence). The ceiling of
  perfect retrieval.

Also the judge alone on the gold evidence of every dev row (``judge_on_gold_evidence``), with the
judge engineer's own functions from `bench.accuracy.judge`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Final

import msgspec

from bench.accuracy import checkcovid_judge as accuracy_judge
from bench.accuracy.dataset import BenchClaim
from bench.accuracy.score import FAILURE, LABELS, score
from citeproof.contracts.judging import (
    PARTIALLY_SUPPORTED,
    SUPPORTED,
    JudgeRequest,
    Passage,
    Verdict,
)
from citeproof.devkit.checkcovid import (
    Abstract,
    ClaimRow,
    Example,
    evidence_examples,
    retrieved_passages,
)
from citeproof.devkit.minilm import CachedEmbedder, embed_texts
from citeproof.judge.backend import build_backend
from citeproof.judge.settings import load_judge_settings
from citeproof.pipeline import NEEDS_REVIEW

CONCURRENCY: Final = 4


class InProcessResult(msgspec.Struct, frozen=True):
    controls: dict[str, dict]
    """Control name -> scores over the benchmark claims (same shape as the pipeline's)."""
    judge_on_gold_claims: dict[int, str]
    """Claim key -> the judge's label on its gold evidence sentences (own-abstract claims)."""
    judge_on_gold_evidence: dict | None
    """The judge alone on every dev row's gold evidence; None when not computed here."""
    backend: str
    model: str


def _example(claim: BenchClaim, passages: list[Passage]) -> Example:
    return Example(
        claim=claim.claim,
        passages=passages,
        label=claim.gold,
        level="document",
        group=claim.own_cord_id,
        cited=claim.cited_cord_id,
    )


def _scored(verdict: Verdict) -> str:
    label = SUPPORTED if verdict.label == PARTIALLY_SUPPORTED else verdict.label
    return label if label in (*LABELS, NEEDS_REVIEW) else FAILURE


def judge_controls(
    claims: Sequence[BenchClaim], corpus: dict[str, Abstract], rows: Sequence[ClaimRow] | None
) -> InProcessResult:
    """``rows``: the dev rows for judge_on_gold_evidence, or None to skip it."""
    backend = build_backend(load_judge_settings())
    embed = CachedEmbedder(embed_texts)
    simulated = [
        _example(c, retrieved_passages(c.claim, corpus[c.cited_cord_id], embed)) for c in claims
    ]
    own = [c for c in claims if not c.miscited]
    gold_sentences = []
    for claim in own:
        sentences = corpus[claim.own_cord_id].abstract
        passages = [
            Passage(rank=rank, text=sentences[i], page=1)
            for rank, i in enumerate(claim.evidence_sentences, start=1)
        ]
        gold_sentences.append(_example(claim, passages))
    dev_gold = evidence_examples(rows, corpus) if rows is not None else []

    async def run() -> list[list[Verdict]]:
        try:
            return [
                await accuracy_judge.judge_all(backend, examples, CONCURRENCY)
                for examples in (simulated, gold_sentences, dev_gold)
            ]
        finally:
            await backend.aclose()

    simulated_v, gold_v, dev_v = asyncio.run(run())
    golds = [c.gold for c in claims]
    simulated_labels = {c.key: _scored(v) for c, v in zip(claims, simulated_v, strict=True)}
    on_gold = {c.key: _scored(v) for c, v in zip(own, gold_v, strict=True)}
    controls = {
        "simulated_retrieval": score(golds, [simulated_labels[c.key] for c in claims]),
        # Mis-cited claims have no gold evidence: they keep their simulated-retrieval verdict.
        "gold_sentences": score(
            golds, [on_gold.get(c.key, simulated_labels[c.key]) for c in claims]
        ),
    }
    return InProcessResult(
        controls=controls,
        judge_on_gold_claims=on_gold,
        judge_on_gold_evidence=(
            {**accuracy_judge.score(dev_gold, dev_v), "model": backend.model} if dev_gold else None
        ),
        backend=backend.name,
        model=backend.model,
    )


def judge_citations_per_cpu_s(claims: dict[int, str], evidence: dict[int, list]) -> float | None:
    """Citations the configured local judge decides per CPU-second of this process at one
    thread, on the passages the stack's retriever stored (``claims``: citation id -> claim)."""
    import time

    settings = load_judge_settings()
    if settings.backend != "local":
        return None
    backend = build_backend(msgspec.structs.replace(settings, local_threads=1))
    requests = [
        JudgeRequest(
            claim=claims[citation_id],
            context=None,
            passages=[
                Passage(rank=p.rank, text=p.text, page=p.page, fused_score=p.fused_score)
                for p in passages
            ],
            citation_key=f"speed/{citation_id}",
        )
        for citation_id, passages in evidence.items()
        if citation_id in claims and passages
    ]
    if not requests:
        return None
    backend.judge_sync(requests[0])  # warm-up: first-call allocations are not steady state
    started = time.process_time()
    for request in requests:
        backend.judge_sync(request)
    return round(len(requests) / max(time.process_time() - started, 1e-9), 2)
