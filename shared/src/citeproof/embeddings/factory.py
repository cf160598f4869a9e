from __future__ import annotations

import threading

from citeproof.embeddings.base import Embedder
from citeproof.embeddings.settings import EmbeddingSettings
from citeproof.settings import load

_lock = threading.Lock()
_instance: Embedder | None = None


def get_embedder(settings: EmbeddingSettings | None = None) -> Embedder:
    """The process-wide embedder (built on first use from `settings` or the environment)."""
    global _instance
    with _lock:
        if _instance is None:
            settings = settings or load(EmbeddingSettings)
            if settings.backend == "openai":
                from citeproof.embeddings.openai import OpenAIEmbedder

                _instance = OpenAIEmbedder(settings)
            else:
                from citeproof.embeddings.local import LocalEmbedder

                _instance = LocalEmbedder(settings.batch_size)
        return _instance
