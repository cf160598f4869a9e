"""Retrieval benchmark on Check-COVID: recall of gold evidence sentences, and latency.

    python -m bench.retrieval [CHECKCOVID_DIR] [--split dev]

Recall. Every abstract cited by a claim of the split is rendered to a PDF (citeproof.devkit.pdfgen)
and indexed through the real parser path: staged as a parse item and parsed, chunked and embedded by
the parser's own stage (`citeproof.parser.service.ParseService`, driven by `run_once`). For every
SUPPORT/REFUTE row the retriever then searches the row's abstract with the claim and returns its
evidence passages; recall@k is measured for vector only, BM25 only and fused retrieval.

- A passage HITS a gold sentence when they overlap: at least `HIT_OVERLAP` of the word types of
  the shorter of the two occur in the other (PDF extraction and sentence splitting do not
  reproduce Check-COVID's sentence boundaries exactly, so containment, not equality).
- PRIMARY recall@k (the headline numbers): per row, the share of its PRIMARY evidence sentences
  hit by the first k passages, averaged over rows. "all" counts SUPPLEMENTARY sentences too, and
  "any" is the share of rows with at least one PRIMARY sentence in the first k.

Latency. A separate session of `LATENCY_DOCUMENTS` documents with 5,000 chunks in total (corpus
sentences packed into parser-sized chunks with real embeddings; each document draws 100 of 500
distinct chunks), one citation per claim of the split, each aimed at one document. Cold: the
index cache is emptied before every citation (rebuild from PostgreSQL included). Warm: a second
pass over the same citations (document index and the sentence embeddings of the chunks they reach
are cached). Warm, new claims: train-split claims on the same cached documents, so some sentence
embeddings are still computed. Query embedding is included.

Writes bench/results/retrieval.json and prints a table.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

os.environ.setdefault("DO_NOT_TRACK", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import asyncpg
import msgspec
import numpy as np

from bench import common
from citeproof.db.migrate import apply_migrations
from citeproof.db.pool import create_pool
from citeproof.db.settings import DatabaseSettings
from citeproof.embeddings import EmbeddingSettings, get_embedder
from citeproof.embeddings.settings import CHUNKS_AT_PARSE
from citeproof.queue import run_once
from citeproof.retriever.cache import IndexCache
from citeproof.retriever.retrieval import BM25, HYBRID, VECTOR, Retriever
from citeproof.retriever.service import configure_process, default_embed
from citeproof.retriever.settings import RetrieverSettings
from citeproof.text.normalize import comparison_key

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DIR = common.CHECKCOVID_DIR
RESULTS = REPO_ROOT / "bench" / "results" / "retrieval.json"
KS = (1, 3, 5)
HIT_OVERLAP = 0.8
LATENCY_CHUNKS = 5000
LATENCY_DOCUMENTS = 50
LATENCY_CHUNK_CHARS = 900  # about the parser's 256-word-piece chunks
# Distinct chunk texts embedded for the latency session; each document draws its chunks from
# them (embedding 5,000 full chunks costs ~20 CPU-minutes and changes no timing: a search
# touches one document's rows only).
LATENCY_DISTINCT_CHUNKS = 500
LATENCY_SEED = 7
# Fusion variants measured on the benchmark (the chosen default is marked in the results).
FUSION_VARIANTS = {
    "rrf_k60": {"fusion": "rrf", "rrf_k": 60, "vector_weight": 0.5},
    "rrf_k10": {"fusion": "rrf", "rrf_k": 10, "vector_weight": 0.5},
    "rrf_k60_v0.7": {"fusion": "rrf", "rrf_k": 60, "vector_weight": 0.7},
    "rrf_k60_v0.8": {"fusion": "rrf", "rrf_k": 60, "vector_weight": 0.8},
    "weighted_v0.5": {"fusion": "weighted", "vector_weight": 0.5},
    "weighted_v0.7": {"fusion": "weighted", "vector_weight": 0.7},
    "weighted_v0.8": {"fusion": "weighted", "vector_weight": 0.8},
    "weighted_v0.9": {"fusion": "weighted", "vector_weight": 0.9},
}


# -- data ------------------------------------------------------------------------------------


def load_jsonl(path: Path) -> list[dict]:
    with path.open() as handle:
        return [json.loads(line) for line in handle if line.strip()]


def claims_file(directory: Path, split: str) -> Path:
    return directory / f"covidCheck_{split}_composed+extracted.json"


# -- database --------------------------------------------------------------------------------


@contextlib.asynccontextmanager
async def database() -> AsyncIterator[asyncpg.Pool]:
    """A throw-away database: on DATABASE_URL's server, or an embedded PostgreSQL."""
    server = None
    data_dir = None
    admin_url = os.environ.get("DATABASE_URL")
    if not admin_url:
        from citeproof.db.embedded import EmbeddedPostgres

        data_dir = Path(tempfile.mkdtemp(prefix="citeproof-bench-pg-"))
        server = EmbeddedPostgres(data_dir / "data", fast=True).start()
        admin_url = server.url()
    name = f"citeproof_bench_{uuid.uuid4().hex[:8]}"
    admin = await asyncpg.connect(admin_url)
    await admin.execute(f'CREATE DATABASE "{name}"')
    await admin.close()
    url = urlunsplit(urlsplit(admin_url)._replace(path=f"/{name}"))
    try:
        await apply_migrations(url)
        pool = await create_pool(DatabaseSettings(url=url, pool_min=1, pool_max=4))
        try:
            yield pool
        finally:
            await pool.close()
    finally:
        admin = await asyncpg.connect(admin_url)
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()
        if server is not None:
            server.destroy()
            shutil.rmtree(data_dir, ignore_errors=True)


