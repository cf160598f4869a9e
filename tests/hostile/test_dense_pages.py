"""500 dense pages through the real parse stage (`make test-hostile`): a PDF at the page cap
whose every page is full of text (~5,700 characters) is the most a PDF can ask of the
embedder. Its embedding is bounded: with the shipped limits it is embedded within the
embedding budget (or refused with a code), and with a short budget the item fails `timeout`
after that budget, nothing stored, while the small file of the same job parses.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator

import pytest

from citeproof.devkit.pdfgen.plain import make_pdf
from citeproof.parser.service import ParseService
from citeproof.parser.settings import ParserSettings
from citeproof.pipeline import MAX_PAGES
from tests.integration import test_parser_stage as stage_support

parser_database_url = stage_support.parser_database_url
ppool = stage_support.ppool
puser = stage_support.puser

pytestmark = pytest.mark.timeout(1800)

WORDS = (
    "street trees lowered afternoon air temperature canopy shade asphalt albedo roofs "
    "cooling heat island night humidity wind sensors district measured summer higher lower "
    "than where with during across between reported effect model study cities urban green "
    "surface water park mortality elderly exposure threshold degree percent mean daily"
).split()
LINES_PER_PAGE = 60  # 10 pt Helvetica on 12 pt leading from the top margin to the bottom one
LINE_CHARS = 95
SHORT_BUDGET_S = 10.0


def dense_pages(count: int, seed: int) -> list[list[str]]:
    rng = random.Random(seed)
    pages = []
    for _ in range(count):
        lines = []
        for _ in range(LINES_PER_PAGE):
            line = ""
            while len(line) < LINE_CHARS - 12:
                line += rng.choice(WORDS) + " "
            lines.append(line.strip() + ".")
        pages.append(lines)
    return pages


@pytest.fixture(scope="module")
def shipped() -> Iterator[ParseService]:
    service = ParseService(ParserSettings())
    yield service
    service.sandbox.close()


async def _run(ppool, puser, service: ParseService, seed: int) -> dict:
    dense = make_pdf(dense_pages(MAX_PAGES, seed), title=f"Dense {seed}")
    small = make_pdf([["A short note on shade.", "Trees cooled the street at noon."]])
    _, [big, neighbour] = await stage_support.enqueue(
        ppool, puser, [(f"dense-{seed}.pdf", dense), (f"small-{seed}.pdf", small)]
    )
    await service.warm_up()
    started = time.monotonic()
    await stage_support.drain(ppool, service)
    elapsed = time.monotonic() - started
    row = await stage_support.item(ppool, big)
    chunks = await ppool.fetchval(
        "SELECT count(*) FROM chunks WHERE document_id = $1", row["document_id"]
    )
    return {
        "row": row,
        "neighbour": await stage_support.item(ppool, neighbour),
        "wall_s": round(elapsed, 1),
        "chunks": chunks,
        "mib": round(len(dense) / 2**20, 1),
    }


async def test_five_hundred_dense_pages_with_the_shipped_limits(
    ppool, puser, shipped, hostile_record
) -> None:
    result = await _run(ppool, puser, shipped, seed=1)
    row, settings = result["row"], shipped.settings
    bounded = settings.item_timeout_s + settings.embed_budget_s + 60
    ok = (
        row["bytes_gone"]
        and result["neighbour"]["state"] == "succeeded"
        and result["wall_s"] < bounded
        and (
            (
                row["state"] == "succeeded"
                and 0 < result["chunks"] <= settings.max_chunks_per_document
            )
            or (row["state"] == "failed" and row["error_code"] in ("timeout", "too_large"))
        )
    )
    hostile_record.add("dense_500_pages_shipped_limits", None, row["error_code"], bool(ok))
    hostile_record.extra["dense_500_pages"] = {
        "pdf_mib": result["mib"],
        "text_chars": len(row["text_content"] or ""),
        "state": row["state"],
        "error_code": row["error_code"],
        "chunks_stored": result["chunks"],
        "wall_s": result["wall_s"],
        "bound_s": bounded,
    }
    assert ok, {**result, "row": dict(row)}


async def test_five_hundred_dense_pages_past_a_short_embedding_budget(
    ppool, puser, hostile_record
) -> None:
    service = ParseService(ParserSettings(embed_budget_s=SHORT_BUDGET_S))
    try:
        result = await _run(ppool, puser, service, seed=2)
    finally:
        service.sandbox.close()
    row = result["row"]
    # Parsing has its own limit; past the budget at most one slice of passages runs on.
    bounded = service.settings.item_timeout_s + SHORT_BUDGET_S + 15
    ok = (
        (row["state"], row["error_code"]) == ("failed", "timeout")
        and row["bytes_gone"]
        and result["chunks"] == 0
        and result["neighbour"]["state"] == "succeeded"
        and result["wall_s"] < bounded
    )
    hostile_record.add("dense_500_pages_budget_10s", None, row["error_code"], bool(ok))
    hostile_record.extra["dense_500_pages_budget_10s"] = {
        "state": row["state"],
        "error_code": row["error_code"],
        "error_detail": row["error_detail"],
        "wall_s": result["wall_s"],
        "bound_s": bounded,
    }
    assert ok, {**result, "row": dict(row)}
