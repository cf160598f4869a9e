"""Parser throughput: the full path against raw pypdfium2 text extraction of the same PDF.

Builds a 100+ page PDF at run time by concatenating the real papers in ../shared/data/papers
(several times; falls back to a generated PDF when they are absent), then:

1. pypdfium2: open + extract every page's text, in this process (the floor: no structure, no
   chunks, no embeddings, no database).
2. citeproof, headline `parser_pages_per_s`: starts N `citeproof-parser` processes against a
   database (DATABASE_URL or a fresh embedded PostgreSQL), waits until they are warm, enqueues N
   items uploaded as cited *sources* (the PDF once per user, so each is a distinct document and
   both processes work), and times enqueue -> last item succeeded: claim -> sniff -> extract ->
   layout -> chunk -> embed -> store. This is the full path the parser's throughput target is about.
3. unstructured, `unstructured_fast_pages_per_s`: `partition_pdf(strategy="fast")` on the first
   UNSTRUCTURED_SAMPLE_PAGES pages, in this process (extraction only, like pypdfium2): the
   engine the parser does not use for PDFs by default (ADR 0003), measured in the same run.
4. citeproof, `thesis_path_pages_per_s`: the same PDF uploaded as a thesis, whose chunks are
   stored without embeddings by design (ADR 0003) — reported separately, never as the headline.

Writes bench/results/parse.json and prints a table. Usage (from the repository root):
python -m bench.parse [--processes 2]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import io
import json
import os
import shutil
import signal
import sys
import tempfile
import time
import uuid
import warnings
from pathlib import Path

import pikepdf
import pypdfium2 as pdfium

from bench import common

REPO_ROOT = Path(__file__).resolve().parents[1]
PAPERS = common.PAPERS_DIR
RESULTS = REPO_ROOT / "bench" / "results" / "parse.json"
MIN_PAGES = 100
TARGET_PAGES_PER_S = 15.0
# unstructured extracts 2-4 pages/s: a slice keeps the comparison under ~10 s.
UNSTRUCTURED_SAMPLE_PAGES = 24


def build_pdf(min_pages: int = MIN_PAGES) -> tuple[bytes, str]:
    sources = sorted(PAPERS.glob("*.pdf")) if PAPERS.is_dir() else []
    if not sources:
        from citeproof.devkit.pdfgen.plain import make_pdf, paper_pages

        return make_pdf(paper_pages(min_pages + 20)), "generated"
    out = pikepdf.new()
    while len(out.pages) < min_pages:
        for path in sources:
            with pikepdf.open(path) as paper, warnings.catch_warnings():
                # Named destinations and form fields do not matter for text extraction.
                warnings.simplefilter("ignore")
                out.pages.extend(paper.pages)
    buffer = io.BytesIO()
    out.save(buffer)
    return buffer.getvalue(), "+".join(p.name for p in sources)


def pypdfium2_pages_per_s(data: bytes) -> tuple[int, float]:
    started = time.perf_counter()
    document = pdfium.PdfDocument(data)
    pages = len(document)
    for index in range(pages):
        page = document[index]
        page.get_textpage().get_text_range()
    document.close()
    return pages, pages / (time.perf_counter() - started)


def unstructured_pages_per_s(data: bytes, pages: int) -> float:
    """partition_pdf(strategy="fast") on the first `pages` pages, warm (imports done before)."""
    from citeproof.parser.unstructured_io import partition_pdf_blocks

    sample = _first_pages(data, pages)
    partition_pdf_blocks(_first_pages(sample, 1))  # imports and spaCy load outside the timing
    started = time.perf_counter()
    blocks = partition_pdf_blocks(sample)
    elapsed = time.perf_counter() - started
    if not blocks:
        raise SystemExit("unstructured returned no elements: its offline setup is broken")
    return pages / elapsed


def _first_pages(data: bytes, pages: int) -> bytes:
    out = pikepdf.new()
    with pikepdf.open(io.BytesIO(data)) as whole, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # named destinations do not matter for text extraction
        out.pages.extend(whole.pages[:pages])
        buffer = io.BytesIO()
        out.save(buffer)
    return buffer.getvalue()


async def full_path(data: bytes, processes: int, database_url: str, kind: str) -> dict[str, float]:
    import asyncpg

    from citeproof.db.migrate import apply_migrations

    await apply_migrations(database_url)
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITEPROOF_")}
    env.update(
        DATABASE_URL=database_url,
        DO_NOT_TRACK="1",
        CITEPROOF_WORKER_HTTP_PORT="0",
        CITEPROOF_POLL_INTERVAL_S="0.5",
        CITEPROOF_PARSE_CONCURRENCY="1",
        CITEPROOF_PARSE_BATCH_SIZE="1",
        CITEPROOF_LOG_LEVEL="warning",
        # The path this benchmark's headline is about embeds every chunk at parse time; by
        # default (ADR 0022) the parser embeds nothing and runs at the thesis path's speed.
        CITEPROOF_EMBEDDINGS_CHUNKS="at_parse",
    )
    # Each process gets its share of the cores for torch (no oversubscription).
    threads = str(max(1, (os.cpu_count() or 2) // processes))
    env.update(OMP_NUM_THREADS=threads, MKL_NUM_THREADS=threads)
    parser = Path(sys.executable).with_name("citeproof-parser")
    procs = [
        await asyncio.create_subprocess_exec(
            str(parser),
            env=env,
            cwd=REPO_ROOT,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
        )
        for _ in range(processes)
    ]
    conn = await asyncpg.connect(database_url)
    try:
        # Warm: registered workers have started their parsing child and loaded the embedder.
        deadline = time.monotonic() + 300
        while (
            await conn.fetchval("SELECT count(*) FROM worker_heartbeats WHERE service = 'parser'")
            < processes
        ):
            if time.monotonic() > deadline:
                raise RuntimeError("parser processes did not start")
            await asyncio.sleep(0.2)
        item_ids = []
        started = time.perf_counter()
        async with conn.transaction():
            for _ in range(processes):
                user = await conn.fetchval(
                    "INSERT INTO users (name) VALUES ($1) RETURNING id", f"bench-{uuid.uuid4()}"
                )
                job = await conn.fetchval(
                    "INSERT INTO parse_jobs (user_id, total_items) VALUES ($1, 1) RETURNING id",
                    user,
                )
                document = await conn.fetchval(
                    "INSERT INTO documents (user_id, sha256, kind, filename, size_bytes) "
                    "VALUES ($1, $2, $4, 'bench.pdf', $3) RETURNING id",
                    user,
                    hashlib.sha256(data).digest(),
                    len(data),
                    kind,
                )
                item_ids.append(
                    await conn.fetchval(
                        "INSERT INTO parse_items (job_id, user_id, document_id, filename, "
                        "size_bytes, file_bytes) VALUES ($1, $2, $3, 'bench.pdf', $4, $5) "
                        "RETURNING id",
                        job,
                        user,
                        document,
                        len(data),
                        data,
                    )
                )
            await conn.execute("SELECT pg_notify('citeproof_parse', '')")
        while True:
            states = await conn.fetch("SELECT state FROM parse_items WHERE id = ANY($1)", item_ids)
            if all(r["state"] in {"succeeded", "failed", "dead"} for r in states):
                break
            await asyncio.sleep(0.05)
        elapsed = time.perf_counter() - started
        if any(r["state"] != "succeeded" for r in states):
            raise RuntimeError(f"items did not succeed: {[r['state'] for r in states]}")
        chunks = await conn.fetchval(
            "SELECT count(*) FROM chunks c JOIN parse_items i ON i.document_id = c.document_id "
            "WHERE i.id = ANY($1)",
            item_ids,
        )
        return {"elapsed_s": elapsed, "items": len(item_ids), "chunks": chunks}
    finally:
        await conn.close()
        for proc in procs:
            proc.send_signal(signal.SIGTERM)
        for proc in procs:
            try:
                await asyncio.wait_for(proc.wait(), 60)
            except TimeoutError:
                proc.kill()


def stage_breakdown(data: bytes) -> dict[str, float]:
    """Where the time goes inside one process: extraction+chunking vs. embedding."""
    from citeproof.embeddings import get_embedder
    from citeproof.parser.extract import parse_bytes
    from citeproof.parser.settings import ParserSettings

    parse_bytes(data[:0] or b"warm", "w.txt", None, ParserSettings())
    started = time.perf_counter()
    parsed = parse_bytes(data, "bench.pdf", None, ParserSettings())
    parse_s = time.perf_counter() - started
    embedder = get_embedder()
    embedder.embed(["warm-up"])
    sample = [chunk.text for chunk in parsed.chunks[:128]]
    started = time.perf_counter()
    embedder.embed(sample)
    embed_s = time.perf_counter() - started
    return {
        "extract_chunk_pages_per_s": round(parsed.pages / parse_s, 1),
        "embed_chunks_per_s": round(len(sample) / embed_s, 1),
        "chunks_per_page": round(len(parsed.chunks) / parsed.pages, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument(
        "--skip-thesis", action="store_true", help="skip the thesis path (no embeddings)"
    )
    parser.add_argument(
        "--skip-unstructured", action="store_true", help="skip the unstructured comparison"
    )
    args = parser.parse_args()
    os.environ.setdefault("DO_NOT_TRACK", "1")
    data, built_from = build_pdf()
    pages, pdfium_rate = pypdfium2_pages_per_s(data)
    breakdown = stage_breakdown(data)
    unstructured_rate = (
        None
        if args.skip_unstructured
        else unstructured_pages_per_s(data, min(UNSTRUCTURED_SAMPLE_PAGES, pages))
    )

    server = None
    tmp = None
    database_url = os.environ.get("DATABASE_URL")
    if not database_url:
        from citeproof.db.embedded import EmbeddedPostgres

        tmp = Path(tempfile.mkdtemp(prefix="citeproof-bench-pg-"))
        server = EmbeddedPostgres(tmp / "data", fast=True).start()
        database_url = server.url()
    try:
        # The headline: the PDF as a cited source, every chunk embedded (the full path).
        source = asyncio.run(full_path(data, args.processes, database_url, "source"))
        # The thesis path stores chunks without embeddings (ADR 0003): a separate figure.
        thesis = (
            asyncio.run(full_path(data, args.processes, database_url, "thesis"))
            if not args.skip_thesis
            else None
        )
    finally:
        if server is not None:
            server.destroy()
            shutil.rmtree(tmp, ignore_errors=True)

    from citeproof.embeddings import get_embedder

    total_pages = pages * source["items"]
    parser_rate = total_pages / source["elapsed_s"]
    thesis_rate = total_pages / thesis["elapsed_s"] if thesis else None
    out = {
        "pages": pages,
        "parser_pages_per_s": round(parser_rate, 2),
        "pypdfium2_pages_per_s": round(pdfium_rate, 1),
        "unstructured_fast_pages_per_s": round(unstructured_rate, 2) if unstructured_rate else None,
        "unstructured_sample_pages": UNSTRUCTURED_SAMPLE_PAGES if unstructured_rate else None,
        "processes": args.processes,
        "items": source["items"],
        "total_pages": total_pages,
        "parser_kind": "source",
        "elapsed_s": round(source["elapsed_s"], 2),
        "chunks_embedded": source["chunks"],
        "embedder": get_embedder().model,
        "thesis_path_pages_per_s": round(thesis_rate, 2) if thesis_rate else None,
        "thesis_path_elapsed_s": round(thesis["elapsed_s"], 2) if thesis else None,
        "target_pages_per_s": TARGET_PAGES_PER_S,
        "cpu_count": os.cpu_count(),
        "load_average_1m": round(os.getloadavg()[0], 2),
        "built_from": built_from,
        **breakdown,
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(out, indent=2) + "\n")
    print(f"{'path':<44}{'pages/s':>10}")
    print(f"{'pypdfium2 text only (1 process)':<44}{pdfium_rate:>10.1f}")
    if unstructured_rate:
        label = "unstructured partition_pdf(fast) (1 process)"
        print(f"{label:<44}{unstructured_rate:>10.2f}")
    label = f"citeproof full path, source + embed ({args.processes} procs)"
    print(f"{label:<44}{parser_rate:>10.2f}")
    if thesis_rate:
        label = f"citeproof thesis path, no embed ({args.processes} procs)"
        print(f"{label:<44}{thesis_rate:>10.2f}")
    print(f"ratio pypdfium2 / citeproof full path: {pdfium_rate / parser_rate:.0f}x")
    print(
        f"inside one process: extract+chunk {breakdown['extract_chunk_pages_per_s']} pages/s, "
        f"embed {breakdown['embed_chunks_per_s']} chunks/s ({out['embedder']}), "
        f"{breakdown['chunks_per_page']} chunks/page"
    )
    met = "met" if parser_rate >= TARGET_PAGES_PER_S else "NOT met"
    print(f"target {TARGET_PAGES_PER_S} pages/s (full path): {met}")
    print(f"load average (1 min) at the end: {out['load_average_1m']}")
    print(f"wrote {RESULTS.relative_to(REPO_ROOT)}")


if __name__ == "__main__":
    main()
