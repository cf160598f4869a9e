"""Reference verification end to end: the API (preferences, runs, report), the real parse stage
on the sample LaTeX project, the planner queuing the verify task, the verify stage against the
stub Crossref and OpenAlex on 127.0.0.1, and the run held in `verifying` until it is done.

The sample library's seven works are in the stub's index as they are, except: one retracted, one
under an expression of concern, one whose index year differs, two nobody indexed."""

from __future__ import annotations

import asyncio
import io
import uuid
import zipfile
from collections.abc import AsyncIterator, Iterator

import asyncpg
import pytest
from litestar.testing import AsyncTestClient

from citeproof.api import create_app
from citeproof.api.reports.verification import verification_text
from citeproof.api.settings import ApiSettings
from citeproof.contracts.verification import NOT_FOUND_STATUS, NOT_LOOKED_UP, VERIFIED
from citeproof.db.pool import create_pool
from citeproof.db.settings import DatabaseSettings
from citeproof.devkit.library_run import LIBRARY, new_user_headers
from citeproof.devkit.scholarly_stub import Person, ScholarlyStub, StubNotice, Work
from citeproof.library.bibtex import parse_bibtex
from citeproof.parser.service import ParseService
from citeproof.parser.settings import ParserSettings
from citeproof.pipeline import (
    EXPRESSION_OF_CONCERN,
    METADATA_DIFFERS,
    NOT_FOUND,
    RETRACTED,
)
from citeproof.queue import run_once
from citeproof.retriever.service import RetrieverService
from citeproof.retriever.settings import RetrieverSettings
from citeproof.retriever.verify.settings import VerifySettings
from tests.integration.queue_support import fresh_database

pytestmark = pytest.mark.slow

RETRACTED_KEY, CONCERN_KEY, YEAR_KEY = "hofer2020", "aalto2023", "marchetti2022"
UNINDEXED = ("moreau2022", "osei2024")


def _stub_works() -> list[Work]:
    library = parse_bibtex((LIBRARY / "latex" / "library.bib").read_text())
    works = []
    for number, entry in enumerate(library.entries):
        if entry.key in UNINDEXED:
            continue
        work = Work(
            entry.title or "",
            [Person("A.", surname) for surname in entry.authors],
            entry.year or 2020,
            entry.venue or "",
            doi=entry.doi or f"10.5555/sample.{number}",
        )
        if entry.key == RETRACTED_KEY:
            work.notices = [StubNotice("retraction", "10.5555/ber.2023.ret", (2023, 4, 2))]
        if entry.key == CONCERN_KEY:
            work.notices = [
                StubNotice("expression_of_concern", "10.5555/eeh.2024.eoc", (2024, 1, 5))
            ]
        if entry.key == YEAR_KEY:
            work.year = (entry.year or 2020) - 3
        works.append(work)
    return works


@pytest.fixture(scope="module")
def stub() -> Iterator[ScholarlyStub]:
    stub = ScholarlyStub(_stub_works())
    yield stub
    stub.stop()


@pytest.fixture(scope="module")
def verify_db(database_url: str) -> Iterator[DatabaseSettings]:
    """A database of its own: the parse and verify stages here must not claim other rows."""
    url = asyncio.run(fresh_database(database_url, "citeproof_verify"))
    yield DatabaseSettings(url=url, pool_min=1, pool_max=8)


@pytest.fixture
async def pool(verify_db: DatabaseSettings) -> AsyncIterator[asyncpg.Pool]:
    pool = await create_pool(verify_db)
    try:
        yield pool
    finally:
        await pool.close()


@pytest.fixture(scope="module")
def parser() -> Iterator[ParseService]:
    service = ParseService(ParserSettings(item_timeout_s=120))
    yield service
    service.sandbox.close()


