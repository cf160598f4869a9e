from __future__ import annotations

import os
import threading
from typing import Any

import numpy as np

from citeproof.embeddings.base import EMBEDDING_DIM, EmbeddingError, normalise
from citeproof.embeddings.model_files import LOCAL_MODEL_NAME, model_path


class TorchEmbedder:
    """all-MiniLM-L6-v2 via sentence-transformers on torch fp32 (`..._RUNTIME=torch`).

    The reference the ONNX runtime is measured against (bench/embed.py).
    """

    name = "local"
    model = f"{LOCAL_MODEL_NAME}@torch-fp32"
    dimension = EMBEDDING_DIM

    def __init__(self, batch_size: int, threads: int) -> None:
        self._batch_size = batch_size
        self._threads = threads
        # A SentenceTransformer, loaded on first use (torch stays unimported until then).
        self._model: Any = None
        # sentence-transformers models are not safe to encode from two threads at once.
        self._lock = threading.Lock()

    def _load(self) -> Any:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        try:
            import torch
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:  # pragma: no cover - depends on install
            raise EmbeddingError("the torch runtime needs sentence-transformers") from exc
        if self._threads > 0:
            torch.set_num_threads(self._threads)
        return SentenceTransformer(str(model_path()), device="cpu")

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
