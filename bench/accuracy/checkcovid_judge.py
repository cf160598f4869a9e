"""The judge alone on Check-COVID examples (gold evidence sentences, simulated retrieval), for
the pipeline benchmark's controls (``inprocess.py``): every example judged through the
configured backend, and the three-label scores with ``needs_review`` in its own column.

(``make bench-accuracy-judge`` measures a judge on Citation-Integrity instead: ``judge.py``.)
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Sequence

import numpy as np

from citeproof.contracts.judging import (
    CONTRADICTED,
    PARTIALLY_SUPPORTED,
    SUPPORTED,
    UNSUPPORTED,
    JudgeBackend,
    JudgeRequest,
    Verdict,
)
from citeproof.devkit.checkcovid import Example
from citeproof.devkit.evaluation import classification_report
from citeproof.pipeline import NEEDS_REVIEW

LABELS = (SUPPORTED, UNSUPPORTED, CONTRADICTED)
COLUMNS = (*LABELS, NEEDS_REVIEW)
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
