"""Accuracy of a judge alone on Citation-Integrity dev (issue 27's protocol and table), with the
baselines measured in the same run.

    python -m bench.accuracy.judge [--sample N] [--no-baselines]      (make bench-accuracy-judge)

The backend is the configured one (``CITEPROOF_JUDGE_BACKEND``, ``CITEPROOF_JUDGE_LLM_*``; the
offline local judge by default), so an operator points this at their LLM endpoint and gets the
same table for their model. Two situations, each citation once:

* pair level: the citing sentence without its markers against all sentences of its cited
  document, as one passage (``Citation.request``);
* document level: the document's sentences spread through a longer source of other documents'
  sentences, chunked, and the passages closest to the claim handed over
  (``devkit.citint.document_requests``), as the retriever would.

Figures (``citint_score``): 3-class and binary macro-F1 with ``needs_review`` counted wrong,
ROC-AUC of P(supported), answered share, ECE of the top label with its decile table, each with
a 95% bootstrap interval. Baselines in the same run: word overlap (the share of the claim's
content words found in the evidence; its threshold for a label fitted on Citation-Integrity
*train*) and the previous judge (``previous_judge``, from git history). For the local judge, the
CPU time per citation at document level on its configured threads (default 1) and the pairs it
read. ``--sample N`` judges a seeded sample (for slow endpoints).
"""

from __future__ import annotations

import argparse
import asyncio
import math
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

import numpy as np

from bench import common
from bench.accuracy.citint_score import Scored
from citeproof.contracts.judging import JudgeRequest, Verdict
from citeproof.devkit.citint import Citation, document_requests, load_citations
from citeproof.judge import cues
from citeproof.judge.backend import build_backend
from citeproof.judge.bands import UNDECIDED_PROBLEM_PROBABILITY, label_problem_probability
from citeproof.judge.errors import JudgeBackendError
from citeproof.judge.reading import relevance
from citeproof.judge.settings import load_judge_settings
from citeproof.pipeline import BANDS, CONTRADICTED, JUDGE_ERROR, LIKELY_PROBLEM, SUPPORTED

BENCH_SEED: Final = 27
LEVELS: Final = ("pair", "document")
FIGURES: Final = (
    "macro_f1_3class",
    "macro_f1_binary",
    "roc_auc",
    "answered",
    "ece_top_label",
    "ece_stated_label",
)
OVERLAP_GRID: Final = np.round(np.arange(0.0, 1.001, 0.01), 2)


def overlap(request: JudgeRequest) -> float:
    """Share of the claim's content words (crude stems) found anywhere in the evidence."""
    return relevance(cues.content_stems(request.claim), " ".join(p.text for p in request.passages))


def overlap_threshold(train: Sequence[Citation]) -> float:
    """The word-overlap threshold for `supported` that maximises binary macro-F1 on train."""
    scores = np.array([overlap(c.request()) for c in train])
    accurate = np.array([c.label == "SUPPORT" for c in train])
    best = (-1.0, 0.0)
    for t in OVERLAP_GRID:
        said = scores >= t
        f1s = []
        for positive, predicted in ((accurate, said), (~accurate, ~said)):
            tp = np.sum(positive & predicted)
            precision = tp / max(predicted.sum(), 1)
            recall = tp / max(positive.sum(), 1)
            f1s.append(2 * precision * recall / (precision + recall) if tp else 0.0)
        best = max(best, (float(np.mean(f1s)), float(t)))
    return best[1]


def overlap_scored(citations: Sequence[Citation], requests, threshold: float) -> Scored:
    scores = [overlap(r) for r in requests]
    labels = [SUPPORTED if s >= threshold else CONTRADICTED for s in scores]
    # Word overlap states no probability: its calibration is not measured (NaN).
    return Scored([c.label for c in citations], labels, scores, labels, [math.nan] * len(labels))


