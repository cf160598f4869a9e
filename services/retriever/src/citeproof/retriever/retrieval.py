"""Hybrid retrieval of evidence for one claim inside one source document of one user.

Two levels, each fused the same way:
1. chunks — pgvector (exact cosine search over the document's chunks) and BM25 (rank-bm25 over
   the cached chunk index), top-k each, fused; the best `evidence_chunks` chunks go on;
2. sentences of those chunks — the claim's cosine similarity to each sentence's embedding and
   the sentence's BM25 score (IDF from all sentences of the document), fused; the best
   `evidence_passages` sentences become the evidence.

`mode` selects both signals (production) or one of them (the benchmark's baselines).

With on-demand chunk embeddings (the default, ADR 0022; `chunk_vectors` set) the chunk-level
vector search ranks the claim's candidates only — the whole source if it is small, else its
best `candidate_chunks` chunks by BM25 — after embedding whichever of them have no stored vector
yet. With embeddings made at parse time (`chunk_vectors` None) it ranks every chunk.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np

from citeproof.contracts.chunks import EVIDENCE_ROLES
from citeproof.retriever.bm25_terms import tokenize
from citeproof.retriever.cache import IndexCache
from citeproof.retriever.chunk_vectors import ChunkVectors
from citeproof.retriever.fusion import fuse
from citeproof.retriever.index import (
    SELECT_DOCUMENT_VERSION,
    DocumentIndex,
    EmbedFn,
    load_index,
)
from citeproof.retriever.settings import RetrieverSettings

HYBRID: Final = "hybrid"
VECTOR: Final = "vector"
BM25: Final = "bm25"
MODES: Final = (VECTOR, BM25, HYBRID)

# Exact nearest chunks inside ONE document. The MATERIALIZED CTE is the point: it fetches the
# document's rows through (user_id, document_id) first, so the ORDER BY runs over them alone and
# no approximate vector index could ever answer it (filtered after the fact, it could return
# fewer than k rows of this document; the schema has none since ADR 0017). $5 is the evidence roles:
# front-matter chunks are not candidates, so they cannot take one of the k places.
VECTOR_TOP_K = """
WITH document_chunks AS MATERIALIZED (
    SELECT id, embedding FROM chunks
    WHERE user_id = $1 AND document_id = $2 AND embedding IS NOT NULL
      AND role = ANY($5::text[])
)
SELECT id, 1 - (embedding <=> $3) AS similarity
FROM document_chunks
ORDER BY embedding <=> $3
LIMIT $4
"""


# The same search among the claim's candidates ($6) when chunks are embedded on demand: the
# other chunks of the document may or may not have a vector, depending on which claims came
# before, and a ranking that saw them would depend on that history.
VECTOR_TOP_K_AMONG = """
WITH document_chunks AS MATERIALIZED (
    SELECT id, embedding FROM chunks
    WHERE user_id = $1 AND document_id = $2 AND embedding IS NOT NULL
      AND role = ANY($5::text[]) AND id = ANY($6::bigint[])
)
SELECT id, 1 - (embedding <=> $3) AS similarity
FROM document_chunks
ORDER BY embedding <=> $3
LIMIT $4
"""


@dataclass
class RetrievalStats:
    """What one retrieval did besides ranking (for the run's progress)."""

    chunks_embedded: int = 0  # source chunks this retrieval embedded and stored


@dataclass(frozen=True)
class EvidencePassage:
    rank: int
    chunk_id: int
    page: int | None
    text: str
    vector_score: float | None
    bm25_score: float | None
    fused_score: float

    def columns(self) -> tuple:
        """Values in the column order of the `evidence` table after (run_id, citation_id)."""
        return (self.rank, self.chunk_id, self.page, self.text, self.vector_score,
                self.bm25_score, self.fused_score)  # fmt: skip


def _top_k_mask(scores: np.ndarray, k: int) -> np.ndarray:
    """Scores of the k best positive entries, NaN elsewhere (not ranked by this signal)."""
    out = np.full(len(scores), np.nan)
    positive = np.flatnonzero(scores > 0)
    best = positive[np.argsort(-scores[positive], kind="stable")[:k]]
    out[best] = scores[best]
    return out


def _best(fused: np.ndarray, ranked: np.ndarray, limit: int) -> list[int]:
    candidates = np.flatnonzero(ranked)
    order = candidates[np.argsort(-fused[candidates], kind="stable")]
    return [int(i) for i in order[:limit]]


class Retriever:
    """Holds the process's cache and embedding function; one instance per process."""

    def __init__(
        self,
        settings: RetrieverSettings,
        cache: IndexCache,
        embed: EmbedFn,
        chunk_vectors: ChunkVectors | None = None,
    ) -> None:
        self.settings = settings
        self.cache = cache
        self.embed = embed
        # None: every chunk was embedded at parse time (CITEPROOF_EMBEDDINGS_CHUNKS=at_parse).
        self.chunk_vectors = chunk_vectors

    async def index(self, conn: Any, user_id: Any, document_id: Any) -> DocumentIndex:
        settings = self.settings
        # The document's parse time is the cache entry's version: a document id parsed again
        # (a retried failure, a source re-sent as the thesis) has new chunks. It is read
        # before the chunks, so an entry is never older than its key; a parse committing in
        # between only costs one more build at the next lookup.
        version = await conn.fetchval(SELECT_DOCUMENT_VERSION, user_id, document_id)
        return await self.cache.get(
            user_id,
            document_id,
            version=version,
            load=lambda: load_index(
                conn,
                user_id,
                document_id,
                min_chars=settings.min_passage_chars,
                max_chars=settings.max_passage_chars,
            ),
        )

    def _fuse(self, signals: Sequence[np.ndarray]) -> np.ndarray:
        s = self.settings
        return fuse(signals, method=s.fusion, rrf_k=s.rrf_k, vector_weight=s.vector_weight)

    async def retrieve(
        self,
        conn: Any,
        user_id: Any,
        document_id: Any,
        query: str,
        mode: str = HYBRID,
        stats: RetrievalStats | None = None,
    ) -> list[EvidencePassage]:
        if mode not in MODES:
            raise ValueError(f"unknown retrieval mode {mode!r}")
        index = await self.index(conn, user_id, document_id)
        if not index.units:
            return []
        settings = self.settings
        use_vector, use_bm25 = mode != BM25, mode != VECTOR
        tokens = tokenize(query)
        chunk_count = len(index.chunk_ids)

        chunk_signals: list[np.ndarray] = []
        query_vector: np.ndarray | None = None
        chunk_bm25 = index.chunk_bm25_scores(tokens)
        if use_vector:
            query_vector = (await self.embed([query]))[0]
            if self.chunk_vectors is None:
                rows = await conn.fetch(
                    VECTOR_TOP_K,
                    user_id,
                    document_id,
                    query_vector,
                    settings.vector_top_k,
                    list(EVIDENCE_ROLES),
                )
            else:
                candidates = [
                    index.chunk_ids[i]
                    for i in index.candidate_chunks(chunk_bm25, settings.candidate_chunks)
                ]
                embedded = await self.chunk_vectors.ensure(
                    conn, user_id, document_id, index, candidates
                )
                if stats is not None:
                    stats.chunks_embedded += embedded
                rows = await conn.fetch(
                    VECTOR_TOP_K_AMONG,
                    user_id,
                    document_id,
                    query_vector,
                    settings.vector_top_k,
                    list(EVIDENCE_ROLES),
                    candidates,
                )
            positions = index.chunk_position()
            similarities = np.full(chunk_count, np.nan)
            for row in rows:
                position = positions.get(row["id"])
                if position is not None:  # a chunk newer than the cached index is skipped
                    similarities[position] = row["similarity"]
            chunk_signals.append(similarities)
        if use_bm25:
            chunk_signals.append(_top_k_mask(chunk_bm25, settings.bm25_top_k))
        ranked_chunks = np.any([~np.isnan(s) for s in chunk_signals], axis=0)
        top_chunks = _best(self._fuse(chunk_signals), ranked_chunks, settings.evidence_chunks)
        if not top_chunks:
            return []

        unit_ids = [u for c in top_chunks for u in index.chunk_units[c]]
        unit_signals: list[np.ndarray] = []
        vector_scores = bm25_scores = None
        if query_vector is not None:
            vectors = await index.unit_embeddings(top_chunks, self.embed)
            self.cache.enforce_budget()
            vector_scores = vectors[unit_ids] @ query_vector
            unit_signals.append(vector_scores.astype(np.float64))
        if use_bm25:
            bm25_scores = index.unit_bm25_scores(tokens, unit_ids)
            unit_signals.append(np.where(bm25_scores > 0, bm25_scores, np.nan))
        ranked_units = np.any([~np.isnan(s) for s in unit_signals], axis=0)
        fused = self._fuse(unit_signals)
        passages = []
        for rank, i in enumerate(_best(fused, ranked_units, settings.evidence_passages), 1):
            unit = index.units[unit_ids[i]]
            passages.append(
                EvidencePassage(
                    rank=rank,
                    chunk_id=index.chunk_ids[unit.chunk],
                    page=unit.page,
                    text=unit.text,
                    vector_score=None if vector_scores is None else float(vector_scores[i]),
                    bm25_score=None if bm25_scores is None else float(bm25_scores[i]),
                    fused_score=float(fused[i]),
                )
            )
        return passages
