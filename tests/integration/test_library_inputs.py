"""Bring-your-library inputs end to end through the API, the parse stage and the planner: every
citation links to the intended entry and PDF (or to none when no PDF was uploaded), never to a
wrong one; bad library input gets clear, per-entry answers."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import asyncpg
import pytest
from litestar.testing import AsyncTestClient

from citeproof.api import create_app
from citeproof.api.settings import ApiSettings
from citeproof.auth import create_token, create_user
from citeproof.db.pool import create_pool
from citeproof.db.settings import DatabaseSettings
from citeproof.devkit.library_run import Case, cases, new_user_headers, run_case, services
from citeproof.queue import run_once
from tests.integration.queue_support import fresh_database

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def library_db(database_url: str) -> Iterator[DatabaseSettings]:
    """A database of its own: the parse stage here must not claim other modules' items."""
    url = asyncio.run(fresh_database(database_url, "citeproof_library"))
    yield DatabaseSettings(url=url, pool_min=1, pool_max=6)


@pytest.fixture
async def lpool(library_db: DatabaseSettings) -> AsyncIterator[asyncpg.Pool]:
    pool = await create_pool(library_db)
    try:
        yield pool
    finally:
        await pool.close()


@pytest.fixture(scope="module")
def stage_services():
    parser, retriever = services()
    yield parser, retriever
    parser.sandbox.close()


@pytest.fixture(scope="module")
def library_cases(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Case]:
    return {case.name: case for case in cases(tmp_path_factory.mktemp("library"))}


CASE_NAMES = [
    "latex+bibtex (Better BibTeX, file fields)",
    "latex+csl-json (Zotero)",
    "latex+ris (Zotero, L1)",
    "pdf+ris (rendered thesis matched to the library)",
    "docx+zotero fields",
    "docx+mendeley fields",
]


# One user for every case, so the sample PDFs (identical bytes) are parsed once for the module.
_USER: dict[str, dict[str, str]] = {}


@pytest.mark.parametrize("name", CASE_NAMES)
async def test_every_citation_links_to_the_intended_pdf(
    name, library_cases, lpool, library_db, stage_services
) -> None:
    if "headers" not in _USER:
        _USER["headers"] = await new_user_headers(lpool)
    case = library_cases[name]
    outcome = await run_case(case, lpool, library_db, *stage_services, _USER["headers"])
    record = outcome.record
    assert outcome.wrong == [], outcome.wrong
    assert record["wrong_links"] == 0
    assert record["link_accuracy"] == 1.0
    assert record["marker_recall"] == 1.0 and record["marker_precision"] == 1.0, outcome.rows
    if not name.startswith("pdf"):
        assert record["references_found"] == record["references_expected"]
    if name.startswith("latex+bibtex"):
        # The report says where each \cite is and how its source was linked.
        app = create_app(ApiSettings(), db_settings=library_db)
        async with AsyncTestClient(app=app) as client:
            response = await client.get(
                f"/v1/runs/{outcome.run_id}/report",
                params={"format": "markdown"},
                headers=_USER["headers"],
            )
        assert response.status_code == 200, response.text
        assert "chapters/2-1.tex:3" in response.text
        assert "linked by library:key+attachment, 1.00" in response.text
    if "file fields" in name or "L1" in name or "pdf+ris" in name:
        # Attached files link exactly, not through metadata.
        linked = [row["method"] for row in outcome.rows if row["filename"]]
        assert linked and all(method.endswith("+attachment") for method in linked), linked


async def _session(client: AsyncTestClient, headers: dict) -> str:
    response = await client.post("/v1/sessions", json={"name": "bad input"}, headers=headers)
    return response.json()["id"]


async def test_bad_library_input_gets_clear_answers(lpool, library_db, stage_services) -> None:
    parser, _ = stage_services
    user_id = await create_user(lpool, f"bad-{uuid.uuid4().hex[:8]}")
    _, token = await create_token(lpool, user_id, "tests")
    headers = {"Authorization": f"Bearer {token}"}
    bib = (Path(__file__).resolve().parents[2] / "samples/library/latex/library.bib").read_text()
    broken = bib.replace("@article{hofer2020,\n", "@article{hofer2020,\n  title = {unclosed,\n", 1)
    small_cap = ApiSettings(max_file_bytes=len(bib.encode()) - 1)
    async with AsyncTestClient(app=create_app(small_cap, db_settings=library_db)) as client:
        session = await _session(client, headers)
        # Over the per-file cap: 413 with its code, before anything is staged.
        response = await client.post(
            f"/v1/sessions/{session}/documents",
            files=[("files", ("library.bib", bib.encode(), "application/x-bibtex"))],
            data={"kind": "bibliography"},
            headers=headers,
        )
        assert response.status_code == 413 and response.json()["code"] == "file_too_large"
    async with AsyncTestClient(app=create_app(ApiSettings(), db_settings=library_db)) as client:
        session = await _session(client, headers)
        response = await client.post(
            f"/v1/sessions/{session}/documents",
            files=[
                ("files", ("broken.bib", broken.encode(), "application/x-bibtex")),
                ("files", ("notes.bib", b"no entries here at all", "text/plain")),
            ],
            data={"kind": "bibliography"},
            headers=headers,
        )
        assert response.status_code == 202, response.text
        job = response.json()["job_id"]
        while await run_once(lpool, parser.parse_stage):
            pass
        status = (await client.get(f"/v1/jobs/{job}", headers=headers)).json()
        response = await client.get(f"/v1/sessions/{session}/documents", headers=headers)
    assert status["state"] == "partial"
    failed = next(item for item in status["items"] if item["filename"] == "notes.bib")
    assert failed["error_code"] == "malformed_bibliography" and "BibTeX" in failed["error_detail"]
    documents = {d["filename"]: d for d in response.json()["items"]}
    assert documents["broken.bib"]["state"] == "parsed"
    broken_id = uuid.UUID(documents["broken.bib"]["id"])
    notes = await lpool.fetchval("SELECT notes FROM documents WHERE id = $1", broken_id)
    assert "broken.bib, line 15: this entry could not be read" in notes
    labels = await lpool.fetch(
        'SELECT label FROM "references" WHERE document_id = $1 ORDER BY ordinal', broken_id
    )
    # The rest of the file is read: every entry but the broken one.
    assert [r["label"] for r in labels] == [
        "kowalczyk2021", "marchetti2022", "aalto2023", "vandijk2019", "moreau2022", "osei2024"
    ]  # fmt: skip