class Judged:
    """A backend's verdicts with the label it leans to and that label's probability."""

    def __init__(self) -> None:
        self.labels: list[str] = []
        self.p_supported: list[float] = []
        self.top: list[str] = []
        self.top_confidence: list[float] = []
        # The label the judge states (for needs_review the one it leans to) and its probability.
        self.stated: list[str] = []
        self.stated_confidence: list[float] = []
        self.bands: list[str | None] = []
        self.pairs_read = 0
        self.cpu_seconds = 0.0
        # Citations the backend gave no verdict for (an LLM's reply that stayed malformed
        # after its repair request): wrong in every figure, as the judge stage records them.
        self.failures: list[str] = []

    def add(
        self,
        verdict: Verdict,
        top: str,
        confidence: float,
        stated: str | None = None,
        stated_confidence: float | None = None,
    ) -> None:
        """``top``/``confidence``: the most probable label and its probability; ``stated``: the
        label the verdict states or leans to, with its probability (default: the top one)."""
        self.labels.append(verdict.label)
        problem = verdict.problem_probability
        if problem is None:
            problem = label_problem_probability(verdict.label, verdict.confidence)
        self.p_supported.append(1.0 - problem)
        self.bands.append(verdict.band)
        self.top.append(top)
        self.top_confidence.append(confidence)
        self.stated.append(top if stated is None else stated)
        self.stated_confidence.append(
            confidence if stated_confidence is None else stated_confidence
        )

    def add_failure(self, error: JudgeBackendError) -> None:
        """A citation the backend could not judge: ``judge_error``, which claims no gold class
        (wrong in both macro-F1s, not answered), P(supported) 0.5 (says nothing either way)
        and no band; its top label is wrong at stated probability 0."""
        self.labels.append(JUDGE_ERROR)
        self.p_supported.append(1.0 - UNDECIDED_PROBLEM_PROBABILITY)
        self.bands.append(None)
        self.top.append(JUDGE_ERROR)
        self.top_confidence.append(0.0)
        self.stated.append(JUDGE_ERROR)
        self.stated_confidence.append(0.0)
        self.failures.append(f"{type(error).__name__}: {str(error)[:200]}")

    def band_figures(self, citations: Sequence[Citation]) -> dict:
        """What each band holds: the share of citations, and how often they were accurate;
        for `likely_problem` its precision and recall as a detector of inaccurate citations."""
        accurate = np.array([c.label == "SUPPORT" for c in citations])
        bands = np.array([b or "" for b in self.bands])
        figures: dict[str, Any] = {}
        for band in BANDS:
            inside = bands == band
            figures[band] = {
                "n": int(inside.sum()),
                "share": round(float(inside.mean()), 4),
                "accurate": round(float(accurate[inside].mean()), 4) if inside.any() else None,
            }
        flagged = bands == LIKELY_PROBLEM
        figures[LIKELY_PROBLEM]["precision"] = (
            round(float(np.mean(~accurate[flagged])), 4) if flagged.any() else None
        )
        figures[LIKELY_PROBLEM]["recall"] = round(
            float(np.sum(flagged & ~accurate) / max(int((~accurate).sum()), 1)), 4
        )
        return figures

    def scored(self, citations: Sequence[Citation]) -> Scored:
        return Scored(
            [c.label for c in citations], self.labels, self.p_supported, self.top,
            self.top_confidence, self.stated, self.stated_confidence,
        )  # fmt: skip


def judge_local(backend: Any, requests: Sequence[JudgeRequest]) -> Judged:
    """One at a time in this thread, so the CPU time is the judge's alone."""
    judged = Judged()
    started = time.process_time()
    for request in requests:
        verdict, decision = backend.judge_with_decision(request)
        # The most probable label (the probabilities' calibration) and the label the decision
        # weights chose (the stated one's).
        top = max(decision.probabilities, key=decision.probabilities.__getitem__, default=None)
        if top is None:  # no evidence text: a fixed verdict without probabilities
            judged.add(verdict, verdict.label, verdict.confidence)
        else:
            judged.add(
                verdict, top, decision.probabilities[top], decision.leading, decision.confidence
            )
        # Every pair either reader read: the windows and the single sentences.
        reading = decision.reading
        judged.pairs_read += len(reading.windows) + len(reading.sentence_texts) if reading else 0
    judged.cpu_seconds = time.process_time() - started
    return judged


def judge_remote(backend: Any, requests: Sequence[JudgeRequest], concurrency: int) -> Judged:
    async def run() -> list[Verdict | JudgeBackendError]:
        semaphore = asyncio.Semaphore(concurrency)

        async def one(request: JudgeRequest) -> Verdict | JudgeBackendError:
            async with semaphore:
                try:
                    return await backend.judge(request)
                except JudgeBackendError as error:
                    # One citation's bad reply is that citation's failure, not the run's.
                    return error

        try:
            return await asyncio.gather(*(one(r) for r in requests))
        finally:
            await backend.aclose()

    judged = Judged()
    for answer in asyncio.run(run()):
        if isinstance(answer, JudgeBackendError):
            judged.add_failure(answer)
        else:
            judged.add(answer, answer.label, answer.confidence)
    return judged


def previous_scored(citations: Sequence[Citation], requests) -> Scored:
    from bench.accuracy.previous_judge import verdicts

    answers = verdicts(requests)
    return Scored(
        [c.label for c in citations],
        [a.label for a in answers],
        [a.probabilities[SUPPORTED] for a in answers],
        [max(a.probabilities, key=a.probabilities.__getitem__) for a in answers],
        [max(a.probabilities.values()) for a in answers],
    )


