"""The in-memory index of one source document: its chunks, its sentences, two BM25 indexes
(chunks and sentences) and, filled lazily, sentence embeddings.

Built from the `chunks` rows of one (user, document) pair and nothing else, so it can be thrown
away at any moment and rebuilt identically (cache, not state).
"""

from __future__ import annotations

import asyncio
import bisect
import math
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from rank_bm25 import BM25Okapi

from citeproof.contracts.chunks import EVIDENCE_ROLES
from citeproof.retriever.bm25_terms import tokenize
from citeproof.text.sentences import split_sentences

# Rough per-item costs (CPython objects) for the cache's memory budget.
_BYTES_PER_CHAR = 3
_BYTES_PER_TOKEN = 120
_BYTES_PER_VECTOR_ELEMENT = 4

# The evidence chunks of one document, in reading order. $3 is the evidence roles
# (`citeproof.contracts.chunks`): a front-matter chunk (title, authors, venue) is never evidence.
SELECT_CHUNKS = """
SELECT id, ordinal, page_start, page_end, char_start, text
FROM chunks
WHERE user_id = $1 AND document_id = $2 AND role = ANY($3::text[])
ORDER BY ordinal
"""

SELECT_PAGE_STARTS = "SELECT page_starts FROM documents WHERE id = $2 AND user_id = $1"

# What the cached index of a document is a function of besides (user, document): its parse.
SELECT_DOCUMENT_VERSION = "SELECT parsed_at FROM documents WHERE id = $2 AND user_id = $1"

EmbedFn = Callable[[list[str]], Awaitable[np.ndarray]]


@dataclass(frozen=True)
class Unit:
    """One evidence candidate: a sentence (short ones glued to the next) of one chunk."""

    chunk: int  # index into DocumentIndex.chunk_ids
    text: str
    page: int | None


def split_units(text: str, min_chars: int, max_chars: int) -> list[tuple[int, int]]:
    """Sentence spans of `text`, short sentences merged forward, over-long ones cut."""
    sentences = split_sentences(text)
    merged: list[tuple[int, int]] = []
    start: int | None = None
    for sentence_start, sentence_end in sentences:
        start = sentence_start if start is None else start
        if sentence_end - start >= min_chars:
            merged.append((start, sentence_end))
            start = None
    if start is not None:  # a short tail joins the sentence before it
        tail_end = sentences[-1][1]
        merged[-1:] = [(merged[-1][0] if merged else start, tail_end)]
    spans: list[tuple[int, int]] = []
    for span_start, span_end in merged:
        while span_end - span_start > max_chars:
            spans.append((span_start, span_start + max_chars))
            span_start += max_chars
        spans.append((span_start, span_end))
    return spans


def page_at(offset: int, page_starts: Sequence[int] | None, first: int, last: int) -> int:
    """1-based page of a document offset, clamped to the chunk's own page span."""
    if first == last or not page_starts:
        return first
    page = bisect.bisect_right(page_starts, offset)
    return min(max(page, first), last)


class LuceneIdfBM25(BM25Okapi):
    """Okapi BM25 with Lucene's IDF, log(1 + (N - n + 0.5) / (n + 0.5)), which is always positive.

    rank-bm25's own Okapi IDF is zero or negative for a term in half of the documents or more —
    for a source of one or two chunks that is every term, and BM25 would rank nothing.
    """

    def _calc_idf(self, nd: dict[str, int]) -> None:
        for word, freq in nd.items():
            self.idf[word] = math.log(1 + (self.corpus_size - freq + 0.5) / (freq + 0.5))


def _bm25(corpus: list[list[str]]) -> BM25Okapi | None:
    # rank-bm25 divides by the average length: a corpus without tokens has no index.
    if not corpus or not any(corpus):
        return None
    return LuceneIdfBM25(corpus)


