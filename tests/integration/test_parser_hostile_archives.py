"""Hostile archives and PDFs through the real parse stage (a parsing child per service, the
queue on PostgreSQL): each fails with its documented code, alone — the good file of the same
job parses — and nothing is resolved, fetched or inflated that the guards forbid.

The files are built at test time (tests/e2e/badinput/archives.py).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from citeproof.parser.service import ParseService
from citeproof.parser.settings import ParserSettings
from tests.e2e.badinput import archives
from tests.integration import test_parser_stage as stage_support
from tests.unit.test_parser_files import make_pdf, paper_pages

parser_database_url = stage_support.parser_database_url
ppool = stage_support.ppool
puser = stage_support.puser
enqueue = stage_support.enqueue
drain = stage_support.drain
item = stage_support.item

VISIBLE = "Shaded streets stayed cooler than the open square at noon."
# A decompression bomb the parser reads through: ~260 KiB that inflate to 256 MiB of content
# stream (no text in it). The memory bomb is the same shape at 1 GiB, which no child under a
# 768 MiB cap can hold: the allocation fails and the child dies.
FLATE_INFLATED = 256 * 1024 * 1024
MEMORY_BOMB_INFLATED = 1024 * 1024 * 1024
ROOMY_CHILD_MB = 4096
TIGHT_CHILD_MB = 768


@pytest.fixture(scope="module")
def roomy() -> Iterator[ParseService]:
    service = ParseService(ParserSettings(item_timeout_s=90, child_memory_mb=ROOMY_CHILD_MB))
    yield service
    service.sandbox.close()


async def test_hostile_archives_and_pdfs_fail_alone_with_their_codes(
    ppool, puser, roomy, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.txt"
    canary = f"xxe-canary-{uuid.uuid4().hex}"
    secret.write_text(canary)
    bad = [
        ("laughs.docx", archives.docx_billion_laughs(), "corrupt_file"),
        ("many-parts.docx", archives.docx_many_small_members(), "archive_bomb"),
        ("lying-sizes.docx", archives.docx_lying_sizes(), "corrupt_file"),
        ("overlapping.docx", archives.docx_overlapping_entries(), "archive_bomb"),
        ("cyclic.pdf", archives.pdf_cyclic_page_tree(), "corrupt_file"),
        ("flate-bomb.pdf", archives.pdf_flate_bomb(FLATE_INFLATED), "no_text_layer"),
    ]
    assert len(archives.docx_many_small_members()) < 1024 * 1024  # small on the wire
    good = [
        ("xxe.docx", archives.docx_xxe(VISIBLE, str(secret))),
        ("paper.pdf", make_pdf(paper_pages(2))),
    ]
    _, ids = await enqueue(ppool, puser, [(n, d) for n, d, _ in bad] + good)
    await drain(ppool, roomy)
    for item_id, (name, _, code) in zip(ids, bad, strict=False):
        row = await item(ppool, item_id)
        assert (row["state"], row["error_code"]) == ("failed", code), (name, dict(row))
        assert row["error_detail"] and row["bytes_gone"], name
    xxe, paper = [await item(ppool, item_id) for item_id in ids[len(bad) :]]
    assert (paper["state"], paper["document_state"]) == ("succeeded", "parsed")
    # The XXE document parses as the text it shows: no entity is expanded or fetched.
    assert (xxe["state"], xxe["document_state"]) == ("succeeded", "parsed")
    assert VISIBLE in xxe["text_content"] and canary not in xxe["text_content"]
    chunks = await ppool.fetch("SELECT text FROM chunks WHERE document_id = $1", xxe["document_id"])
    assert chunks and not any(canary in c["text"] for c in chunks)


async def test_a_memory_bomb_trips_the_childs_cap_and_the_next_file_parses(ppool, puser) -> None:
    memory_bomb = archives.pdf_flate_bomb(MEMORY_BOMB_INFLATED)
    tight = ParseService(ParserSettings(item_timeout_s=90, child_memory_mb=TIGHT_CHILD_MB))
    try:
        _, [bomb] = await enqueue(ppool, puser, [("memory-bomb.pdf", memory_bomb)])
        await ppool.execute("UPDATE parse_items SET max_attempts = 1 WHERE id = $1", bomb)
        await drain(ppool, tight)
        row = await item(ppool, bomb)
        assert (row["state"], row["error_code"], row["bytes_gone"]) == (
            "failed",
            "parser_crashed",
            True,
        ), dict(row)
        # The sandbox replaced the dead child: the next file parses under the same cap.
        _, [after] = await enqueue(ppool, puser, [("after.pdf", make_pdf(paper_pages(2)))])
        await drain(ppool, tight)
        assert (await item(ppool, after))["state"] == "succeeded"
    finally:
        tight.sandbox.close()


async def test_a_document_with_more_text_than_the_chunk_cap_is_refused_before_embedding(
    ppool, puser
) -> None:
    """Text formats have no pages to count: a huge text file used to parse within the time
    limit and then embed for many minutes outside it. Now its chunks are counted first."""
    capped = ParseService(ParserSettings(max_chunks_per_document=20))
    try:
        sentence = "Street trees lowered the afternoon air temperature by half a degree. "
        long_text = ("\n\n".join(sentence * 12 for _ in range(120))).encode()
        _, [big, small] = await enqueue(
            ppool, puser, [("long.txt", long_text), ("short.txt", sentence.encode())]
        )
        await drain(ppool, capped)
        row = await item(ppool, big)
        assert (row["state"], row["error_code"], row["bytes_gone"]) == (
            "failed",
            "too_large",
            True,
        ), dict(row)
        assert row["attempts"] == 1 and "20" in row["error_detail"]
        stored = await ppool.fetchval(
            "SELECT count(*) FROM chunks WHERE document_id = $1", row["document_id"]
        )
        assert stored == 0
        assert (await item(ppool, small))["state"] == "succeeded"
    finally:
        capped.sandbox.close()
