from __future__ import annotations

import httpx
import numpy as np

from citeproof.embeddings.base import EMBEDDING_DIM, EmbeddingError, normalise
from citeproof.embeddings.settings import EmbeddingSettings
from citeproof.queue.errors import DependencyDown

# How an outage of the embeddings endpoint is named to people (registry, readiness, runs).
EMBEDDINGS_BACKEND = "embeddings backend"
# Answers that mean "down or overloaded, try later" rather than "this request is wrong".
OUTAGE_STATUSES = frozenset({429, 502, 503, 504})


class OpenAIEmbedder:
    """Any OpenAI-compatible `/v1/embeddings` endpoint (OpenAI, vLLM, Ollama, llama.cpp)."""

    name = "openai"

    def __init__(self, settings: EmbeddingSettings) -> None:
        if not settings.url:
            raise EmbeddingError("CITEPROOF_EMBEDDINGS_URL is required for the openai backend")
        if settings.dimension != EMBEDDING_DIM:
            raise EmbeddingError(
                f"CITEPROOF_EMBEDDINGS_DIMENSION is {settings.dimension}, but the database "
                f"stores {EMBEDDING_DIM}-dim vectors"
            )
        self.model = settings.model
        self.dimension = settings.dimension
        self._batch_size = settings.batch_size
        headers = {"Authorization": f"Bearer {settings.api_key}"} if settings.api_key else {}
        self._client = httpx.Client(
            base_url=settings.url.rstrip("/"), headers=headers, timeout=settings.timeout_s
        )

    def embed(self, texts: list[str]) -> np.ndarray:
        out: list[list[float]] = []
        for start in range(0, len(texts), self._batch_size):
            batch = texts[start : start + self._batch_size]
            try:
                response = self._client.post(
                    "/embeddings",
                    json={"model": self.model, "input": batch, "dimensions": self.dimension},
                )
            except httpx.TransportError as exc:
                # Unreachable or timing out: the endpoint is down, not this document. The
                # runtime holds the stage's tasks (circuit breaker) until it answers again.
                raise DependencyDown(EMBEDDINGS_BACKEND, f"{type(exc).__name__}: {exc}") from exc
            if response.status_code in OUTAGE_STATUSES:
                raise DependencyDown(
                    EMBEDDINGS_BACKEND, f"answered {response.status_code}: {response.text[:200]}"
                )
            if response.status_code != 200:
                raise EmbeddingError(
                    f"embeddings endpoint answered {response.status_code}: {response.text[:200]}"
                )
            data = sorted(response.json()["data"], key=lambda item: item["index"])
            out.extend(item["embedding"] for item in data)
        vectors = np.asarray(out, dtype=np.float32).reshape(len(texts), -1)
        if vectors.shape[1] != self.dimension:
            raise EmbeddingError(
                f"embeddings endpoint returned {vectors.shape[1]}-dim vectors, "
                f"expected {self.dimension}"
            )
        return normalise(vectors)
