"""Sentence embeddings: the local all-MiniLM-L6-v2 (default) or an OpenAI-compatible endpoint.

One embedder per process (`get_embedder`), loaded lazily and reused: loading the local model
takes seconds and ~100 MB, so no code path may build its own.
"""

from citeproof.embeddings.base import EMBEDDING_DIM, Embedder, EmbeddingError
from citeproof.embeddings.factory import get_embedder
from citeproof.embeddings.settings import EmbeddingSettings

__all__ = ["EMBEDDING_DIM", "Embedder", "EmbeddingError", "EmbeddingSettings", "get_embedder"]