async def new_user(pool: asyncpg.Pool, name: str) -> tuple[uuid.UUID, uuid.UUID]:
    user = await pool.fetchval(
        "INSERT INTO users (name) VALUES ($1) RETURNING id", f"{name}-{uuid.uuid4().hex[:6]}"
    )
    session = await pool.fetchval(
        "INSERT INTO sessions (user_id, name) VALUES ($1, $2) RETURNING id", user, name
    )
    return user, session


# -- indexing through the parser -------------------------------------------------------------


async def index_through_parser(
    pool: asyncpg.Pool, abstracts: dict[str, dict]
) -> tuple[uuid.UUID, dict[str, uuid.UUID]]:
    """Render each abstract to a PDF and parse it with the parser's own stage."""
    from citeproof.devkit.pdfgen import DocumentSpec, Section, render_pdf
    from citeproof.parser.service import ParseService

    user, session = await new_user(pool, "bench-recall")
    job = await pool.fetchval(
        "INSERT INTO parse_jobs (user_id, session_id, total_items) VALUES ($1, $2, $3) "
        "RETURNING id",
        user,
        session,
        len(abstracts),
    )
    documents: dict[str, uuid.UUID] = {}
    for cord_id, entry in abstracts.items():
        spec = DocumentSpec(
            title=entry["title"] or cord_id,
            sections=(Section(heading="", paragraphs=(" ".join(entry["abstract"]),)),),
        )
        pdf = render_pdf(spec)
        filename = f"{cord_id}.pdf"
        document = await pool.fetchval(
            "INSERT INTO documents (user_id, sha256, kind, filename, declared_type, size_bytes) "
            "VALUES ($1, $2, 'source', $3, 'application/pdf', $4) RETURNING id",
            user, hashlib.sha256(pdf).digest(), filename, len(pdf),
        )  # fmt: skip
        await pool.execute(
            "INSERT INTO parse_items (job_id, user_id, document_id, filename, declared_type, "
            "size_bytes, file_bytes) VALUES ($1, $2, $3, $4, 'application/pdf', $5, $6)",
            job, user, document, filename, len(pdf), pdf,
        )  # fmt: skip
        documents[cord_id] = document
    # Every chunk embedded at parse time, as the retrievers below expect (they rank all chunks:
    # no on-demand embedding, ADR 0022). On these one-page abstracts the on-demand path ranks
    # every chunk too (a small source), so the figures hold for both.
    parser = ParseService(embeddings=EmbeddingSettings(chunks=CHUNKS_AT_PARSE))
    await parser.warm_up()
    stage = parser.parse_stage
    while await run_once(pool, stage, worker_id="bench-parser", batch_size=4):
        pass
    states = await pool.fetch(
        "SELECT state, count(*) AS n FROM documents WHERE user_id = $1 GROUP BY state", user
    )
    summary = {r["state"]: r["n"] for r in states}
    if summary.get("parsed", 0) != len(abstracts):
        raise SystemExit(f"the parser did not parse every abstract: {summary}")
    return user, documents


