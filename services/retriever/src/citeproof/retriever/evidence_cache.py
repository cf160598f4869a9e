"""Evidence kept between runs (issue 28): a claim asked again of the same parse of the same
source gets the passages it got before, without retrieving (no index, no embedding).

Retrieval is a function of the query, the document's chunks (fixed by its parse time), the
retriever's settings and the embedding models (ADR 0010: a vector depends on its text alone), so
an entry keyed by all of them is exactly what retrieving again would produce. A re-check of an
edited thesis therefore retrieves only the changed and the new claims; the others reuse their
evidence, and identical evidence then finds its verdict in the judge's cache.
"""

from __future__ import annotations

import hashlib
from typing import Any, Final

import msgspec
from prometheus_client import Counter

from citeproof.embeddings import EmbeddingSettings
from citeproof.retriever.index import SELECT_DOCUMENT_VERSION
from citeproof.retriever.retrieval import EvidencePassage
from citeproof.retriever.settings import RetrieverSettings

# Raised whenever retrieval changes in a way its settings do not show (a new ranking rule, a new
# sentence splitter): old entries are then simply never found again.
RETRIEVAL_VERSION: Final = 1
# The settings of the retriever that decide its passages (the others schedule work or configure
# the open-access lookup).
RANKING_SETTINGS: Final = (
    "vector_top_k", "bm25_top_k", "evidence_chunks", "candidate_chunks", "evidence_passages",
    "fusion", "rrf_k", "vector_weight", "min_passage_chars", "max_passage_chars", "use_context",
)  # fmt: skip
# The embedding settings that decide a vector (never the API key, the timeout or the threads).
EMBEDDING_SETTINGS: Final = (
    "backend", "runtime", "precision", "query_precision", "chunks", "url", "model", "dimension",
)  # fmt: skip

SELECT_EVIDENCE = """
SELECT passages FROM retrieval_cache WHERE user_id = $1 AND document_id = $2 AND cache_key = $3
"""

# Two tasks asking the same at once both retrieve and store the same passages: the first insert
# wins, the second does nothing.
INSERT_EVIDENCE = """
INSERT INTO retrieval_cache (user_id, document_id, cache_key, passages)
VALUES ($1, $2, $3, $4::jsonb)
ON CONFLICT (user_id, document_id, cache_key) DO NOTHING
"""

LOOKUPS = Counter(
    "citeproof_retriever_evidence_cache_lookups",
    "Evidence lookups before retrieving: hit (reused from an earlier run) or miss.",
    ["result"],
)


class EvidenceCache:
    def __init__(self, settings: RetrieverSettings, embeddings: EmbeddingSettings) -> None:
        # What every key shares, computed once per process.
        self._context = msgspec.json.encode(
            [
                RETRIEVAL_VERSION,
                {name: getattr(settings, name) for name in RANKING_SETTINGS},
                {name: getattr(embeddings, name) for name in EMBEDDING_SETTINGS},
            ]
        )

    async def version(self, pool: Any, user_id: Any, document_id: Any) -> Any:
        """The document's parse time, read BEFORE retrieving: if a re-parse commits meanwhile,
        the new passages are stored under the old version, which nobody asks for again."""
        return await pool.fetchval(SELECT_DOCUMENT_VERSION, user_id, document_id)

    def key(self, version: Any, query: str, mode: str) -> bytes:
        material = msgspec.json.encode([str(version), query, mode])
        return hashlib.sha256(self._context + b"\0" + material).digest()

    async def get(
        self, pool: Any, user_id: Any, document_id: Any, key: bytes
    ) -> list[EvidencePassage] | None:
        stored = await pool.fetchval(SELECT_EVIDENCE, user_id, document_id, key)
        LOOKUPS.labels("miss" if stored is None else "hit").inc()
        if stored is None:
            return None
        return msgspec.json.decode(stored, type=list[EvidencePassage])

    async def put(
        self, pool: Any, user_id: Any, document_id: Any, key: bytes, passages: list[EvidencePassage]
    ) -> None:
        encoded = msgspec.json.encode(passages).decode()
        await pool.execute(INSERT_EVIDENCE, user_id, document_id, key, encoded)
