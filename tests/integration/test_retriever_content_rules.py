"""The content rules in the real retrieve stage, against PostgreSQL: a misquotation, a changed
number, a wrong pinpoint page and a verified quotation through printed page numbers are stored
as findings of the retrieve producer, once per citation however often the task runs; and the
parser stores the pinpoints and printed page numbers the rules read."""

from __future__ import annotations

import uuid
from pathlib import Path

import asyncpg
import pytest

from citeproof.findings import PRODUCER_RETRIEVE, findings_of_run
from citeproof.parser.extract import parse_bytes
from citeproof.parser.settings import ParserSettings
from citeproof.parser.store import store_document
from citeproof.pipeline import NUMBER_CONFLICT, PAGE_MISMATCH, QUOTE_NOT_FOUND, QUOTE_VERIFIED
from citeproof.retriever.service import RetrieverService
from citeproof.retriever.settings import RetrieverSettings

from .retriever_support import (
    Cite,
    add_chunks,
    add_document,
    add_thesis,
    create_run,
    drain,
    new_session,
    new_user,
)

PAPERS = Path(__file__).resolve().parents[3] / "shared" / "data" / "papers"

TITLE = "Ventilation, aerosols and carbon dioxide in school classrooms"
PAGES = [
    "Opening windows for ten minutes every hour halved the concentration of carbon dioxide in "
    "the classrooms we measured.",
    "Mortality was 34% among ventilated patients in the intensive care units. The well-known "
    "effect of ventilation on aerosol concentration was confirmed in all classrooms.",
    "Portable air cleaners are a cost-effective supplement where windows cannot be opened, and "
    "teachers reported fewer headaches after they were installed.",
]
REFERENCES = {"Lind2021": {"title": TITLE, "authors": ["Lind"], "year": 2021}}
MARKER = "(Lind et al., 2021)"
CITES = [
    # 1: a word changed inside a quotation
    Cite(f"Lind et al. write that “the well-known effect of heating on aerosol concentration "
         f"was confirmed in all classrooms” {MARKER}.", MARKER, ["Lind2021"]),
    # 2: a number changed
    Cite(f"Mortality was 43% among ventilated patients in intensive care units {MARKER}.",
         MARKER, ["Lind2021"]),
    # 3: a pinpoint to a page that does not bear on the claim (set below: p. 1125)
    Cite(f"Opening windows for ten minutes every hour halved carbon dioxide in classrooms "
         f"{MARKER}.", MARKER, ["Lind2021"]),
    # 4: a quotation on the cited printed page (set below: p. 1125)
    Cite(f"Teachers noticed that “teachers reported fewer headaches after they were installed” "
         f"{MARKER}.", MARKER, ["Lind2021"]),
]  # fmt: skip


@pytest.fixture(scope="module")
def service() -> RetrieverService:
    return RetrieverService(RetrieverSettings())


async def _planned_run(pool: asyncpg.Pool, service: RetrieverService):
    user = await new_user(pool)
    session = await new_session(pool, user)
    source = await add_document(pool, user, title=TITLE, authors=["Lind"], year=2021,
                                session_id=session)  # fmt: skip
    await add_chunks(pool, user, source, PAGES)
    # The article starts on the journal's p. 1123.
    await pool.execute(
        "UPDATE documents SET page_labels = $2, page_label_offset = 1122 WHERE id = $1",
        source,
        ["1123", "1124", "1125"],
    )
    thesis = await add_thesis(pool, user, REFERENCES, CITES, session_id=session)
    for citation_id in thesis.citation_ids[2:]:
        await pool.execute(
            "UPDATE citations SET pinpoint = 'p. 1125', pinpoint_pages = '{1125}' WHERE id = $1",
            citation_id,
        )
    run = await create_run(pool, user, session, thesis.document_id, [source])
    await drain(pool, service.plan_stage)
    return run, thesis


async def _stored(pool: asyncpg.Pool, run: uuid.UUID) -> list[tuple[int, str, str]]:
    rows = await pool.fetch(
        "SELECT citation_id, rule, producer FROM findings WHERE run_id = $1 ORDER BY citation_id",
        run,
    )
    return [(r["citation_id"], r["rule"], r["producer"]) for r in rows]