# -- recall ----------------------------------------------------------------------------------


def memoised(embed):
    vectors: dict[str, np.ndarray] = {}

    async def embed_once(texts: list[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in vectors]
        if missing:
            vectors.update(zip(missing, await embed(missing), strict=True))
        return np.stack([vectors[t] for t in texts])

    return embed_once


def word_set(text: str) -> set[str]:
    return set(comparison_key(text).split())


def hits(passage: str, gold: str) -> bool:
    p, g = word_set(passage), word_set(gold)
    if not p or not g:
        return False
    return len(p & g) / min(len(p), len(g)) >= HIT_OVERLAP


def row_scores(passages: list[str], primary: list[str], everything: list[str]) -> dict:
    scores = {}
    for k in KS:
        top = passages[:k]
        found_primary = [any(hits(p, g) for p in top) for g in primary]
        found_all = [any(hits(p, g) for p in top) for g in everything]
        scores[k] = (
            sum(found_primary) / len(primary),
            sum(found_all) / len(everything),
            float(any(found_primary)),
        )
    return scores


async def measure_recall(
    pool: asyncpg.Pool,
    user: uuid.UUID,
    documents: dict[str, uuid.UUID],
    rows: list[dict],
    corpus: dict[str, dict],
) -> dict:
    cache = IndexCache(1 << 30, 86400.0)
    embed = memoised(default_embed)  # every configuration searches with the same claims
    configurations = {"vector": (VECTOR, {}), "bm25": (BM25, {})}
    for name, overrides in FUSION_VARIANTS.items():
        configurations[f"fused:{name}"] = (HYBRID, overrides)
    totals = {name: {k: [0.0, 0.0, 0.0] for k in KS} for name in configurations}
    async with pool.acquire() as conn:
        for row in rows:
            sentences = corpus[row["cord_id"]]["abstract"]
            primary = [sentences[e["sent_index"]] for e in row["evidence_set"]
                       if e["type"] == "PRIMARY"]  # fmt: skip
            everything = [sentences[e["sent_index"]] for e in row["evidence_set"]]
            for name, (mode, overrides) in configurations.items():
                settings = msgspec.structs.replace(RetrieverSettings(), **overrides)
                retriever = Retriever(settings, cache, embed)
                passages = await retriever.retrieve(
                    conn, user, documents[row["cord_id"]], row["claim"].strip(), mode
                )
                for k, values in row_scores(
                    [p.text for p in passages], primary, everything
                ).items():
                    for i, value in enumerate(values):
                        totals[name][k][i] += value
    n = len(rows)
    return {
        name: {k: [round(v / n, 4) for v in values] for k, values in per_k.items()}
        for name, per_k in totals.items()
    }


# -- latency ---------------------------------------------------------------------------------


def pack_chunks(corpus: list[dict], count: int, rng: random.Random) -> list[str]:
    sentences = [s for entry in corpus for s in entry["abstract"]]
    chunks = []
    cursor = 0
    rng.shuffle(sentences)
    while len(chunks) < count:
        parts: list[str] = []
        while sum(map(len, parts)) < LATENCY_CHUNK_CHARS:
            parts.append(sentences[cursor % len(sentences)])
            cursor += 1
        chunks.append(" ".join(parts))
    return chunks


async def build_latency_session(
    pool: asyncpg.Pool, corpus: list[dict], chunk_count: int
) -> tuple[uuid.UUID, list[uuid.UUID], int]:
    user, _ = await new_user(pool, "bench-latency")
    rng = random.Random(LATENCY_SEED)
    texts = pack_chunks(corpus, min(chunk_count, LATENCY_DISTINCT_CHUNKS), rng)
    started = time.perf_counter()
    vectors = await default_embed(texts)
    seconds = time.perf_counter() - started
    print(f"  embedded {len(texts)} chunks in {seconds:.0f} s", file=sys.stderr)
    per_document = chunk_count // LATENCY_DOCUMENTS
    documents = []
    for d in range(LATENCY_DOCUMENTS):
        picks = rng.sample(range(len(texts)), min(per_document, len(texts)))
        document = await pool.fetchval(
            "INSERT INTO documents (user_id, sha256, kind, filename, size_bytes, state) "
            "VALUES ($1, $2, 'source', $3, 0, 'parsed') RETURNING id",
            user, hashlib.sha256(f"latency-{d}".encode()).digest(), f"doc{d}.pdf",
        )  # fmt: skip
        await pool.executemany(
            "INSERT INTO chunks (document_id, user_id, ordinal, page_start, page_end, char_start,"
            " char_end, text, embedding) VALUES ($1, $2, $3, $4, $4, 0, $5, $6, $7)",
            [
                (document, user, i, i // 3 + 1, len(texts[pick]), texts[pick], vectors[pick])
                for i, pick in enumerate(picks)
            ],
        )  # fmt: skip
        documents.append(document)
    await pool.execute("ANALYZE chunks")
    total = await pool.fetchval("SELECT count(*) FROM chunks WHERE user_id = $1", user)
    return user, documents, total


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))
    return ordered[index]