@dataclass
class DocumentIndex:
    user_id: Any
    document_id: Any
    chunk_ids: list[int]
    chunk_units: list[range]
    units: list[Unit]
    chunk_bm25: BM25Okapi | None
    unit_bm25: BM25Okapi | None
    text_chars: int
    token_count: int
    built_at: float = field(default_factory=time.monotonic)
    # Sentence embeddings, filled per chunk on first need (row i = units[i]).
    unit_vectors: np.ndarray | None = None
    embedded_chunks: set[int] = field(default_factory=set)
    # What other components derive from the same document and keep as long as this index (the
    # content rules' `SourceText`), by name; counted in `size_bytes`, dropped with the entry.
    derived: dict[str, Any] = field(default_factory=dict)
    # Chunk ids known to have a stored vector in PostgreSQL (on-demand chunk embeddings, ADR
    # 0022): filled as this process embeds or finds them, so warm claims ask the database
    # nothing. Touched only on the event-loop thread.
    stored_vectors: set[int] = field(default_factory=set)

    @classmethod
    def build(
        cls,
        user_id: Any,
        document_id: Any,
        rows: Sequence[Any],
        page_starts: Sequence[int] | None,
        *,
        min_chars: int,
        max_chars: int,
    ) -> DocumentIndex:
        chunk_ids: list[int] = []
        chunk_units: list[range] = []
        units: list[Unit] = []
        chunk_tokens: list[list[str]] = []
        unit_tokens: list[list[str]] = []
        text_chars = 0
        for chunk_index, row in enumerate(rows):
            text = row["text"]
            text_chars += len(text)
            chunk_ids.append(int(row["id"]))
            first_unit = len(units)
            tokens_of_chunk: list[str] = []
            for start, end in split_units(text, min_chars, max_chars):
                page = page_at(row["char_start"] + start, page_starts, row["page_start"],
                               row["page_end"])  # fmt: skip
                units.append(Unit(chunk=chunk_index, text=text[start:end], page=page))
                unit_tokens.append(tokenize(text[start:end]))
                tokens_of_chunk.extend(unit_tokens[-1])
            # The units cover the chunk's text, so its tokens are theirs (tokenised once).
            chunk_tokens.append(tokens_of_chunk)
            chunk_units.append(range(first_unit, len(units)))
        return cls(
            user_id=user_id,
            document_id=document_id,
            chunk_ids=chunk_ids,
            chunk_units=chunk_units,
            units=units,
            chunk_bm25=_bm25(chunk_tokens),
            unit_bm25=_bm25(unit_tokens),
            text_chars=text_chars,
            token_count=sum(map(len, chunk_tokens)) + sum(map(len, unit_tokens)),
        )

    @property
    def size_bytes(self) -> int:
        vectors = 0 if self.unit_vectors is None else self.unit_vectors.nbytes
        derived = sum(getattr(value, "size_bytes", 0) for value in self.derived.values())
        return (
            self.text_chars * 2 * _BYTES_PER_CHAR
            + self.token_count * _BYTES_PER_TOKEN
            + vectors
            + derived
        )

    def chunk_position(self) -> dict[int, int]:
        return {chunk_id: i for i, chunk_id in enumerate(self.chunk_ids)}

    def candidate_chunks(self, chunk_bm25: np.ndarray, depth: int) -> list[int]:
        """Positions of the chunks a claim's vector search ranks when chunks are embedded on
        demand: every chunk of a source with at most `depth` of them, otherwise the `depth`
        best by the claim's BM25 score (positive scores only; ties in reading order). A function
        of the claim and the document alone, never of which chunks earlier claims embedded, so
        a claim retrieves the same passages whatever ran before it."""
        if len(self.chunk_ids) <= depth:
            return list(range(len(self.chunk_ids)))
        positive = np.flatnonzero(chunk_bm25 > 0)
        best = positive[np.argsort(-chunk_bm25[positive], kind="stable")[:depth]]
        return sorted(int(i) for i in best)

    def chunk_bm25_scores(self, query_tokens: list[str]) -> np.ndarray:
        if self.chunk_bm25 is None or not query_tokens:
            return np.zeros(len(self.chunk_ids))
        return np.asarray(self.chunk_bm25.get_scores(query_tokens), dtype=np.float64)

    def unit_bm25_scores(self, query_tokens: list[str], unit_ids: list[int]) -> np.ndarray:
        if self.unit_bm25 is None or not query_tokens or not unit_ids:
            return np.zeros(len(unit_ids))
        return np.asarray(self.unit_bm25.get_batch_scores(query_tokens, unit_ids))

    async def unit_embeddings(self, chunks: Sequence[int], embed: EmbedFn) -> np.ndarray:
        """The unit embedding matrix, after embedding the units of `chunks` not done yet.

        Rows of units in chunks never asked for stay zero: callers read only the rows of the
        chunks they passed.
        """
        missing = [c for c in chunks if c not in self.embedded_chunks]
        unit_ids = [u for c in missing for u in self.chunk_units[c]]
        if unit_ids:
            vectors = await embed([self.units[u].text for u in unit_ids])
            if self.unit_vectors is None:
                self.unit_vectors = np.zeros((len(self.units), vectors.shape[1]), np.float32)
            self.unit_vectors[unit_ids] = vectors
        self.embedded_chunks.update(missing)
        if self.unit_vectors is None:
            return np.zeros((len(self.units), 0), np.float32)
        return self.unit_vectors


async def load_index(
    conn: Any, user_id: Any, document_id: Any, *, min_chars: int, max_chars: int
) -> DocumentIndex:
    """Rebuild a document's index from PostgreSQL, strictly within the user's own rows."""
    rows = await conn.fetch(SELECT_CHUNKS, user_id, document_id, list(EVIDENCE_ROLES))
    page_starts = await conn.fetchval(SELECT_PAGE_STARTS, user_id, document_id)
    # Sentence splitting and two BM25 indexes are seconds of CPU for a long source: in a
    # thread, so the event loop (heartbeats, other tasks' I/O) keeps running meanwhile. The
    # build reads only its arguments and returns a new object, so nothing is shared.
    return await asyncio.to_thread(
        DocumentIndex.build,
        user_id,
        document_id,
        rows,
        page_starts,
        min_chars=min_chars,
        max_chars=max_chars,
    )
