from __future__ import annotations

import threading
from pathlib import Path

from citeproof.embeddings.base import Embedder
from citeproof.embeddings.settings import EmbeddingSettings
from citeproof.settings import load

_lock = threading.Lock()
_instance: Embedder | None = None


def build_embedder(settings: EmbeddingSettings) -> Embedder:
    """A new embedder for `settings` (services use the process-wide `get_embedder`)."""
    if settings.backend == "openai":
        from citeproof.embeddings.openai import OpenAIEmbedder

        return OpenAIEmbedder(settings)
    if settings.runtime == "torch":
        from citeproof.embeddings.local_torch import TorchEmbedder

        return TorchEmbedder(settings.batch_size, settings.threads)
    from citeproof.embeddings.local_onnx import OnnxEmbedder

    cache_dir = Path(settings.cache_dir) if settings.cache_dir else None
    return OnnxEmbedder(settings.threads, settings.precision, cache_dir)


def get_embedder(settings: EmbeddingSettings | None = None) -> Embedder:
    """The process-wide embedder (built on first use from `settings` or the environment)."""
    global _instance
    with _lock:
        if _instance is None:
            _instance = build_embedder(settings or load(EmbeddingSettings))
        return _instance