def _retriever(stub: ScholarlyStub, **extra) -> RetrieverService:
    service = RetrieverService(RetrieverSettings(), embed=_no_embedding)
    values = dict(enabled=True, crossref_url=stub.crossref.url, openalex_url=stub.openalex.url,
                  email="t@example.org", requests_per_s=100.0, backoff_base_s=0.05)  # fmt: skip
    values.update(extra)
    service.use_verification(VerifySettings(**values))
    return service


async def _no_embedding(texts: list[str]):
    raise AssertionError("no retrieval expected: the run has no sources")


def _thesis_zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in sorted((LIBRARY / "latex").rglob("*.tex")):
            archive.write(path, "thesis/" + path.relative_to(LIBRARY / "latex").as_posix())
        archive.write(LIBRARY / "latex" / "library.bib", "thesis/library.bib")
    return buffer.getvalue()


async def _start_run(client: AsyncTestClient, headers: dict, parser, pool) -> uuid.UUID:
    session = (await client.post("/v1/sessions", json={"name": "verify"}, headers=headers)).json()
    response = await client.post(
        f"/v1/sessions/{session['id']}/documents",
        files=[("files", ("thesis.zip", _thesis_zip(), "application/zip"))],
        data={"kind": "thesis"},
        headers=headers,
    )
    assert response.status_code == 202, response.text
    thesis_id = response.json()["documents"][0]["id"]
    while await run_once(pool, parser.parse_stage):
        pass
    response = await client.post(
        f"/v1/sessions/{session['id']}/runs",
        json={"thesis_document_id": thesis_id},
        headers=headers,
    )
    assert response.status_code == 202, response.text
    return uuid.UUID(response.json()["run_id"])


async def _report(client, headers, run_id) -> dict:
    response = await client.get(f"/v1/runs/{run_id}/report", headers=headers)
    assert response.status_code == 200, response.text
    return response.json()


async def test_a_run_verifies_its_entries_and_completes_after_them(
    pool, verify_db, parser, stub
) -> None:
    retriever = _retriever(stub)
    headers = await new_user_headers(pool)
    app = create_app(ApiSettings(), db_settings=verify_db)
    async with AsyncTestClient(app=app) as client:
        preferences = (await client.get("/v1/me/preferences", headers=headers)).json()
        assert preferences["verify_references"] is False
        response = await client.patch(
            "/v1/me/preferences", json={"verify_references": True}, headers=headers
        )
        assert response.json()["verify_references"] is True
        run_id = await _start_run(client, headers, parser, pool)
        await run_once(pool, retriever.plan_stage)
        # Nothing to check against (no sources), but the run waits for its verification.
        status = (await client.get(f"/v1/runs/{run_id}", headers=headers)).json()
        assert status["status"] == "verifying", status
        assert (await _report(client, headers, run_id))["entries"][0]["verification"][
            "status"
        ] == "pending"
        assert await run_once(pool, retriever.verify_stage)
        status = (await client.get(f"/v1/runs/{run_id}", headers=headers)).json()
        assert status["status"] == "completed" and status["finished_at"], status
        report = await _report(client, headers, run_id)
        html = (
            await client.get(
                f"/v1/runs/{run_id}/report", params={"format": "html"}, headers=headers
            )
        ).text
        markdown = (
            await client.get(
                f"/v1/runs/{run_id}/report", params={"format": "markdown"}, headers=headers
            )
        ).text

    entries = {entry["label"]: entry for entry in report["entries"]}
    assert len(entries) == 7
    rules = {label: {f["rule"] for f in e["findings"]} for label, e in entries.items()}
    assert RETRACTED.code in rules[RETRACTED_KEY]
    assert EXPRESSION_OF_CONCERN.code in rules[CONCERN_KEY]
    assert RETRACTED.code not in rules[CONCERN_KEY]
    assert METADATA_DIFFERS.code in rules[YEAR_KEY]
    for label in ("kowalczyk2021", "vandijk2019"):
        assert not ({RETRACTED.code, METADATA_DIFFERS.code, NOT_FOUND.code} & rules[label])
        assert entries[label]["verification"]["status"] == VERIFIED
        assert entries[label]["verification"]["work"]["index"] == "crossref"
    for label in UNINDEXED:
        assert entries[label]["verification"]["status"] == NOT_FOUND_STATUS
        assert rules[label] == {NOT_FOUND.code}
    # The HTML report says where each entry was looked up, and what was found.
    assert "Reference verification: 5 looked up, 2 not found in any index." in html
    assert "Found in" not in html and "Looked up: found in Crossref (by doi)" in html
    assert "Reference verification: 5 looked up, 2 not found in any index." in markdown

    # A second check of the same thesis asks nobody: every answer is in the cache.
    before = stub.request_count()
    async with AsyncTestClient(app=app) as client:
        run_id = await _start_run(client, headers, parser, pool)
        await run_once(pool, retriever.plan_stage)
        assert await run_once(pool, retriever.verify_stage)
        again = await _report(client, headers, run_id)
    assert stub.request_count() == before
    assert {e["label"]: e["verification"]["status"] for e in again["entries"]} == {
        label: e["verification"]["status"] for label, e in entries.items()
    }


