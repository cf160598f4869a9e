from __future__ import annotations

import asyncio
import time
from typing import Final, Protocol

import numpy as np
from prometheus_client import Counter

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


# What a batch of texts is embedded for (the `purpose` label of the metrics below): a source's
# passages (by the parser at parse time, or by the retriever on demand) or query-time texts
# (claims and the evidence sentences they are compared with).
PURPOSE_CHUNKS: Final = "chunks"
PURPOSE_QUERIES: Final = "queries"

EMBED_CPU_SECONDS = Counter(
    "citeproof_embedding_cpu_seconds",
    "CPU time of the embedding thread while it embedded (the local runtimes compute on the "
    "calling thread with one intra-op thread, the default).",
    ["purpose"],
)
EMBEDDED_TEXTS = Counter("citeproof_embedding_texts", "Texts embedded.", ["purpose"])


def _embed_counted(embedder: Embedder, texts: list[str], purpose: str) -> np.ndarray:
    # Thread CPU time, not wall time: on a shared host a wall clock would count the waits
    # for a core as embedding work.
    started = time.thread_time()
    try:
        return embedder.embed(texts)
    finally:
        EMBED_CPU_SECONDS.labels(purpose).inc(time.thread_time() - started)
        EMBEDDED_TEXTS.labels(purpose).inc(len(texts))


async def aembed(
    embedder: Embedder, texts: list[str], *, purpose: str = PURPOSE_QUERIES
) -> np.ndarray:
    """Run a blocking embed in a thread so the event loop (heartbeats!) keeps ticking."""
    return await asyncio.to_thread(_embed_counted, embedder, texts, purpose)


def normalise(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    normalised: np.ndarray = vectors / norms
    return normalised
