"""On-demand chunk embeddings (ADR 0022): a source chunk is embedded the first time a claim's
retrieval needs it, stored in `chunks.embedding` (pgvector) and reused by every later claim,
retriever process and user session that reads the same document.

The vector of a chunk is a function of its text alone (the local runtimes embed one text per
call, ADR 0010), and it is the same vector the parser would have stored at parse time: the same
`documents` embedder, the same text. So whoever computes it first, and however often a crash
makes someone compute it again, the stored value and every ranking built on it are the same.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any, Final

from pgvector import Vector
from prometheus_client import Counter

from citeproof.retriever.index import DocumentIndex, EmbedFn

# The candidates of one claim that have no vector yet, with the text to embed.
SELECT_UNEMBEDDED = """
SELECT id, text FROM chunks
WHERE user_id = $1 AND document_id = $2 AND id = ANY($3::bigint[]) AND embedding IS NULL
ORDER BY id
"""

# Stored once: `embedding IS NULL` makes the second of two retrievers that embedded the same
# chunk at the same time a no-op. Under READ COMMITTED its UPDATE waits for the first one's row
# lock, then re-checks the condition on the committed row and skips it (both computed the same
# vector anyway). One statement per slice, outside any transaction: what it stored is committed
# the moment it returns, so a retriever killed afterwards has lost none of it.
STORE_EMBEDDINGS = """
UPDATE chunks AS c SET embedding = v.embedding
FROM unnest($2::bigint[], $3::vector[]) AS v(id, embedding)
WHERE c.id = v.id AND c.user_id = $1 AND c.embedding IS NULL
"""

# Chunks embedded per call of the embedding thread and per store statement: a retriever killed
# mid-embed loses at most one slice of work (~0.2 s of one core for the local int8 model).
EMBED_SLICE_CHUNKS: Final = 8

CHUNKS_EMBEDDED = Counter(
    "citeproof_retriever_chunks_embedded",
    "Source chunks embedded on demand and stored by this process (a chunk another process "
    "stored first is not counted).",
)


class ChunkVectors:
    """Makes sure the chunks a claim needs have a stored vector; one per retriever process."""

    def __init__(self, embed_chunks: EmbedFn) -> None:
        self.embed_chunks = embed_chunks
        # Single flight inside the process: a retriever runs several retrieve tasks at once,
        # and claims citing the same source often need the same chunks. The first task that
        # needs a chunk embeds it; the others await its future instead of embedding it too.
        # Only the event-loop thread reads or writes this dict (the embedding thread never
        # does), so it needs no lock.
        self._in_flight: dict[int, asyncio.Future[None]] = {}

    async def ensure(
        self,
        pool: Any,
        user_id: Any,
        document_id: Any,
        index: DocumentIndex,
        chunk_ids: Sequence[int],
    ) -> int:
        """Embed and store whichever of `chunk_ids` (chunks of this user's document) have no
        vector yet. Returns how many this call stored."""
        # Chunks this process saw stored already: a stored vector never goes away while the
        # document keeps its version (a re-parse makes new chunk rows and a new index), so the
        # warm path asks the database nothing.
        unknown = [c for c in chunk_ids if c not in index.stored_vectors]
        stored = 0
        while unknown:
            rows = await pool.fetch(SELECT_UNEMBEDDED, user_id, document_id, unknown)
            missing = {int(row["id"]): row["text"] for row in rows}
            index.stored_vectors.update(c for c in unknown if c not in missing)
            if not missing:
                break
            mine = {c: text for c, text in missing.items() if c not in self._in_flight}
            theirs = {c: self._in_flight[c] for c in missing if c not in mine}
            stored += await self._embed_and_store(pool, user_id, mine)
            index.stored_vectors.update(mine)
            # Another task of this process is embedding these; if it failed (its lease was
            # lost, its thread raised), the loop looks again and this task takes them over.
            unknown = []
            for chunk_id, future in theirs.items():
                try:
                    await asyncio.shield(future)
                    index.stored_vectors.add(chunk_id)
                except Exception:
                    unknown.append(chunk_id)
        return stored

    async def _embed_and_store(self, pool: Any, user_id: Any, texts: dict[int, str]) -> int:
        loop = asyncio.get_running_loop()
        # Registered before the first await, so a task scheduled meanwhile finds them.
        futures = {chunk_id: loop.create_future() for chunk_id in texts}
        self._in_flight.update(futures)
        ids = list(texts)
        stored = 0
        try:
            for start in range(0, len(ids), EMBED_SLICE_CHUNKS):
                part = ids[start : start + EMBED_SLICE_CHUNKS]
                vectors = await self.embed_chunks([texts[c] for c in part])
                # Vector objects, not arrays: asyncpg would read a list of arrays as a
                # two-dimensional array of floats.
                rows = [Vector(vector) for vector in vectors]
                status = await pool.execute(STORE_EMBEDDINGS, user_id, part, rows)
                count = int(status.split()[-1])
                stored += count
                CHUNKS_EMBEDDED.inc(count)
                for chunk_id in part:
                    self._in_flight.pop(chunk_id, None)
                    futures[chunk_id].set_result(None)
        except BaseException as exc:
            for chunk_id, future in futures.items():
                if not future.done():
                    self._in_flight.pop(chunk_id, None)
                    future.set_exception(exc if isinstance(exc, Exception) else RuntimeError(exc))
                    future.exception()  # retrieved: no warning when nobody waits for it
            raise
        return stored
