"""Chunk-insert cost with and without the HNSW index on `chunks.embedding`, at several table
sizes, on one fresh embedded PostgreSQL.

    .venv/bin/python -m bench.chunk_index [--sizes 10000,100000] [--documents 40] [--rounds 3]

Two tables with the migrated `chunks` columns hold the same rows: `chunks` itself (with an HNSW
index, `vector_cosine_ops`, pgvector's default build parameters) and a copy without it. Both are
topped up to each size with COPY (random unit 384-d vectors: insert cost does not depend on what
the vectors mean), the index is rebuilt, and then rounds alternate between the two tables, each
round storing `--documents` documents of `CHUNKS_PER_DOCUMENT` chunks the way the parser does
(the parser's own INSERT, `executemany`, one transaction per document). Reported per table and
size: wall-clock ms per chunk (median round) and the PostgreSQL server's CPU ms per chunk
(robust to other load on a shared machine), the index size and build time.

Writes bench/results/chunk_index.json.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import asyncpg
import numpy as np

from bench import common
from citeproof.db.migrate import apply_migrations
from citeproof.db.pool import create_pool
from citeproof.db.settings import DatabaseSettings
from citeproof.parser.store import _INSERT_CHUNK as PARSER_INSERT_CHUNK

RESULT_NAME = "chunk_index"
DIMENSIONS = 384
DEFAULT_SIZES = (10_000, 100_000)
DEFAULT_DOCUMENTS = 40
DEFAULT_ROUNDS = 3
# About what the parser makes of a 10-page source (parse.json: chunks of ~1,000 characters).
CHUNKS_PER_DOCUMENT = 25
CHUNK_TEXT = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 6
# Holds the whole 100k-row graph in memory during the build, as an operator would set it.
BUILD_MAINTENANCE_WORK_MEM = "1GB"
SEED = 18

WITH_INDEX = "with_hnsw"
WITHOUT_INDEX = "without_hnsw"
TABLES = {WITH_INDEX: "chunks", WITHOUT_INDEX: "chunks_without_hnsw"}
INDEX_NAME = "chunks_embedding_hnsw"

# Drops the migrated index if a migration still creates it; the bench builds its own.
DROP_INDEX = f"DROP INDEX IF EXISTS {INDEX_NAME}"
# The same columns, checks and b-tree indexes as `chunks`, no HNSW (created before it exists).
CREATE_COPY = (
    "CREATE TABLE chunks_without_hnsw (LIKE chunks INCLUDING DEFAULTS INCLUDING CONSTRAINTS "
    "INCLUDING INDEXES INCLUDING IDENTITY)"
)
# The index 0001_initial.sql created, with pgvector's default parameters.
CREATE_INDEX = f"CREATE INDEX {INDEX_NAME} ON chunks USING hnsw (embedding vector_cosine_ops)"
INDEX_SIZE = f"SELECT pg_relation_size('{INDEX_NAME}')"
COUNT = "SELECT count(*) FROM {table}"
INSERT_USER = "INSERT INTO users (name) VALUES ($1) RETURNING id"
# Parsed source documents the chunks belong to (the foreign key of `chunks`).
INSERT_DOCUMENTS = """
INSERT INTO documents (user_id, sha256, kind, filename, size_bytes, state)
SELECT $1, sha256(convert_to(gen_random_uuid()::text, 'UTF8')), 'source', 'source.pdf', 1,
       'parsed'
