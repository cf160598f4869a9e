"""Accuracy of the judge alone on Check-COVID dev (the pipeline's part is bench-accuracy's job).

    python -m bench.accuracy.judge [--claims FILE] [--corpus FILE]

(default: the dev split and corpus under `bench.common.CHECKCOVID_DIR`)

Two measurements, written to bench/results/accuracy_judge.json:

* ``judge_on_gold_evidence``: each dev row's claim against its gold evidence sentences; all
  three labels are meaningful (SUPPORT -> supported, REFUTE -> contradicted, NOTENOUGHINFO ->
  unsupported).
* ``document_level_offline``: what the pipeline should expect. Each unique (claim, abstract) pair
  against the top passages of the abstract it cites; a fixed-seed third of the claims cite an
  abstract that is not theirs (-> unsupported), as in the pipeline benchmark. Passages come from an
  in-memory simulation of chunking and dense retrieval, not from the running stack.

The backend is the configured one (``CITEPROOF_JUDGE_*``; the offline local judge by default).
``partially_supported`` counts as ``supported`` in the three-label scores.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import msgspec
import numpy as np

from bench.common import CHECKCOVID_DIR, RESULTS_DIR
from citeproof.contracts.judging import (
    CONTRADICTED,
    PARTIALLY_SUPPORTED,
    SUPPORTED,
    UNSUPPORTED,
    JudgeBackend,
    JudgeRequest,
    Verdict,
)
from citeproof.devkit.checkcovid import (
    Example,
    document_examples,
    evidence_examples,
    files_sha256,
    load_claims,
    load_corpus,
)
from citeproof.devkit.evaluation import classification_report
from citeproof.devkit.minilm import CachedEmbedder, embed_texts
from citeproof.judge.backend import build_backend
from citeproof.judge.settings import load_judge_settings
from citeproof.pipeline import NEEDS_REVIEW

LABELS = (SUPPORTED, UNSUPPORTED, CONTRADICTED)
COLUMNS = (*LABELS, NEEDS_REVIEW)
BENCH_SEED = 6
MISCITE_SHARE = 1 / 3
CONFIDENCE_BINS = (0.0, 0.45, 0.6, 0.75, 0.9, 1.0001)


async def judge_all(
    backend: JudgeBackend, examples: Sequence[Example], concurrency: int
) -> list[Verdict]:
    semaphore = asyncio.Semaphore(concurrency)

    async def one(index: int, example: Example) -> Verdict:
        async with semaphore:
            return await backend.judge(
                JudgeRequest(
                    claim=example.claim,
                    context=None,
                    passages=example.passages,
                    citation_key=f"bench/{example.level}/{index}",
                )
            )

    return await asyncio.gather(*(one(i, e) for i, e in enumerate(examples)))


def _column(label: str) -> int:
    label = SUPPORTED if label == PARTIALLY_SUPPORTED else label
    return COLUMNS.index(label) if label in COLUMNS else COLUMNS.index(NEEDS_REVIEW)


def score(
    examples: Sequence[Example], verdicts: Sequence[Verdict], forced: Sequence[Verdict] = ()
) -> dict:
    """Macro-F1 over the three labels with ``needs_review`` counted wrong (its own column);
    ``forced``: the same judge with abstention off, scored as ``macro_f1_forced``."""
    gold = [LABELS.index(e.label) for e in examples]
    predicted = [_column(v.label) for v in verdicts]
    full = classification_report(gold, predicted, COLUMNS)
    per_class = {label: full["per_class"][label] for label in LABELS}
    report = {
        **full,
        "per_class": per_class,
        "labels": list(LABELS),
        "confusion_columns": list(COLUMNS),
        "confusion": full["confusion"][: len(LABELS)],
        "macro_f1": round(float(np.mean([row["f1"] for row in per_class.values()])), 4),
        "definite_share": round(float(np.mean([p < len(LABELS) for p in predicted])), 4),
    }
    if forced:
        forced_report = classification_report(
            gold, [min(_column(v.label), len(LABELS) - 1) for v in forced], LABELS
        )
        report["macro_f1_forced"] = forced_report["macro_f1"]
        report["per_class_forced"] = forced_report["per_class"]
    confidence = np.array([v.confidence for v in verdicts])
    correct = np.array(gold) == np.array(predicted)  # needs_review is never correct
    reliability = []
    for low, high in itertools.pairwise(CONFIDENCE_BINS):
        in_bin = (confidence >= low) & (confidence < high)
        if in_bin.any():
            reliability.append(
                {
                    "confidence": f"{low:.2f}-{min(high, 1):.2f}",
                    "n": int(in_bin.sum()),
                    "mean_confidence": round(float(confidence[in_bin].mean()), 3),
                    "accuracy": round(float(correct[in_bin].mean()), 3),
                }
            )
    report["reliability"] = reliability
    report["abstained"] = sum(v.label == NEEDS_REVIEW for v in verdicts)
    report["downgraded"] = sum(v.downgraded_from is not None for v in verdicts)
    report["mean_latency_ms"] = round(float(np.mean([v.latency_ms for v in verdicts])), 2)
    report["prompt_tokens"] = sum(v.prompt_tokens for v in verdicts)
    report["completion_tokens"] = sum(v.completion_tokens for v in verdicts)
    return report


def print_report(title: str, report: dict) -> None:
    print(
        f"\n{title}: macro-F1 {report['macro_f1']:.3f}, accuracy {report['accuracy']:.3f}, "
        f"n={report['n']}, abstained {report['abstained']}, downgraded {report['downgraded']}"
    )
    print(f"  {'label':<14}{'precision':>10}{'recall':>8}{'F1':>7}{'n':>5}")
    for label, row in report["per_class"].items():
        print(
            f"  {label:<14}{row['precision']:>10.3f}{row['recall']:>8.3f}{row['f1']:>7.3f}"
            f"{row['support']:>5}"
        )
    print("  confusion (rows gold, columns predicted: " + ", ".join(COLUMNS) + ")")
    if "macro_f1_forced" in report:
        print(f"  with abstention off: macro-F1 {report['macro_f1_forced']:.3f}")
    for label, row in zip(LABELS, report["confusion"], strict=True):
        print(f"  {label:<14}" + "".join(f"{count:>6}" for count in row))
    print("  reliability: " + "; ".join(
        f"{b['confidence']}: n={b['n']} conf {b['mean_confidence']:.2f} acc {b['accuracy']:.2f}"
        for b in report["reliability"]
    ))  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--claims", type=Path, default=CHECKCOVID_DIR / "covidCheck_dev_composed+extracted.json"
    )
    parser.add_argument("--corpus", type=Path, default=CHECKCOVID_DIR / "corpus.json")
    parser.add_argument("--out", type=Path, default=RESULTS_DIR / "accuracy_judge.json")
    parser.add_argument("--concurrency", type=int, default=4)
    args = parser.parse_args()
    for path in (args.claims, args.corpus):
        if not path.exists():
            print(f"data not found: {path}", file=sys.stderr)
            return 2
    started = time.perf_counter()
    settings = load_judge_settings()
    backend = build_backend(settings)
    rows = load_claims(args.claims)
    corpus = load_corpus(args.corpus)
    embed = CachedEmbedder(embed_texts)
    gold_examples = evidence_examples(rows, corpus)
    document = document_examples(
        rows,
        corpus,
        embed,
        seed=BENCH_SEED,
        miscite_share=MISCITE_SHARE,
        keep_true_pairs=False,
        nearest_share=0.0,
    )

    async def run() -> tuple[list[Verdict], list[Verdict]]:
        try:
            return (
                await judge_all(backend, gold_examples, args.concurrency),
                await judge_all(backend, document, args.concurrency),
            )
        finally:
            await backend.aclose()

    gold_verdicts, document_verdicts = asyncio.run(run())
    forced_gold: list[Verdict] = []
    forced_document: list[Verdict] = []
    if settings.backend == "local":
        # The same judge never abstaining: what the cross-encoder and aggregator get right alone.
        never_abstains = build_backend(msgspec.structs.replace(settings, local_abstain_below=0.0))

        async def run_forced() -> tuple[list[Verdict], list[Verdict]]:
            try:
                return (
                    await judge_all(never_abstains, gold_examples, args.concurrency),
                    await judge_all(never_abstains, document, args.concurrency),
                )
            finally:
                await never_abstains.aclose()

        forced_gold, forced_document = asyncio.run(run_forced())
    result = {
        "judge_on_gold_evidence": score(gold_examples, gold_verdicts, forced_gold),
        "document_level_offline": score(document, document_verdicts, forced_document),
        "backend": backend.name,
        "model": backend.model,
        "prompt_version": backend.prompt_version,
        "data_sha256": files_sha256(args.claims, args.corpus),
        "miscite_share": round(MISCITE_SHARE, 4),
        "seed": BENCH_SEED,
        "seconds": round(time.perf_counter() - started, 1),
    }
    print_report("Judge on gold evidence (dev rows)", result["judge_on_gold_evidence"])
    print_report("Document level, offline simulation (dev pairs)", result["document_level_offline"])
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"\nwrote {args.out} in {result['seconds']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