def _clean(value: Any) -> Any:
    """JSON has no NaN: a figure that is not measured is null."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value


def print_table(level: str, rows: dict[str, dict]) -> None:
    print(f"\nCitation-Integrity dev, {level} level (n={next(iter(rows.values()))['n']}):")
    print(f"  {'judge':<22}" + "".join(f"{name:>26}" for name in FIGURES))
    for name, report in rows.items():
        cells = []
        for figure in FIGURES:
            # A figure a judge has no data for (the stated label of one that states its top
            # label) is n/a.
            value, (low, high) = report.get(figure), report["ci95"].get(figure, (None, None))
            cells.append(
                "n/a" if value is None or (isinstance(value, float) and math.isnan(value))
                else f"{value:.3f} [{low:.3f}, {high:.3f}]"
            )  # fmt: skip
        print(f"  {name:<22}" + "".join(f"{cell:>26}" for cell in cells))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=common.DATA_DIR / "citint")
    parser.add_argument("--sample", type=int, default=0, help="a seeded sample of N citations")
    parser.add_argument("--no-baselines", action="store_true")
    parser.add_argument("--out", default="", help="results name (default by backend)")
    args = parser.parse_args()
    if not (args.data / "claims_dev.jsonl").exists():
        print(f"Citation-Integrity not found under {args.data}", file=sys.stderr)
        return 2
    started = time.perf_counter()
    settings = load_judge_settings()
    backend = build_backend(settings)
    everyone = load_citations(args.data, ("dev",))
    citations = everyone
    if args.sample:
        citations = sorted(
            random.Random(BENCH_SEED).sample(everyone, min(args.sample, len(everyone))),
            key=lambda c: c.id,
        )
    from citeproof.devkit.minilm import CachedEmbedder, embed_texts

    # Embeddings of the simulated sources are kept between runs (artifacts/, not committed).
    embed = CachedEmbedder(
        embed_texts, common.REPO_ROOT / "artifacts" / "bench-judge-embeddings.npz"
    )
    requests = {
        "pair": [c.request() for c in citations],
        "document": document_requests(citations, everyone, embed, seed=BENCH_SEED),
    }
    embed.persist()
    results: dict[str, Any] = {
        "backend": backend.name,
        "model": backend.model,
        "prompt_version": backend.prompt_version,
        "citations": len(citations),
        "sample_seed": BENCH_SEED if args.sample else None,
        "levels": {},
    }
    threshold = None
    if not args.no_baselines:
        threshold = overlap_threshold(load_citations(args.data, ("train",)))
        results["word_overlap_threshold_from_train"] = threshold
    speed = None
    for level in LEVELS:
        if settings.backend == "local":
            judged = judge_local(backend, requests[level])
            if level == "document":
                speed = {
                    "threads": settings.local_threads,
                    "cpu_s_per_citation": round(judged.cpu_seconds / len(citations), 4),
                    "citations_per_cpu_s": round(len(citations) / judged.cpu_seconds, 2),
                    "pairs_read_per_citation": round(judged.pairs_read / len(citations), 3),
                }
        else:
            judged = judge_remote(
                build_backend(settings), requests[level], settings.llm_concurrency
            )
        rows = {f"this judge ({backend.name})": judged.scored(citations).report()}
        if judged.failures:
            results.setdefault("failed_verdicts", {})[level] = judged.failures
            print(f"  {len(judged.failures)} citation(s) got no verdict: {judged.failures[0]}")
        bands = judged.band_figures(citations)
        results.setdefault("bands", {})[level] = bands
        if threshold is not None:
            rows["word overlap"] = overlap_scored(citations, requests[level], threshold).report()
            rows["previous judge"] = previous_scored(citations, requests[level]).report()
        results["levels"][level] = rows
        print_table(level, rows)
        shown = [f"{band} {f['n']} (accurate {f['accurate']})" for band, f in bands.items()]
        flagged = bands[LIKELY_PROBLEM]
        print(
            "  bands: " + "; ".join(shown) + f"; likely problem precision "
            f"{flagged['precision']}, recall {flagged['recall']}"
        )
    results["speed_document_level"] = speed
    if speed:
        print(
            f"\nspeed at document level, {speed['threads']} thread(s): "
            f"{speed['citations_per_cpu_s']} citations per CPU-second "
            f"({speed['pairs_read_per_citation']} pairs read per citation)"
        )
    results["seconds"] = round(time.perf_counter() - started, 1)
    name = args.out or ("accuracy_judge" if settings.backend == "local" else "accuracy_judge_llm")
    path = common.write_results(name, _clean(results))
    print(f"\nwrote {path} in {results['seconds']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
