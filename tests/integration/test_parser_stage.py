"""The parse stage against a real PostgreSQL: every outcome of an item, its bookkeeping, and
the staging discipline (file_bytes NULL after every terminal transition).

The parser tests use a database of their own (same server), so `run_once` never claims parse
items that other test modules staged.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import signal
import uuid
from collections.abc import AsyncIterator, Iterator
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import pytest

from citeproof.db.migrate import apply_migrations
from citeproof.db.pool import create_pool
from citeproof.db.settings import DatabaseSettings
from citeproof.embeddings import EmbeddingSettings
from citeproof.embeddings.settings import CHUNKS_AT_PARSE, CHUNKS_ON_DEMAND
from citeproof.parser.service import ParseService, expire_staged_bytes, on_terminal
from citeproof.parser.settings import ParserSettings
from citeproof.queue import TerminalOutcome, run_once
from citeproof.settings import SettingsError
from tests.unit.test_parser_files import (
    HTML_WITH_SCRIPTS,
    corrupt_pdf,
    docx_bomb,
    encrypted_pdf,
    garbage_bytes,
    make_docx,
    make_pdf,
    paper_pages,
    scanned_pdf,
    truncated_pdf,
)


@pytest.fixture(scope="module")
def parser_database_url(database_url: str) -> Iterator[str]:
    name = f"citeproof_parser_{uuid.uuid4().hex[:8]}"
    parts = urlsplit(database_url)
    admin = urlunsplit(parts._replace(path="/postgres"))
    url = urlunsplit(parts._replace(path=f"/{name}"))

    async def run(sql: str) -> None:
        conn = await asyncpg.connect(admin)
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    asyncio.run(run(f'CREATE DATABASE "{name}"'))
    asyncio.run(apply_migrations(url))
    yield url
    asyncio.run(run(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@pytest.fixture
async def ppool(parser_database_url: str) -> AsyncIterator[asyncpg.Pool]:
    pool = await create_pool(DatabaseSettings(url=parser_database_url, pool_min=1, pool_max=6))
    try:
        yield pool
    finally:
        await pool.close()


@pytest.fixture
async def puser(ppool: asyncpg.Pool) -> uuid.UUID:
    return await ppool.fetchval(
        "INSERT INTO users (name) VALUES ($1) RETURNING id", f"parser-{uuid.uuid4().hex[:10]}"
    )


@pytest.fixture(scope="module")
def service() -> Iterator[ParseService]:
    """One service (warm parsing child, loaded embedder) for the whole module; it embeds at
    parse time (`CITEPROOF_EMBEDDINGS_CHUNKS=at_parse`), the path these tests describe. The
    default, on-demand path is `test_on_demand_the_parser_stores_passages_without_vectors`."""
    parse_service = ParseService(
        ParserSettings(item_timeout_s=60, max_pages=40),
        EmbeddingSettings(chunks=CHUNKS_AT_PARSE),
    )
    yield parse_service
    parse_service.sandbox.close()


async def enqueue(
    pool: asyncpg.Pool,
    user_id: uuid.UUID,
    files: list[tuple[str, bytes]],
    *,
    kind: str = "source",
    session_id: uuid.UUID | None = None,
) -> tuple[uuid.UUID, list[int]]:
    """Stage files the way the API does: one job, a document per distinct content, an item each."""
    async with pool.acquire() as conn, conn.transaction():
        job_id = await conn.fetchval(
            "INSERT INTO parse_jobs (user_id, session_id, total_items) VALUES ($1, $2, $3) "
            "RETURNING id",
            user_id,
            session_id,
            len(files),
        )
        item_ids = []
        for filename, data in files:
            document_id = await conn.fetchval(
                """INSERT INTO documents (user_id, sha256, kind, filename, size_bytes)
                   VALUES ($1, $2, $3, $4, $5)
                   ON CONFLICT (user_id, sha256) DO UPDATE SET filename = documents.filename
                   RETURNING id""",
                user_id,
                hashlib.sha256(data).digest(),
                kind,
                filename,
                len(data),
            )
            item_ids.append(
                await conn.fetchval(
                    """INSERT INTO parse_items (job_id, user_id, document_id, filename,
                                                size_bytes, file_bytes)
                       VALUES ($1, $2, $3, $4, $5, $6) RETURNING id""",
                    job_id,
                    user_id,
                    document_id,
                    filename,
                    len(data),
                    data,
                )
            )
    return job_id, item_ids


async def drain(pool: asyncpg.Pool, service: ParseService) -> None:
    stage = service.parse_stage
    while await run_once(pool, stage, batch_size=4):
        pass


async def item(pool: asyncpg.Pool, item_id: int) -> asyncpg.Record:
    return await pool.fetchrow(
        """SELECT i.state, i.error_code, i.error_detail, i.file_bytes IS NULL AS bytes_gone,
                  i.attempts, d.id AS document_id, d.state AS document_state,
                  d.error_code AS document_error, d.notes, d.text_content, d.page_starts,
                  d.pages, d.detected_type, d.title
           FROM parse_items i JOIN documents d ON d.id = i.document_id WHERE i.id = $1""",
        item_id,
    )


BAD_INPUTS = [
    ("empty.pdf", b"", "empty_document"),
    ("truncated.pdf", truncated_pdf(), "corrupt_file"),
    ("corrupt.pdf", corrupt_pdf(), "corrupt_file"),
    ("locked.pdf", encrypted_pdf(), "encrypted"),
    ("scan.pdf", scanned_pdf(), "no_text_layer"),
    ("garbage.bin", garbage_bytes(), "unsupported_type"),
    ("book.pdf", make_pdf(paper_pages(45)), "too_many_pages"),
    ("bomb.docx", docx_bomb(6 * 1024 * 1024), "archive_bomb"),
]


async def test_bad_items_fail_alone_and_the_job_ends_partial(ppool, puser, service) -> None:
    good = [("paper.pdf", make_pdf(paper_pages(3))), ("notes.html", HTML_WITH_SCRIPTS)]
    job_id, ids = await enqueue(ppool, puser, [(n, d) for n, d, _ in BAD_INPUTS] + good)
    await drain(ppool, service)
    for item_id, (name, _, code) in zip(ids, BAD_INPUTS, strict=False):
        row = await item(ppool, item_id)
        assert (row["state"], row["error_code"]) == ("failed", code), name
        assert row["bytes_gone"], name
        assert row["attempts"] == 1, name  # permanent: never retried
        assert row["document_state"] == "failed" and row["document_error"] == code
        assert row["error_detail"] and row["error_detail"].endswith(".")
    for item_id in ids[len(BAD_INPUTS) :]:
        row = await item(ppool, item_id)
        assert (row["state"], row["document_state"], row["bytes_gone"]) == (
            "succeeded",
            "parsed",
            True,
        )
    job = await ppool.fetchrow("SELECT * FROM parse_jobs WHERE id = $1", job_id)
    assert (job["state"], job["succeeded_items"], job["failed_items"]) == (
        "partial",
        2,
        len(BAD_INPUTS),
    )
    assert job["finished_at"] is not None
    html_doc = await item(ppool, ids[-1])
    chunks = await ppool.fetch(
        "SELECT text FROM chunks WHERE document_id = $1", html_doc["document_id"]
    )
    assert chunks and not any("SECRET" in c["text"] for c in chunks)


async def test_a_parsed_pdf_has_text_pages_chunks_and_embeddings(ppool, puser, service) -> None:
    job_id, [item_id] = await enqueue(ppool, puser, [("paper.docx", make_pdf(paper_pages(4)))])
    await drain(ppool, service)
    row = await item(ppool, item_id)
    assert (row["state"], row["document_state"], row["bytes_gone"]) == ("succeeded", "parsed", True)
    assert row["detected_type"] == "pdf" and row["pages"] == 4
    assert len(row["page_starts"]) == 4
    assert "parsed as PDF" in row["notes"]  # uploaded as .docx, parsed by content
    chunks = await ppool.fetch(
        "SELECT * FROM chunks WHERE document_id = $1 ORDER BY ordinal", row["document_id"]
    )
    assert chunks
    text = row["text_content"]
    for chunk in chunks:
        assert chunk["text"] == text[chunk["char_start"] : chunk["char_end"]]
        assert chunk["user_id"] == puser
        assert chunk["embedding"].to_numpy().shape == (384,)
    assert chunks[-1]["page_end"] == 4
    job = await ppool.fetchrow(
        "SELECT state, succeeded_items FROM parse_jobs WHERE id = $1", job_id
    )
    assert (job["state"], job["succeeded_items"]) == ("succeeded", 1)


async def test_identical_bytes_are_parsed_once(ppool, puser, service) -> None:
    data = make_docx(["Each upload of the same file maps to one document.", "It is parsed once."])
    _, [first] = await enqueue(ppool, puser, [("a.docx", data)])
    await drain(ppool, service)
    document_id = (await item(ppool, first))["document_id"]
    chunk_ids = await ppool.fetch("SELECT id FROM chunks WHERE document_id = $1", document_id)
    job_id, [second] = await enqueue(ppool, puser, [("copy.docx", data)])
    await drain(ppool, service)
    row = await item(ppool, second)
    assert row["document_id"] == document_id
    assert (row["state"], row["bytes_gone"]) == ("succeeded", True)
    # The chunks are the very same rows: nothing was parsed again.
    assert await ppool.fetch("SELECT id FROM chunks WHERE document_id = $1", document_id) == (
        chunk_ids
    )
    assert await ppool.fetchval("SELECT state FROM parse_jobs WHERE id = $1", job_id) == "succeeded"


async def test_all_items_failing_fails_the_job(ppool, puser, service) -> None:
    job_id, _ = await enqueue(ppool, puser, [("x.bin", garbage_bytes()), ("e.txt", b"")])
    await drain(ppool, service)
    job = await ppool.fetchrow("SELECT * FROM parse_jobs WHERE id = $1", job_id)
    assert (job["state"], job["failed_items"], job["succeeded_items"]) == ("failed", 2, 0)


async def test_timeout_kills_the_child_and_fails_only_that_item(
    ppool, puser, parser_database_url
) -> None:
    slow = ParseService(ParserSettings(item_timeout_s=0.001))
    try:
        _, [timed_out] = await enqueue(ppool, puser, [("big.pdf", make_pdf(paper_pages(30)))])
        await slow.sandbox.warm_up()
        await drain(ppool, slow)
        row = await item(ppool, timed_out)
        assert (row["state"], row["error_code"], row["bytes_gone"]) == ("failed", "timeout", True)
        assert slow.sandbox.children_killed == 1
    finally:
        slow.sandbox.close()


async def test_dead_and_cancelled_items_release_their_bytes(ppool, puser) -> None:
    job_id, ids = await enqueue(
        ppool, puser, [("a.pdf", make_pdf(paper_pages(1))), ("b.md", b"# Notes\n\nSome text.")]
    )
    rows = await ppool.fetch("SELECT * FROM parse_items WHERE id = ANY($1) ORDER BY id", ids)
    gone = "SELECT file_bytes IS NULL FROM parse_items WHERE id = $1"
    async with ppool.acquire() as conn, conn.transaction():
        # The hook first, while the rows are not terminal yet: the migration-0002 trigger
        # (which NULLs bytes on any terminal state) has not fired, so this is the hook's work.
        await on_terminal(conn, rows[0], TerminalOutcome("dead", "internal_error", "boom"))
        await on_terminal(conn, rows[1], TerminalOutcome("cancelled"))
        assert await conn.fetchval(gone, ids[0]) and await conn.fetchval(gone, ids[1])
        await conn.execute("UPDATE parse_items SET state = 'dead' WHERE id = $1", ids[0])
        await conn.execute("UPDATE parse_items SET state = 'cancelled' WHERE id = $1", ids[1])
    dead, cancelled = await item(ppool, ids[0]), await item(ppool, ids[1])
    assert dead["bytes_gone"] and cancelled["bytes_gone"]
    assert dead["error_code"] == "internal_error" and dead["document_state"] == "failed"
    assert cancelled["error_code"] == "cancelled"
    job = await ppool.fetchrow("SELECT state, failed_items FROM parse_jobs WHERE id = $1", job_id)
    assert (job["state"], job["failed_items"]) == ("failed", 2)


async def test_two_parsers_finishing_the_last_items_at_once_lose_no_count(ppool, puser) -> None:
    for _ in range(5):
        job_id, ids = await enqueue(
            ppool, puser, [(f"{uuid.uuid4()}.txt", uuid.uuid4().bytes * 8) for _ in range(2)]
        )
        rows = await ppool.fetch("SELECT * FROM parse_items WHERE id = ANY($1) ORDER BY id", ids)
        started = asyncio.Barrier(2)

        async def finish(
            row: asyncpg.Record, outcome: TerminalOutcome, started: asyncio.Barrier = started
        ) -> None:
            async with ppool.acquire() as conn, conn.transaction():
                await started.wait()
                await on_terminal(conn, row, outcome)

        await asyncio.gather(
            finish(rows[0], TerminalOutcome("succeeded")),
            finish(rows[1], TerminalOutcome("failed", "corrupt_file", "Damaged.")),
        )
        job = await ppool.fetchrow("SELECT * FROM parse_jobs WHERE id = $1", job_id)
        assert (job["succeeded_items"], job["failed_items"], job["state"]) == (1, 1, "partial")


async def test_staged_bytes_ttl_sweep(ppool, puser) -> None:
    _, [old, fresh] = await enqueue(
        ppool, puser, [("old.txt", b"old staged text"), ("new.txt", b"fresh staged text")]
    )
    await ppool.execute(
        "UPDATE parse_items SET created_at = now() - interval '7 hours' WHERE id = $1", old
    )
    assert await expire_staged_bytes(ppool, 6 * 3600) >= 1
    assert (await item(ppool, old))["bytes_gone"]
    assert not (await item(ppool, fresh))["bytes_gone"]


async def test_finished_document_wakes_the_run_waiting_for_it(ppool, puser, service) -> None:
    session_id = await ppool.fetchval(
        "INSERT INTO sessions (user_id, name) VALUES ($1, 's') RETURNING id", puser
    )
    _, [item_id] = await enqueue(
        ppool, puser, [("t.md", b"# Thesis\n\nA claim [1].\n")], session_id=session_id
    )
    document_id = (await item(ppool, item_id))["document_id"]
    run_id = await ppool.fetchval(
        """INSERT INTO runs (user_id, session_id, thesis_document_id, document_ids, run_after)
           VALUES ($1, $2, $3, $4, now() + interval '1 hour') RETURNING id""",
        puser,
        session_id,
        document_id,
        [document_id],
    )
    await drain(ppool, service)
    assert await ppool.fetchval("SELECT run_after <= now() FROM runs WHERE id = $1", run_id)


async def test_thesis_references_and_citations_are_stored(
    ppool, puser, service, shared_data
) -> None:
    path = shared_data / "papers" / "N18-3011.pdf"
    if not path.is_file():
        pytest.skip("N18-3011.pdf absent")
    _, [item_id] = await enqueue(ppool, puser, [(path.name, path.read_bytes())], kind="thesis")
    await drain(ppool, service)
    row = await item(ppool, item_id)
    assert row["state"] == "succeeded"
    assert row["title"] == "Construction of the Literature Graph in Semantic Scholar"
    references = await ppool.fetch(
        'SELECT id, label FROM "references" WHERE document_id = $1', row["document_id"]
    )
    citations = await ppool.fetch(
        "SELECT * FROM citations WHERE document_id = $1 ORDER BY ordinal", row["document_id"]
    )
    assert len(references) >= 10 and len(citations) >= 10
    text = row["text_content"]
    reference_ids = {r["id"] for r in references}
    for citation in citations:
        # Thesis analysis reports the marker with its whitespace normalised.
        printed = text[citation["marker_start"] : citation["marker_end"]]
        assert " ".join(printed.split()) == " ".join(citation["marker_text"].split())
        assert citation["reference_id"] is None or citation["reference_id"] in reference_ids
    assert sum(c["reference_id"] is not None for c in citations) >= len(citations) * 0.8
    # A thesis is the query side: its chunks are stored for display but not embedded.
    counts = await ppool.fetchrow(
        "SELECT count(*) AS chunks, count(embedding) AS embedded FROM chunks "
        "WHERE document_id = $1",
        row["document_id"],
    )
    assert counts["chunks"] > 10 and counts["embedded"] == 0


async def test_a_source_re_sent_as_the_thesis_mid_parse_gets_the_thesis_analysis(
    ppool, puser, service, monkeypatch
) -> None:
    from citeproof.api.documents.services import _stage_file
    from citeproof.api.documents.uploads import UploadedFile

    text = (
        b"# Findings\n\nDense retrieval improved recall on long documents [1].\n\n"
        b"## References\n\n[1] A. Smith. Retrieval at scale. Journal of Search, 2020.\n"
    )
    _, [item_id] = await enqueue(ppool, puser, [("t.md", text)], kind="source")
    real_parse = service.sandbox.parse
    re_sent: list[bool] = []

    async def parse_while_the_user_re_sends_it(data, filename, declared_type, kind):
        parsed = await real_parse(data, filename, declared_type, kind)
        if not re_sent:
            re_sent.append(True)
            # The API's own upload path, with the same bytes, now as the thesis.
            digest = hashlib.sha256(text).digest()
            upload = UploadedFile("t.md", "text/markdown", size=len(text), sha256=digest)
            async with ppool.acquire() as conn, conn.transaction():
                await _stage_file(conn, puser, "thesis", upload)
        return parsed

    monkeypatch.setattr(service.sandbox, "parse", parse_while_the_user_re_sends_it)
    await drain(ppool, service)
    row = await item(ppool, item_id)
    assert re_sent and row["document_state"] == "parsed"
    assert await ppool.fetchval("SELECT kind FROM documents WHERE id = $1", row["document_id"]) == (
        "thesis"
    )
    # The thesis analysis ran: its citation is stored (a source's analysis finds none).
    assert (
        await ppool.fetchval(
            "SELECT count(*) FROM citations WHERE document_id = $1", row["document_id"]
        )
        == 1
    )


async def test_a_thesis_also_linked_as_a_source_is_embedded(ppool, puser, service) -> None:
    session_id = await ppool.fetchval(
        "INSERT INTO sessions (user_id, name) VALUES ($1, 's') RETURNING id", puser
    )
    text = b"# Findings\n\nRetrieval improved recall (Smith, 2020).\n\n## References\n\n"
    _, [item_id] = await enqueue(ppool, puser, [("t.md", text)], kind="thesis")
    document_id = (await item(ppool, item_id))["document_id"]
    await ppool.execute(
        "INSERT INTO session_sources (session_id, document_id, kind) VALUES ($1, $2, 'source')",
        session_id,
        document_id,
    )
    await drain(ppool, service)
    assert (await item(ppool, item_id))["state"] == "succeeded"
    assert await ppool.fetchval(
        "SELECT bool_and(embedding IS NOT NULL) FROM chunks WHERE document_id = $1", document_id
    )


async def test_on_demand_the_parser_stores_passages_without_vectors(ppool, puser) -> None:
    """ADR 0022: the default parser stores text, pages and chunks and embeds nothing (the
    retriever embeds what claims need); it needs no embedder to start."""
    on_demand = ParseService(
        ParserSettings(item_timeout_s=60, max_pages=40), EmbeddingSettings(chunks=CHUNKS_ON_DEMAND)
    )
    try:
        assert not on_demand.embeds_at_parse
        _, [item_id] = await enqueue(ppool, puser, [("paper.pdf", make_pdf(paper_pages(3)))])
        await drain(ppool, on_demand)
        row = await item(ppool, item_id)
        assert (row["state"], row["document_state"], row["pages"]) == ("succeeded", "parsed", 3)
        counts = await ppool.fetchrow(
            "SELECT count(*) AS chunks, count(embedding) AS embedded FROM chunks "
            "WHERE document_id = $1",
            row["document_id"],
        )
        assert counts["chunks"] > 0 and counts["embedded"] == 0
    finally:
        on_demand.sandbox.close()


def test_thesis_vectors_at_parse_time_need_embeddings_at_parse_time() -> None:
    with pytest.raises(SettingsError, match="CITEPROOF_EMBEDDINGS_CHUNKS=at_parse"):
        ParseService(
            ParserSettings(embed_thesis_chunks=True), EmbeddingSettings(chunks=CHUNKS_ON_DEMAND)
        )


async def test_a_child_crash_is_retried_then_reported(ppool, puser, service) -> None:
    _, [item_id] = await enqueue(ppool, puser, [("crash.pdf", make_pdf(paper_pages(40)))])
    await ppool.execute("UPDATE parse_items SET max_attempts = 2 WHERE id = $1", item_id)

    async def kill_busy_child() -> None:
        # Poll the sandbox (a test has no event to wait on) until a child is parsing.
        for _ in range(60_000):
            if service.sandbox.busy_pids():
                break
            await asyncio.sleep(0.001)
        os.kill(service.sandbox.busy_pids()[0], signal.SIGKILL)

    for attempt in (1, 2):
        killer = asyncio.create_task(kill_busy_child())
        await ppool.execute("UPDATE parse_items SET run_after = now() WHERE id = $1", item_id)
        assert await run_once(ppool, service.parse_stage) == 1
        await killer
        row = await item(ppool, item_id)
        if attempt == 1:
            # A crash may be transient (the OOM killer, a signal): the item is retried.
            assert (row["state"], row["bytes_gone"]) == ("queued", False)
    assert (row["state"], row["error_code"], row["bytes_gone"]) == (
        "failed",
        "parser_crashed",
        True,
    )
    # The sandbox replaced the dead child: the next file parses normally.
    _, [next_id] = await enqueue(ppool, puser, [("ok.md", b"# Fine\n\nA normal file.")])
    await drain(ppool, service)
    assert (await item(ppool, next_id))["state"] == "succeeded"
