from __future__ import annotations

import asyncio
from typing import Protocol

import numpy as np

# The chunks.embedding column is vector(384); every backend must produce this size.
EMBEDDING_DIM = 384


class EmbeddingError(RuntimeError):
    pass


class Embedder(Protocol):
    name: str
    model: str
    dimension: int

    def embed(self, texts: list[str]) -> np.ndarray:
        """float32 array (len(texts), dimension), rows L2-normalised."""
        ...


async def aembed(embedder: Embedder, texts: list[str]) -> np.ndarray:
    """Run a blocking embed in a thread so the event loop (heartbeats!) keeps ticking."""
    return await asyncio.to_thread(embedder.embed, texts)


def normalise(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    normalised: np.ndarray = vectors / norms
    return normalised
