"""Accuracy and calibration measures (numpy only), shared by training and the benchmarks."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np


def classification_report(
    y_true: Sequence[int] | np.ndarray, y_pred: Sequence[int] | np.ndarray, labels: Sequence[str]
) -> dict[str, Any]:
    """Macro-F1, per-class precision/recall/F1/support and the confusion matrix.

    ``confusion[i][j]`` counts gold label ``labels[i]`` predicted as ``labels[j]``.
    """
    true = np.asarray(y_true, dtype=int)
    pred = np.asarray(y_pred, dtype=int)
    size = len(labels)
    confusion = np.zeros((size, size), dtype=int)
    for t, p in zip(true, pred, strict=True):
        confusion[t, p] += 1
    per_class = {}
    f1s = []
    for i, label in enumerate(labels):
        tp = confusion[i, i]
        precision = tp / confusion[:, i].sum() if confusion[:, i].sum() else 0.0
        recall = tp / confusion[i, :].sum() if confusion[i, :].sum() else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        f1s.append(f1)
        per_class[label] = {
            "precision": round(float(precision), 4),
            "recall": round(float(recall), 4),
            "f1": round(float(f1), 4),
            "support": int(confusion[i, :].sum()),
        }
    return {
        "macro_f1": round(float(np.mean(f1s)), 4),
        "accuracy": round(float(np.trace(confusion) / max(len(true), 1)), 4),
        "per_class": per_class,
        "labels": list(labels),
        "confusion": confusion.tolist(),
        "n": len(true),
    }


def expected_calibration_error(probs: np.ndarray, y_true: np.ndarray, bins: int = 10) -> float:
    """Mean |accuracy - confidence| of the top label over equal-width confidence bins."""
    confidence = probs.max(axis=1)
    correct = probs.argmax(axis=1) == np.asarray(y_true)
    edges = np.linspace(0.0, 1.0, bins + 1)
    error = 0.0
    for low, high in itertools.pairwise(edges):
        in_bin = (confidence > low) & (confidence <= high)
        if in_bin.any():
            error += in_bin.mean() * abs(correct[in_bin].mean() - confidence[in_bin].mean())
    return round(float(error), 4)
