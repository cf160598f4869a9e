"""The planner's findings against a real PostgreSQL: wrong attachments (CP311) and metadata that
differs (CP312) from each linked source's first page, the reference list's rules (CP411-CP415),
stored in planning's transaction and replaced, not doubled, when planning runs again; the
citations of a wrongly attached entry are not sent to the judge unless the user linked that
file explicitly."""

from __future__ import annotations

import json
import uuid

import asyncpg
import pytest

from citeproof.findings import findings_of_run
from citeproof.pipeline import (
    AMBIGUOUS_AUTHOR_YEAR,
    AMBIGUOUS_SUFFIX,
    DUPLICATE_ENTRY,
    MARKER_BEYOND_LIST,
    METADATA_DIFFERS,
    SOURCE_MISSING,
    UNCITED_ENTRY,
    WRONG_ATTACHMENT,
)
from citeproof.queue import run_once
from citeproof.retriever.service import RetrieverService
from citeproof.retriever.settings import RetrieverSettings

from .retriever_support import (
    HEAT_ISLANDS,
    HEAT_TITLE,
    SLEEP_MEMORY,
    SLEEP_TITLE,
    SOIL_BACTERIA,
    Cite,
    add_chunks,
    add_document,
    add_thesis,
    create_run,
    new_session,
    new_user,
    task_citations,
    verdict_labels,
)

SOIL_TITLE = "Nitrogen fixation and mycorrhizal networks under different tillage regimes"


def _first_page(title: str, authors: str, year: int, body: list[str]) -> list[str]:
    """The source's pages, the first opening with its front matter as a PDF prints it."""
    front = f"Journal of Field Studies 12(3), 44–61, {year}\n{title}\n{authors}\nAbstract\n"
    return [front + " ".join(body), *body]


REFERENCES = {
    # Linked by title; the entry's year is three years off the PDF's (CP312).
    "Okafor2018": {"title": HEAT_TITLE, "authors": ["Okafor"], "year": 2018},
    # Lindqvist 2019 wrote the soil paper; this entry names their sleep paper, and the writer's
    # library attaches the soil PDF to it (a mixed-up attachment): another work (CP311).
    "Lindqvist2019": {"title": SLEEP_TITLE, "authors": ["Lindqvist"], "year": 2019},
    # The user linked this entry to the heat PDF by hand: another work, but their call.
    "Tan2020": {
        "title": "Deep sea vents and their chemosynthetic communities",
        "authors": ["Tan"],
        "year": 2020,
    },
    # Two Smith 2020 entries without suffixes (CP414 on the second), the second cited as 2020b.
    "Smith2020": {"title": "Gloves in surgical wards", "authors": ["Smith"], "year": 2020},
    "Smith2020-2": {"title": "Gowns in surgical wards", "authors": ["Smith"], "year": 2020},
    # Never cited (CP411).
    "Novak2017": {"title": "Hand washing in kindergartens", "authors": ["Novak"], "year": 2017},
    # The first Smith again (CP412 on this one).
    "Smith2020-3": {"title": "Gloves in Surgical Wards.", "authors": ["Smith"], "year": 2020},
}
CITES = [
    Cite("Dense centres are warmer at night (Okafor, 2018).", "(Okafor, 2018)", ["Okafor2018"]),
    Cite("Sleep consolidates memory (Lindqvist, 2019).", "(Lindqvist, 2019)", ["Lindqvist2019"]),
    Cite("Slow waves replay activity (Lindqvist, 2019).", "(Lindqvist, 2019)", ["Lindqvist2019"]),
    Cite("Vents host chemosynthetic life around them (Tan, 2020).", "(Tan, 2020)", ["Tan2020"]),
    Cite("Gloves cut infections in surgical wards (Smith, 2020).", "(Smith, 2020)", ["Smith2020"]),
    Cite("Gowns cut infections too in the same wards (Smith, 2020b).", "(Smith, 2020b)", [None]),
    Cite("The third copy is cited too (Smith, 2020).", "(Smith, 2020)", ["Smith2020-3"]),
]
CITED = [None, None, None, None, None, {"names": ["Smith"], "year": 2020, "year_suffix": "b"}, None]


