"""all-MiniLM-L6-v2 on ONNX Runtime: the default local runtime.

Tokenisation is the model's own fast tokenizer (tokenizer.json) truncating at the model's max
sequence length, as sentence-transformers does; pooling and normalisation are inside the graph
(onnx_build.py).

Every text runs through the graph on its own, never in a padded batch. Dynamic int8
quantisation scales activations per input tensor, so in a batch a text's vector would depend on
its neighbours (and on their padding): the same claim embedded next to different claims moved
its cosine to a fixed chunk by ~0.005, enough to change a verdict's confidence between two runs
of the same thesis. One text per call makes a vector a function of its text alone, and is also
faster on CPU (no padded positions: 38 vs 30 chunks per CPU-second on real parser chunks).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import numpy as np

from citeproof.embeddings.base import EMBEDDING_DIM, EmbeddingError, normalise
from citeproof.embeddings.model_files import LOCAL_MODEL_NAME, max_seq_length, model_path
from citeproof.embeddings.onnx_build import INPUT_NAMES, default_cache_root, ensure_model
from citeproof.embeddings.onnx_session import cpu_session_options


class OnnxEmbedder:
    name = "local"
    dimension = EMBEDDING_DIM

    def __init__(self, threads: int, precision: str, cache_dir: Path | None = None) -> None:
        self.model = f"{LOCAL_MODEL_NAME}@onnx-{precision}"
        self._threads = threads
        self._precision = precision
        self._cache_dir = cache_dir or default_cache_root()
        # Loaded on first use (onnxruntime is untyped; Any is its boundary).
        self._session: Any = None
        self._tokenizer: Any = None
        # Only loading needs the lock: InferenceSession.run is safe from several threads.
        self._load_lock = threading.Lock()

    def _load(self) -> None:
        try:
            import onnxruntime
            from tokenizers import Tokenizer
        except ImportError as exc:  # pragma: no cover - depends on install
            raise EmbeddingError("the onnx runtime needs onnxruntime and tokenizers") from exc
        path = ensure_model(self._precision, self._cache_dir)
        options = cpu_session_options(self._threads)
        tokenizer = Tokenizer.from_file(str(model_path() / "tokenizer.json"))
        tokenizer.no_padding()
        tokenizer.enable_truncation(max_length=max_seq_length())
        self._session = onnxruntime.InferenceSession(
            str(path), options, providers=["CPUExecutionProvider"]
        )
        self._tokenizer = tokenizer

    def _ensure_loaded(self) -> None:
        if self._session is None:
            with self._load_lock:
                if self._session is None:
                    self._load()

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        if not texts:
            return out
        self._ensure_loaded()
        for row, encoding in enumerate(self._tokenizer.encode_batch(texts)):
            input_ids = np.asarray([encoding.ids], dtype=np.int64)
            attention = np.ones_like(input_ids)
            feeds = dict(zip(INPUT_NAMES, (input_ids, attention), strict=True))
            out[row] = self._session.run(None, feeds)[0][0]
        return normalise(out)