FROM generate_series(1, $2)
RETURNING id
"""
COPY_COLUMNS = (
    "document_id", "user_id", "ordinal", "page_start", "page_end", "char_start", "char_end",
    "heading", "text", "embedding", "role",
)  # fmt: skip


@dataclass
class Measured:
    ms_per_chunk: list[float] = field(default_factory=list)
    server_cpu_ms_per_chunk: list[float] = field(default_factory=list)

    def summary(self) -> dict[str, float]:
        return {
            "ms_per_chunk": round(statistics.median(self.ms_per_chunk), 3),
            "server_cpu_ms_per_chunk": round(statistics.median(self.server_cpu_ms_per_chunk), 3),
            "chunks_per_s": round(1000 / statistics.median(self.ms_per_chunk), 1),
        }


def unit_vectors(rng: np.random.Generator, n: int) -> np.ndarray:
    vectors = rng.standard_normal((n, DIMENSIONS)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def chunk_rows(document_id: uuid.UUID, user_id: uuid.UUID, vectors: np.ndarray) -> list[tuple]:
    """One document's chunks in the parser's column order."""
    length = len(CHUNK_TEXT)
    return [
        (document_id, user_id, ordinal, ordinal // 3 + 1, ordinal // 3 + 1, ordinal * length,
         (ordinal + 1) * length, None, CHUNK_TEXT, vector, "body")
        for ordinal, vector in enumerate(vectors)
    ]  # fmt: skip


class ServerCpu:
    """CPU seconds of the PostgreSQL server (its postmaster and every child)."""

    def __init__(self, postmaster: int) -> None:
        self.postmaster = postmaster

    @classmethod
    async def of(cls, conn: asyncpg.Connection) -> ServerCpu:
        data_dir = await conn.fetchval("SHOW data_directory")
        return cls(int((Path(data_dir) / "postmaster.pid").read_text().split()[0]))

    def seconds(self) -> float:
        return common.cpu_seconds([self.postmaster, *common.children_of(self.postmaster)])


class Bench:
    def __init__(self, pool: asyncpg.Pool, user_id: uuid.UUID, cpu: ServerCpu) -> None:
        self.pool = pool
        self.user_id = user_id
        self.cpu = cpu
        self.rng = np.random.default_rng(SEED)

    async def documents(self, n: int) -> list[uuid.UUID]:
        return [r["id"] for r in await self.pool.fetch(INSERT_DOCUMENTS, self.user_id, n)]

    async def top_up(self, size: int) -> float | None:
        """Both tables to `size` rows (same rows in each); rebuilds the index, returns the
        build's seconds (None when no rows were added)."""
        have = await self.pool.fetchval(COUNT.format(table=TABLES[WITHOUT_INDEX]))
        missing = size - have
        if missing <= 0:
            return None
        documents = await self.documents(-(-missing // CHUNKS_PER_DOCUMENT))
        rows: list[tuple] = []
        for document_id in documents:
            vectors = unit_vectors(self.rng, CHUNKS_PER_DOCUMENT)
            rows.extend(chunk_rows(document_id, self.user_id, vectors))
        rows = rows[:missing]
        async with self.pool.acquire() as conn:
            await conn.execute(DROP_INDEX)
            for table in TABLES.values():
                await conn.copy_records_to_table(table, records=rows, columns=COPY_COLUMNS)
            await conn.execute(f"SET maintenance_work_mem = '{BUILD_MAINTENANCE_WORK_MEM}'")
            began = time.perf_counter()
            await conn.execute(CREATE_INDEX)
            built = time.perf_counter() - began
            await conn.execute("RESET maintenance_work_mem")
            await conn.execute("VACUUM ANALYZE chunks")
            await conn.execute("VACUUM ANALYZE chunks_without_hnsw")
        return built

    async def insert_round(self, table: str, documents: int) -> tuple[float, float]:
        """Stores `documents` documents the parser's way; (ms, server CPU ms) per chunk."""
        statement = PARSER_INSERT_CHUNK.replace("INSERT INTO chunks", f"INSERT INTO {table}")
        ids = await self.documents(documents)
        batches = [
            chunk_rows(d, self.user_id, unit_vectors(self.rng, CHUNKS_PER_DOCUMENT)) for d in ids
        ]
        cpu_before = self.cpu.seconds()
        began = time.perf_counter()
        async with self.pool.acquire() as conn:
            for rows in batches:
                async with conn.transaction():
                    await conn.executemany(statement, rows)
        elapsed = time.perf_counter() - began
        cpu = self.cpu.seconds() - cpu_before
        chunks = documents * CHUNKS_PER_DOCUMENT
        return elapsed / chunks * 1000, cpu / chunks * 1000


async def run(url: str, sizes: list[int], documents: int, rounds: int) -> dict:
    await apply_migrations(url)
    # No statement timeout: the 100k-row index build alone takes minutes on a busy machine.
    pool = await create_pool(
        DatabaseSettings(url=url, statement_timeout_ms=0), min_size=1, max_size=2
    )
    try:
        async with pool.acquire() as conn:
            await conn.execute(DROP_INDEX)
            await conn.execute(CREATE_COPY)
            cpu = await ServerCpu.of(conn)
        user_id = await pool.fetchval(INSERT_USER, "bench-chunk-index")
        bench = Bench(pool, user_id, cpu)
        results: dict[str, dict] = {}
        for size in sorted(sizes):
            built = await bench.top_up(size)
            measured = {name: Measured() for name in TABLES}
            # Alternating rounds, so a burst of load from elsewhere hits one round of each.
            for _ in range(rounds):
                for name, table in TABLES.items():
                    ms, cpu_ms = await bench.insert_round(table, documents)
                    measured[name].ms_per_chunk.append(ms)
                    measured[name].server_cpu_ms_per_chunk.append(cpu_ms)
            with_index = measured[WITH_INDEX].summary()
            without_index = measured[WITHOUT_INDEX].summary()
            results[str(size)] = {
                WITH_INDEX: {
                    **with_index,
                    "index_build_s": None if built is None else round(built, 1),
                    "index_mb": round(await pool.fetchval(INDEX_SIZE) / 2**20, 1),
                },
                WITHOUT_INDEX: without_index,
                "wall_ratio": round(with_index["ms_per_chunk"] / without_index["ms_per_chunk"], 2),
                "server_cpu_ratio": round(
                    with_index["server_cpu_ms_per_chunk"]
                    / without_index["server_cpu_ms_per_chunk"],
                    2,
                ),
            }
            print(f"{size:>7} chunks: {results[str(size)]}", flush=True)
        return results
    finally:
        await pool.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=",".join(str(s) for s in DEFAULT_SIZES))
    parser.add_argument("--documents", type=int, default=DEFAULT_DOCUMENTS)
    parser.add_argument("--rounds", type=int, default=DEFAULT_ROUNDS)
    parser.add_argument("--no-write", action="store_true", help="print only (smoke runs)")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    load = os.getloadavg()[0]
    print(
        f"chunk-insert cost: {args.rounds} alternating rounds of {args.documents} documents x "
        f"{CHUNKS_PER_DOCUMENT} chunks per table and size; {os.cpu_count()} CPUs, "
        f"load average {load:.1f}",
        flush=True,
    )
    with common.fresh_postgres() as url:
        results = asyncio.run(run(url, sizes, args.documents, args.rounds))
    if args.no_write:
        return 0
    path = common.write_results(
        RESULT_NAME,
        {
            "method": (
                f"per size: both tables hold the same rows (random unit {DIMENSIONS}-d vectors); "
                f"{args.rounds} alternating rounds of {args.documents} documents x "
                f"{CHUNKS_PER_DOCUMENT} chunks stored with the parser's INSERT, one transaction "
                "per document; median round"
            ),
            "load_average_1m_at_start": round(load, 2),
            "cpus": os.cpu_count(),
            "sizes": results,
        },
    )
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