@pytest.fixture(scope="module")
def service() -> RetrieverService:
    return RetrieverService(RetrieverSettings())


async def _plan(pool: asyncpg.Pool, service: RetrieverService, run: uuid.UUID) -> None:
    """Work the plan stage until this run is planned (the shared database holds other tests'
    runs, which the claim may pick first)."""
    for _ in range(20):
        if await pool.fetchval("SELECT state FROM runs WHERE id = $1", run) == "succeeded":
            return
        await run_once(pool, service.plan_stage, worker_id="planner-findings")
    raise AssertionError("the run was never planned")


async def _world(pool: asyncpg.Pool):
    user = await new_user(pool)
    session = await new_session(pool, user)
    heat = await add_document(
        pool, user, title=HEAT_TITLE, authors=["Chidi Okafor"], year=2021, session_id=session
    )
    await add_chunks(pool, user, heat, _first_page(HEAT_TITLE, "Chidi Okafor", 2021, HEAT_ISLANDS))
    soil = await add_document(
        pool, user, title=SOIL_TITLE, authors=["Sofia Lindqvist"], year=2019, session_id=session
    )
    await add_chunks(
        pool, user, soil, _first_page(SOIL_TITLE, "Sofia Lindqvist", 2019, SOIL_BACTERIA)
    )
    await pool.execute("UPDATE documents SET filename = 'lindqvist 2019.pdf' WHERE id = $1", soil)
    library = await add_document(pool, user, kind="bibliography", session_id=session)
    await pool.execute(
        """INSERT INTO "references" (document_id, ordinal, label, raw, authors, year, title,
                                     attachments)
           VALUES ($1, 1, 'lindqvist2019', $2, '["Lindqvist"]', 2019, $2, $3::jsonb)""",
        library,
        SLEEP_TITLE,
        json.dumps(["files/3/Lindqvist 2019.pdf"]),
    )
    thesis = await add_thesis(pool, user, REFERENCES, CITES, session_id=session)
    for citation_id, cited in zip(thesis.citation_ids, CITED, strict=True):
        if cited is not None:
            await pool.execute(
                "UPDATE citations SET cited = $2::jsonb WHERE id = $1",
                citation_id,
                json.dumps(cited),
            )
    await pool.execute(
        "INSERT INTO reference_overrides (session_id, thesis_document_id, label, document_id) "
        "VALUES ($1, $2, 'Tan2020', $3)",
        session,
        thesis.document_id,
        heat,
    )
    run = await create_run(pool, user, session, thesis.document_id, [heat, soil, library])
    return heat, soil, thesis, run


async def _found(pool: asyncpg.Pool, run: uuid.UUID) -> list[tuple[str, int | None, int | None]]:
    return sorted(
        (f.finding.rule, f.citation_id, f.reference_id) for f in await findings_of_run(pool, run)
    )


async def test_planning_stores_attachment_and_list_findings(pool, service) -> None:
    heat, _soil, thesis, run = await _world(pool)
    await _plan(pool, service, run)
    refs, cites = thesis.reference_ids, thesis.citation_ids
    assert await _found(pool, run) == sorted(
        [
            (METADATA_DIFFERS.code, None, refs["Okafor2018"]),
            (WRONG_ATTACHMENT.code, None, refs["Lindqvist2019"]),
            (WRONG_ATTACHMENT.code, None, refs["Tan2020"]),
            (AMBIGUOUS_AUTHOR_YEAR.code, None, refs["Smith2020-2"]),
            (UNCITED_ENTRY.code, None, refs["Novak2017"]),
            (DUPLICATE_ENTRY.code, None, refs["Smith2020-3"]),
            (AMBIGUOUS_SUFFIX.code, cites[5], None),
        ]
    )
    by_rule = {f.finding.rule: f.finding for f in await findings_of_run(pool, run)}
    wrong = by_rule[WRONG_ATTACHMENT.code]
    assert {d.field for d in wrong.differences} >= {"title"}
    year = by_rule[METADATA_DIFFERS.code]
    assert [(d.field, d.expected, d.found) for d in year.differences] == [("year", "2018", "2021")]

    # The wrongly attached entry's citations are not judged against the other work...
    labels = await verdict_labels(pool, run)
    tasks = await task_citations(pool, run)
    assert labels[cites[1]] == labels[cites[2]] == SOURCE_MISSING
    assert cites[1] not in tasks and cites[2] not in tasks
    rationale = await pool.fetchval(
        "SELECT rationale FROM verdicts WHERE run_id = $1 AND citation_id = $2", run, cites[1]
    )
    assert WRONG_ATTACHMENT.code in rationale and SOIL_TITLE in rationale
    # ...unless the user linked that file explicitly: checked, and the finding says so.
    assert tasks[cites[3]] == heat
    assert tasks[cites[0]] == heat


