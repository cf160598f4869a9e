"""50 MiB of plain text, Markdown and HTML through the real parse stage (`make test-hostile`).

Each is at the per-file cap and full of ordinary sentences. Formats without pages count a
page per 3,000 characters against the page cap: plain text and Markdown are refused
(`too_many_pages`) before they are partitioned, HTML once its text is extracted, before it is
cut into passages; a parse that outlasted the per-file time limit would be `timeout`, and
the passage cap (`too_large`) stands behind both — a clear code either way, nothing embedded,
while the small file of the same job parses.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from citeproof.parser.service import ParseService
from citeproof.parser.settings import ParserSettings
from citeproof.pipeline import MAX_FILE_BYTES
from tests.integration import test_parser_stage as stage_support

parser_database_url = stage_support.parser_database_url
ppool = stage_support.ppool
puser = stage_support.puser

pytestmark = pytest.mark.timeout(1800)

REFUSALS = ("too_many_pages", "timeout", "too_large")
SENTENCE = "Street trees lowered the afternoon air temperature by about half a degree. "


def _text(size: int, paragraph_break: str) -> str:
    paragraph = SENTENCE * 12 + paragraph_break
    return (paragraph * (size // len(paragraph) + 1))[:size]


def large_files(size: int = MAX_FILE_BYTES) -> list[tuple[str, bytes]]:
    html_head, html_tail = "<!DOCTYPE html><html><body><p>", "</p></body></html>"
    html_body = _text(size - len(html_head) - len(html_tail), "</p>\n<p>")
    return [
        ("big.txt", _text(size, "\n\n").encode()),
        ("big.md", ("# Notes\n\n" + _text(size - 9, "\n\n")).encode()),
        ("big.html", (html_head + html_body + html_tail).encode()),
    ]


@pytest.fixture(scope="module")
def service() -> Iterator[ParseService]:
    parse_service = ParseService(ParserSettings())  # the shipped limits
    yield parse_service
    parse_service.sandbox.close()


async def test_fifty_mib_text_markdown_and_html(ppool, puser, service, hostile_record) -> None:
    files = large_files()
    assert all(len(data) == MAX_FILE_BYTES for _, data in files)
    small = ("small.md", b"# Small\n\nShaded streets stayed cooler at noon.\n")
    _, ids = await stage_support.enqueue(ppool, puser, [*files, small])
    started = time.monotonic()
    await stage_support.drain(ppool, service)
    elapsed = time.monotonic() - started
    rows = [await stage_support.item(ppool, item_id) for item_id in ids]
    for (name, _), row in zip(files, rows, strict=False):
        ok = row["state"] in ("failed", "succeeded") and row["bytes_gone"]
        ok = ok and row["error_code"] in REFUSALS
        hostile_record.add(f"text_50mib_{name.rsplit('.', 1)[1]}", None, row["error_code"], ok)
    hostile_record.add("text_50mib_small_neighbour", None, rows[-1]["error_code"],
                       rows[-1]["state"] == "succeeded")  # fmt: skip
    hostile_record.extra["text_50mib_wall_s"] = round(elapsed, 1)
    for (name, _), row in zip(files, rows, strict=False):
        assert row["bytes_gone"], name
        assert row["state"] == "failed", (name, dict(row))
        assert row["error_code"] in REFUSALS, (name, dict(row))
    assert rows[-1]["state"] == "succeeded"
    # Three files, each bounded by the time limit (plus storing nothing): no embedding ran.
    assert elapsed < 3 * (service.settings.item_timeout_s + 60)
