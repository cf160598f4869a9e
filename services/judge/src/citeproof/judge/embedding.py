"""Sentence embeddings for the local judge: all-MiniLM-L6-v2, offline, CPU.

The classifier's features were learned on MiniLM similarities, so it needs exactly that model. It
shares the process-wide embedder (``citeproof.embeddings``) when that is MiniLM, so the model is
loaded once per process; when the deployment embeds chunks with another model (an OpenAI-compatible
endpoint), the judge keeps a MiniLM of its own.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Final

import numpy as np

from citeproof.embeddings import Embedder, get_embedder
from citeproof.embeddings.local import LOCAL_MODEL_NAME, LocalEmbedder

EMBEDDING_MODEL_NAME: Final = LOCAL_MODEL_NAME
_OWN_BATCH_SIZE: Final = 64

_own: Embedder | None = None
_own_lock = threading.Lock()


def _minilm() -> Embedder:
    global _own
    shared = get_embedder()
    if shared.model == EMBEDDING_MODEL_NAME:
        return shared
    with _own_lock:
        if _own is None:
            _own = LocalEmbedder(_OWN_BATCH_SIZE)
        return _own


def embed_texts(texts: list[str]) -> np.ndarray:
    """Embeddings of ``texts`` as a float32 array of shape (len(texts), 384), rows of norm 1."""
    return _minilm().embed(texts)


class CachedEmbedder:
    """Memoising wrapper for training and benchmarks, where the same sentences recur."""

    def __init__(self, embed: Callable[[list[str]], np.ndarray] = embed_texts) -> None:
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