async def test_first_author_and_year_link_no_pdf_of_another_title(pool, service) -> None:
    """Without the library, the only Lindqvist 2019 upload is the soil paper: the linker does
    not take it for the sleep paper on author and year alone (ADR 0018), so the entry has no
    source - and no wrong-attachment finding for a file nobody attached to it."""
    user = await new_user(pool)
    session = await new_session(pool, user)
    soil = await add_document(
        pool, user, title=SOIL_TITLE, authors=["Sofia Lindqvist"], year=2019, session_id=session
    )
    await add_chunks(
        pool, user, soil, _first_page(SOIL_TITLE, "Sofia Lindqvist", 2019, SOIL_BACTERIA)
    )
    references = {"Lindqvist2019": REFERENCES["Lindqvist2019"]}
    thesis = await add_thesis(pool, user, references, CITES[1:3], session_id=session)
    run = await create_run(pool, user, session, thesis.document_id, [soil])
    await _plan(pool, service, run)
    assert await _found(pool, run) == []
    link = await pool.fetchrow(
        "SELECT document_id, method FROM run_reference_links WHERE run_id = $1", run
    )
    assert link["document_id"] is None
    labels = await verdict_labels(pool, run)
    assert set(labels.values()) == {SOURCE_MISSING}


async def test_planning_again_replaces_its_findings(pool, service) -> None:
    _heat, _soil, _thesis, run = await _world(pool)
    await _plan(pool, service, run)
    first = await _found(pool, run)
    # A planner that ran before (a lost lease, a retry) planning the run again.
    await pool.execute(
        "UPDATE runs SET state = 'queued', status = 'planning', run_after = now(), "
        "worker_id = NULL, claim_token = NULL WHERE id = $1",
        run,
    )
    await _plan(pool, service, run)
    assert await _found(pool, run) == first
    assert len(first) == 7


async def test_a_numeric_marker_beyond_the_list(pool, service) -> None:
    user = await new_user(pool)
    session = await new_session(pool, user)
    sleep = await add_document(
        pool, user, title=SLEEP_TITLE, authors=["Ana García"], year=2020, session_id=session
    )
    await add_chunks(pool, user, sleep, _first_page(SLEEP_TITLE, "Ana García", 2020, SLEEP_MEMORY))
    references = {"1": {"title": SLEEP_TITLE, "authors": ["García"], "year": 2020}}
    cites = [
        Cite("Sleep after learning helps recall [1].", "[1]", ["1"]),
        Cite("Acoustic stimulation impaired recall [1, 4].", "[1, 4]", ["1", None]),
    ]
    thesis = await add_thesis(pool, user, references, cites, session_id=session)
    await pool.execute(
        "UPDATE citations SET cited = $2::jsonb WHERE id = $1",
        thesis.citation_ids[2],
        json.dumps({"number": 4}),
    )
    run = await create_run(pool, user, session, thesis.document_id, [sleep])
    await _plan(pool, service, run)
    found = await findings_of_run(pool, run)
    assert [(f.finding.rule, f.citation_id) for f in found] == [
        (MARKER_BEYOND_LIST.code, thesis.citation_ids[2])
    ]
    assert "[4]" in found[0].finding.message
