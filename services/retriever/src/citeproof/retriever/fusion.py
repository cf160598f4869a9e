"""Combining the vector and BM25 rankings of the same candidates into one.

Both functions take one score array per signal over the SAME candidate list (NaN = this signal
did not rank the candidate) and return one fused score per candidate, higher is better.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def ranks(scores: np.ndarray) -> np.ndarray:
    """1-based rank of each candidate under `scores` (NaN -> unranked: +inf)."""
    order = np.argsort(np.where(np.isnan(scores), np.inf, -scores), kind="stable")
    result = np.empty(len(scores))
    result[order] = np.arange(1, len(scores) + 1)
    result[np.isnan(scores)] = np.inf
    return result


def reciprocal_rank_fusion(
    signals: Sequence[np.ndarray], k: int, weights: Sequence[float] | None = None
) -> np.ndarray:
    """Cormack, Clarke & Büttcher (2009): sum of w/(k + rank) over the signals (w = 1 is the
    classic form; unequal weights trust one ranking more)."""
    fused = np.zeros(len(signals[0]))
    for i, scores in enumerate(signals):
        fused += (1.0 if weights is None else weights[i]) / (k + ranks(scores))
    return fused


def min_max(scores: np.ndarray) -> np.ndarray:
    """Scale to [0, 1] over the ranked candidates; unranked ones get 0."""
    ranked = ~np.isnan(scores)
    out = np.zeros(len(scores))
    if not ranked.any():
        return out
    low, high = scores[ranked].min(), scores[ranked].max()
    out[ranked] = 1.0 if high == low else (scores[ranked] - low) / (high - low)
    return out


def weighted_fusion(signals: Sequence[np.ndarray], weights: Sequence[float]) -> np.ndarray:
    """Convex combination of min-max normalised scores."""
    fused = np.zeros(len(signals[0]))
    for scores, weight in zip(signals, weights, strict=True):
        fused += weight * min_max(scores)
    return fused


def fuse(
    signals: Sequence[np.ndarray], *, method: str, rrf_k: int, vector_weight: float
) -> np.ndarray:
    """`signals` is (vector, bm25) or a single signal (one-method baselines)."""
    if len(signals) == 1:
        return np.nan_to_num(signals[0], nan=-np.inf)
    if method == "rrf":
        # Scaled so that vector_weight = 0.5 is the classic, unweighted RRF.
        return reciprocal_rank_fusion(signals, rrf_k, (2 * vector_weight, 2 - 2 * vector_weight))
    return weighted_fusion(signals, (vector_weight, 1.0 - vector_weight))