async def test_findings_of_the_content_rules_are_stored_by_the_retrieve_stage(
    pool, service
) -> None:
    run, thesis = await _planned_run(pool, service)
    await drain(pool, service.retrieve_stage)
    c = thesis.citation_ids
    assert await _stored(pool, run) == [
        (c[0], QUOTE_NOT_FOUND.code, PRODUCER_RETRIEVE),
        (c[1], NUMBER_CONFLICT.code, PRODUCER_RETRIEVE),
        (c[2], PAGE_MISMATCH.code, PRODUCER_RETRIEVE),
        (c[3], QUOTE_VERIFIED.code, PRODUCER_RETRIEVE),
    ]
    found = {f.citation_id: f.finding for f in await findings_of_run(pool, run)}
    assert [(d.expected, d.found) for d in found[c[0]].differences] == [("heating", "ventilation")]
    assert (found[c[1]].expected, found[c[1]].found) == ("43%", "34%")
    assert found[c[1]].evidence[0].text.startswith("Mortality was 34%")
    # Pages as printed: the claim of citation 3 is on PDF page 1 = printed p. 1123.
    assert (found[c[2]].expected, found[c[2]].found) == ("p. 1125", "p. 1123")
    assert (found[c[3]].evidence[0].page, found[c[3]].evidence[0].printed_page) == (3, "1125")
    # Retrieval itself is unchanged: every citation has evidence and a judge task.
    assert await pool.fetchval("SELECT count(*) FROM judge_tasks WHERE run_id = $1", run) == 4


async def test_a_retried_retrieve_task_stores_its_findings_once(pool, service, monkeypatch) -> None:
    run, thesis = await _planned_run(pool, service)
    await drain(pool, service.retrieve_stage)
    before = await _stored(pool, run)
    first_ids = await pool.fetch("SELECT id FROM findings WHERE run_id = $1", run)

    # A task claimed again after it committed (its acknowledgement lost): it runs in full again.
    await pool.execute(
        "UPDATE retrieve_tasks SET state = 'queued', run_after = now() WHERE run_id = $1", run
    )
    await drain(pool, service.retrieve_stage)
    assert await _stored(pool, run) == before
    again_ids = await pool.fetch("SELECT id FROM findings WHERE run_id = $1", run)
    assert {r["id"] for r in again_ids}.isdisjoint({r["id"] for r in first_ids})  # replaced

    # A task failing inside its completing transaction (after the findings were written)
    # leaves nothing of that attempt; its retry stores one set.
    import citeproof.retriever.service as service_module

    real_notify = service_module.notify
    calls = {"n": 0}

    async def failing_once(conn, channel, hint=""):
        calls["n"] += 1
        if calls["n"] == 1:
            raise RuntimeError("connection lost during completion")
        await real_notify(conn, channel, hint)

    monkeypatch.setattr(service_module, "notify", failing_once)
    target = thesis.citation_ids[0]
    await pool.execute(
        "UPDATE retrieve_tasks SET state = 'queued', run_after = now() "
        "WHERE run_id = $1 AND citation_id = $2",
        run,
        target,
    )
    await drain(pool, service.retrieve_stage)
    state = await pool.fetchrow(
        "SELECT state, attempts FROM retrieve_tasks WHERE run_id = $1 AND citation_id = $2",
        run,
        target,
    )
    assert state["state"] == "queued"  # the failed attempt is retried later
    assert await _stored(pool, run) == before
    await pool.execute(
        "UPDATE retrieve_tasks SET run_after = now() WHERE run_id = $1 AND citation_id = $2",
        run,
        target,
    )
    await drain(pool, service.retrieve_stage)
    assert await _stored(pool, run) == before
    assert calls["n"] > 1


async def test_the_parser_stores_pinpoints_and_printed_page_numbers(pool) -> None:
    user = await new_user(pool)
    settings = ParserSettings()
    tex = rb"""\documentclass{article}\begin{document}
Heat kills \cite[pp.~5--7]{a2020}. Trees cool \citep[see][p.~12]{b2021}.
\end{document}"""
    thesis = await add_document(pool, user, kind="thesis")
    parsed = parse_bytes(tex, "thesis.tex", None, settings, kind="thesis")
    async with pool.acquire() as conn, conn.transaction():
        await store_document(conn, thesis, user, parsed, None)
    rows = await pool.fetch(
        "SELECT reference_label, pinpoint_pages FROM citations WHERE document_id = $1 "
        "ORDER BY ordinal",
        thesis,
    )
    assert [(r["reference_label"], r["pinpoint_pages"]) for r in rows] == [
        ("a2020", ["5", "6", "7"]),
        ("b2021", ["12"]),
    ]
    paper = PAPERS / "N18-3011.pdf"
    if not paper.exists():
        pytest.skip(f"{paper} is absent (see ../shared/data/SOURCES.md)")
    source = await add_document(pool, user)
    parsed = parse_bytes(paper.read_bytes(), paper.name, None, settings)
    async with pool.acquire() as conn, conn.transaction():
        await store_document(conn, source, user, parsed, None)
    row = await pool.fetchrow(
        "SELECT page_labels, page_label_offset FROM documents WHERE id = $1", source
    )
    assert row["page_labels"][:3] == ["84", "85", "86"] and row["page_label_offset"] == 83
