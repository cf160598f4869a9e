"""Scoring a judge on Citation-Integrity (issue 27's protocol), one definition for the training
recipe and the benchmark.

Gold: SUPPORT (accurate), REFUTE (not accurate as written), NO_EVIDENCE (irrelevant). A verdict
scores as: ``supported`` -> SUPPORT; ``contradicted`` or ``partially_supported`` -> REFUTE;
``unsupported`` -> NO_EVIDENCE; anything else (``needs_review``, a pipeline label) is wrong for
every gold class. Binary: accurate (``supported``) against not accurate (the other three); again
``needs_review`` is wrong whatever the gold.

* 3-class and binary macro-F1 with that rule (an undecided verdict counts against recall);
* ROC-AUC, accurate vs not, of P(supported) = 1 - problem probability;
* answered: share of verdicts that are not ``needs_review``;
* expected calibration error of the top label (the most probable label's probability against
  whether it is right) over equal-count deciles, with the table; and, where a judge decides
  otherwise than by the most probable label (the local judge's decision weights), the same of
  the label it states (for an undecided verdict the label it leans to) with that label's
  probability (``ece_stated_label``);
* 95% bootstrap intervals (citations resampled, seeded) for each figure;
* the ECE a perfectly calibrated judge would show at the same stated probabilities on a sample
  this size (``ece_noise_floor``): the floor an ECE bar must be read against.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import numpy as np

from citeproof.devkit.citint import NO_EVIDENCE, REFUTE, SUPPORT
from citeproof.pipeline import CONTRADICTED, PARTIALLY_SUPPORTED, SUPPORTED, UNSUPPORTED

GOLD: Final = (SUPPORT, REFUTE, NO_EVIDENCE)
# Verdict label -> the gold class it claims; any other label claims none (always wrong).
CLAIMS: Final = {
    SUPPORTED: SUPPORT,
    CONTRADICTED: REFUTE,
    PARTIALLY_SUPPORTED: REFUTE,
    UNSUPPORTED: NO_EVIDENCE,
}
BOOTSTRAP_ROUNDS: Final = 1000
BOOTSTRAP_SEED: Final = 27
DECILES: Final = 10
# Simulated samples behind ``ece_noise_floor``.
FLOOR_ROUNDS: Final = 2000
FLOOR_SEED: Final = 29


def _macro_f1(gold: np.ndarray, predicted: np.ndarray, classes: Sequence[int]) -> float:
    """Macro-F1 over ``classes``; a prediction outside them (-1) is wrong for every class."""
    f1s = []
    for c in classes:
        tp = np.sum((predicted == c) & (gold == c))
        said = np.sum(predicted == c)
        actual = np.sum(gold == c)
        precision = tp / said if said else 0.0
        recall = tp / actual if actual else 0.0
        f1s.append(2 * precision * recall / (precision + recall) if precision + recall else 0.0)
    return float(np.mean(f1s))


def roc_auc(positive: np.ndarray, score: np.ndarray) -> float:
    """Probability that a random positive scores above a random negative (ties count half)."""
    from sklearn.metrics import roc_auc_score

    if positive.all() or not positive.any():
        return float("nan")
    return float(roc_auc_score(positive, score))


def reliability(confidence: np.ndarray, correct: np.ndarray, bins: int = DECILES) -> list[dict]:
    """Equal-count bins of the stated probability, lowest first."""
    order = np.argsort(confidence, kind="mergesort")
    rows = []
    for part in np.array_split(order, bins):
        if len(part):
            rows.append(
                {
                    "n": len(part),
                    "from": round(float(confidence[part].min()), 3),
                    "to": round(float(confidence[part].max()), 3),
                    "stated": round(float(confidence[part].mean()), 3),
                    "right": round(float(correct[part].mean()), 3),
                }
            )
    return rows


def ece(confidence: np.ndarray, correct: np.ndarray, bins: int = DECILES) -> float:
    """Expected calibration error over equal-count bins (weighted mean |stated - right|)."""
    order = np.argsort(confidence, kind="mergesort")
    total = 0.0
    for part in np.array_split(order, bins):
        if len(part):
            total += len(part) * abs(confidence[part].mean() - correct[part].mean())
    return float(total / max(len(confidence), 1))


def ece_noise_floor(
    confidence: np.ndarray,
    bins: int = DECILES,
    rounds: int = FLOOR_ROUNDS,
    seed: int = FLOOR_SEED,
) -> dict[str, float]:
    """The ECE a perfectly calibrated judge would show at these stated probabilities on a sample
    this size (each verdict right with exactly its stated probability, simulated ``rounds``
    times): its mean and 95th percentile. Binned ECE is biased upward on small samples (every
    bin's share right is off by sampling noise alone), so a bar below this floor is met by luck,
    and an ECE near it says the judge is as calibrated as the sample can tell."""
    confidence = np.asarray(confidence, dtype=float)
    rng = np.random.default_rng(seed)
    simulated = np.array(
        [ece(confidence, rng.random(len(confidence)) < confidence, bins) for _ in range(rounds)]
    )
    return {
        "mean": round(float(simulated.mean()), 4),
        "p95": round(float(np.percentile(simulated, 95)), 4),
    }


class Scored:
    """One judge's answers on a list of citations, as arrays."""

    def __init__(
        self,
        gold: Sequence[str],
        labels: Sequence[str],
        p_supported: Sequence[float],
        top_labels: Sequence[str],
        top_confidence: Sequence[float],
        stated_labels: Sequence[str] | None = None,
        stated_confidence: Sequence[float] | None = None,
    ) -> None:
        self.gold = np.array([GOLD.index(g) for g in gold])
        self.predicted = np.array(
            [GOLD.index(CLAIMS[label]) if label in CLAIMS else -1 for label in labels]
        )
        self.p_supported = np.asarray(p_supported, dtype=float)
        self.top = np.array(
            [GOLD.index(CLAIMS[label]) if label in CLAIMS else -1 for label in top_labels]
        )
        self.top_confidence = np.asarray(top_confidence, dtype=float)
        self.stated = (
            None
            if stated_labels is None
            else np.array(
                [GOLD.index(CLAIMS[label]) if label in CLAIMS else -1 for label in stated_labels]
            )
        )
        self.stated_confidence = (
            None if stated_confidence is None else np.asarray(stated_confidence, dtype=float)
        )

    def figures(self, index: np.ndarray | None = None) -> dict[str, float]:
        i = np.arange(len(self.gold)) if index is None else index
        gold, predicted = self.gold[i], self.predicted[i]
        accurate = gold == 0
        binary_pred = np.where(predicted == -1, -1, (predicted != 0).astype(int))
        figures = {
            "macro_f1_3class": _macro_f1(gold, predicted, (0, 1, 2)),
            "macro_f1_binary": _macro_f1((~accurate).astype(int), binary_pred, (0, 1)),
            "roc_auc": roc_auc(accurate, self.p_supported[i]),
            "answered": float(np.mean(predicted != -1)),
            "ece_top_label": ece(self.top_confidence[i], self.top[i] == gold),
        }
        if self.stated is not None and self.stated_confidence is not None:
            figures["ece_stated_label"] = ece(self.stated_confidence[i], self.stated[i] == gold)
        return figures

    def report(self, rounds: int = BOOTSTRAP_ROUNDS, seed: int = BOOTSTRAP_SEED) -> dict:
        point = self.figures()
        rng = np.random.default_rng(seed)
        draws = [
            self.figures(rng.integers(0, len(self.gold), len(self.gold))) for _ in range(rounds)
        ]
        intervals = {
            name: [
                round(float(np.nanpercentile([d[name] for d in draws], 2.5)), 4),
                round(float(np.nanpercentile([d[name] for d in draws], 97.5)), 4),
            ]
            for name in point
        }
        result = {
            "n": len(self.gold),
            **{name: round(value, 4) for name, value in point.items()},
            "ci95": intervals,
            "reliability_deciles": reliability(self.top_confidence, self.top == self.gold),
            "confusion": confusion(self.gold, self.predicted),
            # What a perfectly calibrated judge would show here (``ece_noise_floor``).
            "ece_floor": {"top_label": ece_noise_floor(self.top_confidence)},
        }
        if self.stated is not None and self.stated_confidence is not None:
            # The table behind ``ece_stated_label``: what a reader of the verdicts sees.
            result["reliability_deciles_stated"] = reliability(
                self.stated_confidence, self.stated == self.gold
            )
            result["ece_floor"]["stated_label"] = ece_noise_floor(self.stated_confidence)
        return result


def confusion(gold: np.ndarray, predicted: np.ndarray) -> dict[str, dict[str, int]]:
    """Rows gold, columns predicted (``undecided_or_other`` for -1)."""
    columns = [*GOLD, "undecided_or_other"]
    return {
        g: {
            columns[c]: int(np.sum((gold == gi) & (predicted == (c if c < len(GOLD) else -1))))
            for c in range(len(columns))
        }
        for gi, g in enumerate(GOLD)
    }
