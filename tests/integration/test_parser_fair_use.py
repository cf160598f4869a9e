"""Fair use of the shared parse workers, through the real parse stage, sandboxed child and
local embedder: the text caps refuse a document before it is cut into passages (formats
without pages count page equivalents against the page cap), and embedding one document runs
under a time budget that fails the item and frees its slot."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from citeproof.embeddings import EmbeddingSettings
from citeproof.embeddings.settings import CHUNKS_AT_PARSE
from citeproof.parser.service import EMBED_SLICE_TEXTS, ParseService
from citeproof.parser.settings import ParserSettings
from tests.integration import test_parser_stage as stage_support
from tests.unit.test_parser_files import make_docx, make_pdf, paper_pages

parser_database_url = stage_support.parser_database_url
ppool = stage_support.ppool
puser = stage_support.puser
enqueue, drain, item = stage_support.enqueue, stage_support.drain, stage_support.item

SENTENCE = "Street trees lowered the afternoon air temperature by about half a degree. "
CHUNKS_SQL = "SELECT count(*) FROM chunks WHERE document_id = $1"


def paragraphs(chars: int) -> list[str]:
    """Ordinary paragraphs (~900 characters each) adding up to about `chars` characters."""
    count = chars // (len(SENTENCE) * 12) + 1
    return [f"Paragraph {n}. " + SENTENCE * 12 for n in range(count)]


def text_formats(chars: int) -> list[tuple[str, bytes]]:
    body = paragraphs(chars)
    html = "<!DOCTYPE html><html><body>" + "".join(f"<p>{p}</p>" for p in body) + "</body></html>"
    return [
        ("long.txt", "\n\n".join(body).encode()),
        ("long.md", ("# Notes\n\n" + "\n\n".join(body)).encode()),
        ("long.html", html.encode()),
        ("long.docx", make_docx(body)),
    ]


@pytest.fixture(scope="module")
def capped() -> Iterator[ParseService]:
    # 5 pages of 3,000 characters for formats without pages; 12,000 characters for any format.
    service = ParseService(ParserSettings(max_pages=5, max_chars_per_document=12_000))
    yield service
    service.sandbox.close()


async def test_formats_without_pages_count_page_equivalents_against_the_page_cap(
    ppool, puser, capped
) -> None:
    over = text_formats(20_000)  # ~7 page equivalents
    under = ("short.md", ("# Short\n\n" + "\n\n".join(paragraphs(9_000))).encode())
    _, ids = await enqueue(ppool, puser, [*over, under])
    await drain(ppool, capped)
    for (name, _), item_id in zip(over, ids, strict=False):
        row = await item(ppool, item_id)
        assert (row["state"], row["error_code"], row["bytes_gone"]) == (
            "failed",
            "too_many_pages",
            True,
        ), (name, dict(row))
        assert "pages of 3,000 characters" in row["error_detail"], name
        assert await ppool.fetchval(CHUNKS_SQL, row["document_id"]) == 0
    small = await item(ppool, ids[-1])
    assert small["state"] == "succeeded", dict(small)


async def test_a_pdf_with_more_text_than_the_character_cap_is_refused_before_chunking(
    ppool, puser, capped
) -> None:
    pages = [[SENTENCE[:80]] * 50 for _ in range(4)]  # 4 pages (under the page cap), 16,000 chars
    light = paper_pages(2)
    _, [big, small] = await enqueue(
        ppool, puser, [("dense.pdf", make_pdf(pages)), ("light.pdf", make_pdf(light))]
    )
    await drain(ppool, capped)
    row = await item(ppool, big)
    assert (row["state"], row["error_code"]) == ("failed", "too_large"), dict(row)
    assert "12,000" in row["error_detail"]
    assert await ppool.fetchval(CHUNKS_SQL, row["document_id"]) == 0
    assert (await item(ppool, small))["state"] == "succeeded"


async def test_embedding_past_its_budget_fails_the_item_and_frees_the_slot(ppool, puser) -> None:
    """~500 passages take the local embedder ~12 s on a quiet core; a 1 s budget stops it
    after a slice or two, nothing is stored, and the next file of the job parses."""
    budgeted = ParseService(
        ParserSettings(embed_budget_s=1.0), EmbeddingSettings(chunks=CHUNKS_AT_PARSE)
    )
    try:
        long_text = "\n\n".join(paragraphs(700_000)).encode()
        _, [big, small] = await enqueue(
            ppool, puser, [("long.txt", long_text), ("short.txt", SENTENCE.encode())]
        )
        await budgeted.warm_up()  # the model loads before the clock starts
        await drain(ppool, budgeted)
        row = await item(ppool, big)
        assert (row["state"], row["error_code"], row["bytes_gone"]) == (
            "failed",
            "timeout",
            True,
        ), dict(row)
        assert "1 s allowed per document" in row["error_detail"]
        assert row["attempts"] == 1  # not retried: the same passages would take as long
        assert await ppool.fetchval(CHUNKS_SQL, row["document_id"]) == 0
        assert (await item(ppool, small))["state"] == "succeeded"
        # Stopped between slices once the budget was spent, not after embedding everything.
        done = int(re.search(r"\((\d+) done\)", row["error_detail"]).group(1))
        assert 0 < done <= 4 * EMBED_SLICE_TEXTS < 497, row["error_detail"]
    finally:
        budgeted.sandbox.close()