async def test_off_unless_the_server_and_the_user_switch_it_on(
    pool, verify_db, parser, stub
) -> None:
    before = stub.request_count()
    app = create_app(ApiSettings(), db_settings=verify_db)
    # The user never switched it on: the server's switch alone does nothing.
    headers = await new_user_headers(pool)
    async with AsyncTestClient(app=app) as client:
        run_id = await _start_run(client, headers, parser, pool)
        await run_once(pool, _retriever(stub).plan_stage)
        status = (await client.get(f"/v1/runs/{run_id}", headers=headers)).json()
        assert status["status"] == "completed"
        report = await _report(client, headers, run_id)
    for entry in report["entries"]:
        assert entry["verification"]["status"] == NOT_LOOKED_UP
        assert "reference verification was off" in entry["verification"]["detail"]
    # The user switched it on, the server did not.
    headers = await new_user_headers(pool)
    async with AsyncTestClient(app=app) as client:
        await client.patch("/v1/me/preferences", json={"verify_references": True}, headers=headers)
        run_id = await _start_run(client, headers, parser, pool)
        await run_once(pool, _retriever(stub, enabled=False).plan_stage)
        assert (await client.get(f"/v1/runs/{run_id}", headers=headers)).json()[
            "status"
        ] == "completed"
    assert stub.request_count() == before
    assert VerifySettings().enabled is False


async def test_with_the_indexes_down_the_run_completes_and_nothing_is_not_found(
    pool, verify_db, parser, stub
) -> None:
    await pool.execute("DELETE FROM scholarly_lookups")
    retriever = _retriever(
        stub, crossref_url="http://127.0.0.1:9", openalex_url="http://127.0.0.1:9", max_retries=0
    )
    headers = await new_user_headers(pool)
    app = create_app(ApiSettings(), db_settings=verify_db)
    async with AsyncTestClient(app=app) as client:
        await client.patch("/v1/me/preferences", json={"verify_references": True}, headers=headers)
        run_id = await _start_run(client, headers, parser, pool)
        await run_once(pool, retriever.plan_stage)
        assert await run_once(pool, retriever.verify_stage)
        status = (await client.get(f"/v1/runs/{run_id}", headers=headers)).json()
        report = await _report(client, headers, run_id)
    assert status["status"] == "completed"
    for entry in report["entries"]:
        verification = entry["verification"]
        assert verification["status"] == NOT_LOOKED_UP, verification
        assert "not looked up" in verification_text_of(verification)
        assert not any(f["rule"] == NOT_FOUND.code for f in entry["findings"])


def verification_text_of(verification: dict) -> str:
    import msgspec

    from citeproof.contracts.verification import EntryVerification

    return verification_text(msgspec.convert(verification, EntryVerification)).lower()