async def timed_pass(retriever: Retriever, conn, user, work, *, cold: bool) -> list[float]:
    latencies = []
    for query, document in work:
        if cold:
            retriever.cache.clear()
        started = time.perf_counter()
        await retriever.retrieve(conn, user, document, query)
        latencies.append((time.perf_counter() - started) * 1000)
    return latencies


async def measure_latency(
    pool: asyncpg.Pool,
    corpus: list[dict],
    claims: list[str],
    new_claims: list[str],
    chunk_count: int,
) -> dict:
    user, documents, total = await build_latency_session(pool, corpus, chunk_count)
    work = [(claim, documents[i % len(documents)]) for i, claim in enumerate(claims)]
    new_work = [(claim, documents[i % len(documents)]) for i, claim in enumerate(new_claims)]
    retriever = Retriever(RetrieverSettings(), IndexCache(1 << 30, 86400.0), default_embed)
    async with pool.acquire() as conn:
        await retriever.retrieve(conn, user, documents[0], "warm up the model and the pool")
        cold = await timed_pass(retriever, conn, user, work, cold=True)
        retriever.cache.clear()
        await timed_pass(retriever, conn, user, work, cold=False)  # fills the cache
        warm = await timed_pass(retriever, conn, user, work, cold=False)
        warm_new = await timed_pass(retriever, conn, user, new_work, cold=False)
    return {
        "session_chunks": total,
        "documents": len(documents),
        "citations": len(work),
        "warm_p50": round(statistics.median(warm), 2),
        "warm_p99": round(percentile(warm, 99), 2),
        "cold_p50": round(statistics.median(cold), 2),
        "cold_p99": round(percentile(cold, 99), 2),
        "warm_new_claims_p50": round(statistics.median(warm_new), 2),
        "warm_new_claims_p99": round(percentile(warm_new, 99), 2),
        # The host is shared: record how busy it was while timing.
        "load_average_1m": round(os.getloadavg()[0], 1),
        "cpu_count": os.cpu_count(),
    }


# -- main ------------------------------------------------------------------------------------


def choose_fusion(recall: dict) -> str:
    """The fused variant with the best PRIMARY recall@5, then @1, then @3."""
    fused = [name for name in recall if name.startswith("fused:")]
    return max(fused, key=lambda n: (recall[n][5][0], recall[n][1][0], recall[n][3][0]))


def default_variant() -> str:
    settings = RetrieverSettings()
    for name, overrides in FUSION_VARIANTS.items():
        if all(getattr(settings, key) == value for key, value in overrides.items()):
            return f"fused:{name}"
    raise SystemExit("the default fusion settings are not among FUSION_VARIANTS")


def print_table(results: dict) -> None:
    print(f"\nRetrieval on Check-COVID {results['split']}: {results['rows']} claims, "
          f"{results['documents']} abstracts parsed from PDF")  # fmt: skip
    print(f"{'method':<22}" + "".join(f"{'R@' + str(k):>8}" for k in KS)
          + "   (PRIMARY; all / any at 5)")  # fmt: skip
    for name, per_k in results["recall_detail"].items():
        marker = " *" if name == results["default_variant"] else ""
        cells = "".join(f"{per_k[str(k)]['primary']:>8.3f}" for k in KS)
        extra = f"   {per_k['5']['all']:.3f} / {per_k['5']['any']:.3f}"
        print(f"{name + marker:<22}{cells}{extra}")
    latency = results["latency_ms"]
    print(f"\nLatency per citation ({latency['session_chunks']} chunks, "
          f"{latency['documents']} documents, {latency['citations']} citations), ms:")  # fmt: skip
    for key in ("warm_p50", "warm_p99", "cold_p50", "cold_p99", "warm_new_claims_p50",
                "warm_new_claims_p99"):  # fmt: skip
        print(f"  {key:<22}{latency[key]:>9.2f}")
    print(f"  (1-minute load average {latency['load_average_1m']} on {latency['cpu_count']} CPUs)")
    print("\n* = the default settings (fused numbers in the summary keys)")


async def run(directory: Path, split: str, output: Path, latency_chunks: int) -> dict:
    rows = [r for r in load_jsonl(claims_file(directory, split)) if r["label"] != "NOTENOUGHINFO"]
    rows = [r for r in rows if any(e["type"] == "PRIMARY" for e in r["evidence_set"])]
    corpus = {entry["cord_id"]: entry for entry in load_jsonl(directory / "corpus.json")}
    cited = {r["cord_id"]: corpus[r["cord_id"]] for r in rows}
    other_split = "train" if split != "train" else "dev"
    new_claims = [r["claim"].strip() for r in load_jsonl(claims_file(directory, other_split))]
    started = time.perf_counter()
    configure_process(RetrieverSettings())  # as in a retriever process
    get_embedder().embed(["load the model"])
    get_embedder(role="queries").embed(["load the model"])
    async with database() as pool:
        print(f"parsing {len(cited)} abstracts through the parser ...", file=sys.stderr)
        user, documents = await index_through_parser(pool, cited)
        chunks = await pool.fetchval("SELECT count(*) FROM chunks WHERE user_id = $1", user)
        print(f"measuring recall on {len(rows)} claims ...", file=sys.stderr)
        recall = await measure_recall(pool, user, documents, rows, corpus)
        print("measuring latency ...", file=sys.stderr)
        claims = [r["claim"].strip() for r in rows]
        latency = await measure_latency(
            pool, list(corpus.values()), claims, new_claims[: len(claims)], latency_chunks
        )
    default = default_variant()
    detail = {
        name: {str(k): dict(zip(("primary", "all", "any"), values, strict=True))
               for k, values in per_k.items()}
        for name, per_k in recall.items()
    }  # fmt: skip
    results = {
        f"recall_at_{k}": {
            "vector": recall["vector"][k][0],
            "bm25": recall["bm25"][k][0],
            "fused": recall[default][k][0],
        }
        for k in KS
    }
    results.update(
        latency_ms=latency,
        split=split,
        rows=len(rows),
        documents=len(documents),
        chunks=chunks,
        default_variant=default,
        best_variant=choose_fusion(recall),
        recall_definition=(
            "PRIMARY: per SUPPORT/REFUTE row, the share of its PRIMARY evidence sentences that "
            f"overlap (>= {HIT_OVERLAP} of the shorter one's word types) one of the first k "
            "evidence passages, averaged over rows"
        ),
        recall_detail=detail,
        seconds=round(time.perf_counter() - started, 1),
    )
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(results, indent=2) + "\n")
    print_table(results)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkcovid_dir", nargs="?", type=Path, default=DEFAULT_DIR)
    parser.add_argument("--split", default="dev")
    parser.add_argument("--output", type=Path, default=RESULTS)
    parser.add_argument("--latency-chunks", type=int, default=LATENCY_CHUNKS)
    args = parser.parse_args()
    if not claims_file(args.checkcovid_dir, args.split).is_file():
        raise SystemExit(f"no Check-COVID {args.split} split under {args.checkcovid_dir}")
    asyncio.run(run(args.checkcovid_dir, args.split, args.output, args.latency_chunks))


if __name__ == "__main__":
    main()
