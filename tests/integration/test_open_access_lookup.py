"""The optional open-access lookup against a local stub of an OpenAlex-compatible API (a real
HTTP server on 127.0.0.1 serving JSON and PDFs; nothing here touches the internet): references
with a DOI and no uploaded PDF get the PDF the API names, parsed by the real parse stage and
linked at planning; answers are cached in PostgreSQL; the switch is per user and off by
default, and so is the server setting."""

from __future__ import annotations

import asyncio
import io
import json
import re
import threading
import uuid
import zipfile
from collections.abc import AsyncIterator, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

import asyncpg
import pytest
from litestar.testing import AsyncTestClient

from citeproof.api import create_app
from citeproof.api.settings import ApiSettings
from citeproof.contracts.thesis import LINK_OPEN_ACCESS
from citeproof.db.pool import create_pool
from citeproof.db.settings import DatabaseSettings
from citeproof.devkit.library_run import (
    CITATION_LINKS,
    DEMO,
    LIBRARY,
    expected_links,
    new_user_headers,
)
from citeproof.devkit.pdfgen.corpus import render_corpus
from citeproof.parser.service import ParseService
from citeproof.parser.settings import ParserSettings
from citeproof.pipeline import SOURCE_MISSING
from citeproof.queue import run_once
from citeproof.retriever.open_access import FetchError, OpenAccessClient
from citeproof.retriever.service import RetrieverService
from citeproof.retriever.settings import RetrieverSettings
from tests.integration.queue_support import fresh_database

pytestmark = pytest.mark.slow

EMAIL = "thesis-checker@example.org"
# Reference number -> DOI in the test's library (6 and 7 get DOIs the stub has no PDF for).
DOIS = {"1": "10.5555/ucl.2021.0142", "2": "10.5555/ber.2020.0378",
        "3": "10.5555/ucl.2022.0219", "4": "10.5555/eeh.2023.0057",
        "5": "10.5555/ucl.2019.0031", "6": "10.5555/nopdf.2022.6",
        "7": "10.5555/html.2024.7"}  # fmt: skip
KEY_NUMBERS = {"kowalczyk2021": "1", "hofer2020": "2", "marchetti2022": "3", "aalto2023": "4",
               "vandijk2019": "5", "moreau2022": "6", "osei2024": "7"}  # fmt: skip


class StubApi:
    """OpenAlex's `/works/doi:<doi>` and the PDFs its answers point at."""

    def __init__(self, pdfs: dict[str, bytes]) -> None:
        self.pdfs = pdfs  # DOI -> PDF bytes
        self.requests: list[tuple[str, dict]] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                parts = urlsplit(self.path)
                stub.requests.append((unquote(parts.path), parse_qs(parts.query)))
                work = re.fullmatch(r"/works/doi:(.+)", unquote(parts.path))
                if work:
                    doi = work.group(1)
                    if doi in stub.pdfs:
                        body = {"best_oa_location": {"pdf_url": f"{stub.url}/pdf/{DOIS_BACK[doi]}"}}
                    elif doi == DOIS["6"]:
                        body = {"best_oa_location": None, "oa_locations": []}
                    elif doi == DOIS["7"]:
                        body = {"best_oa_location": {"pdf_url": f"{stub.url}/landing"}}
                    else:
                        return self._send(404, b'{"error": "not found"}', "application/json")
                    return self._send(200, json.dumps(body).encode(), "application/json")
                if parts.path.startswith("/pdf/"):
                    number = parts.path.rsplit("/", 1)[1]
                    return self._send(200, stub.pdfs[DOIS[number]], "application/pdf")
                if parts.path == "/landing":
                    return self._send(200, b"<html>a landing page</html>", "text/html")
                self._send(404, b"", "text/plain")

            def _send(self, status: int, body: bytes, content_type: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def lookups(self) -> list[tuple[str, dict]]:
        return [r for r in self.requests if r[0].startswith("/works/")]

    def downloads(self) -> list[tuple[str, dict]]:
        return [r for r in self.requests if not r[0].startswith("/works/")]


DOIS_BACK = {doi: number for number, doi in DOIS.items()}


@pytest.fixture(scope="module")
def oa_db(database_url: str) -> Iterator[DatabaseSettings]:
    """A database of its own: the parse stage here must not claim other modules' items."""
    url = asyncio.run(fresh_database(database_url, "citeproof_oa"))
    yield DatabaseSettings(url=url, pool_min=1, pool_max=6)


@pytest.fixture
async def pool(oa_db: DatabaseSettings) -> AsyncIterator[asyncpg.Pool]:
    pool = await create_pool(oa_db)
    try:
        yield pool
    finally:
        await pool.close()


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory):
    return render_corpus(DEMO, tmp_path_factory.mktemp("oa") / "demo")


@pytest.fixture(scope="module")
def stub(rendered) -> Iterator[StubApi]:
    pdfs = {DOIS[Path(p).name.split("-")[0]]: Path(p).read_bytes() for p in rendered.sources}
    api = StubApi(pdfs)
    yield api
    api.server.shutdown()


@pytest.fixture(scope="module")
def parser() -> Iterator[ParseService]:
    service = ParseService(ParserSettings(item_timeout_s=120))
    yield service
    service.sandbox.close()


def _settings(stub: StubApi, **extra) -> RetrieverSettings:
    return RetrieverSettings(
        open_access_enabled=True, open_access_base_url=stub.url, open_access_email=EMAIL,
        open_access_allow_private_hosts=True, **extra,
    )  # fmt: skip


def _thesis_zip() -> bytes:
    """The sample LaTeX project; its .bib attaches PDFs nobody uploads, 6 and 7 get DOIs."""
    bib = (LIBRARY / "latex" / "library.bib").read_text()
    for key in ("moreau2022", "osei2024"):
        bib = re.sub(rf"(@\w+\{{{key},\n)", rf"\1  doi = {{{DOIS[KEY_NUMBERS[key]]}}},\n", bib)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in sorted((LIBRARY / "latex").rglob("*.tex")):
            archive.write(path, "thesis/" + path.relative_to(LIBRARY / "latex").as_posix())
        archive.writestr("thesis/library.bib", bib)
    return buffer.getvalue()


async def _start_run(client: AsyncTestClient, headers: dict, parser, pool) -> tuple[uuid, uuid]:
    session = (await client.post("/v1/sessions", json={"name": "oa"}, headers=headers)).json()
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
        f"/v1/sessions/{session['id']}/runs", json={"thesis_document_id": thesis_id},
        headers=headers,
    )  # fmt: skip
    assert response.status_code == 202, response.text
    return uuid.UUID(thesis_id), uuid.UUID(response.json()["run_id"])


async def _plan_to_the_end(pool, parser, retriever) -> None:
    """Plan; parse what planning fetched; plan again (the parser wakes the run)."""
    for _ in range(3):
        await run_once(pool, retriever.plan_stage)
        while await run_once(pool, parser.parse_stage):
            pass


async def _links(pool, thesis_id, run_id) -> dict[tuple[str, str], dict]:
    rows = await pool.fetch(CITATION_LINKS, thesis_id, run_id)
    return {(r["claim_text"][:40], KEY_NUMBERS[r["label"]]): dict(r) for r in rows}


async def test_open_access_pdfs_are_fetched_parsed_linked_and_cached(
    pool, oa_db, parser, stub
) -> None:
    retriever = RetrieverService(_settings(stub))
    headers = await new_user_headers(pool)
    app = create_app(ApiSettings(), db_settings=oa_db)
    async with AsyncTestClient(app=app) as client:
        # Off by default, switched on by the user.
        assert (await client.get("/v1/me/preferences", headers=headers)).json() == {
            "open_access_lookup": False,
            "verify_references": False,
        }
        response = await client.patch(
            "/v1/me/preferences", json={"open_access_lookup": True}, headers=headers
        )
        assert response.status_code == 200 and response.json()["open_access_lookup"] is True
        thesis_id, run_id = await _start_run(client, headers, parser, pool)
    await _plan_to_the_end(pool, parser, retriever)

    # Seven lookups (one per DOI) in the polite pool; five PDFs and one HTML page downloaded.
    assert sorted(path for path, _ in stub.lookups()) == sorted(
        f"/works/doi:{d}" for d in DOIS.values()
    )
    assert all(query.get("mailto") == [EMAIL] for _, query in stub.lookups())
    assert len(stub.downloads()) == 6
    expected = expected_links()
    links = await _links(pool, thesis_id, run_id)
    assert set(links) == set(expected)
    for key, pdf in expected.items():
        row = links[key]
        if pdf is None:
            assert row["filename"] is None and row["verdict"] == SOURCE_MISSING, row
        else:
            # The fetched PDF of the reference's DOI, parsed like an upload.
            assert row["method"] == LINK_OPEN_ACCESS, row
            assert row["filename"] == DOIS[key[1]].replace("/", "_") + ".pdf", row
    rationales = {
        r["label"]: r["rationale"]
        for r in await pool.fetch(
            "SELECT r.label, v.rationale FROM verdicts v JOIN citations c ON c.id = v.citation_id "
            'JOIN "references" r ON r.id = c.reference_id WHERE v.run_id = $1', run_id
        )
    }  # fmt: skip
    assert "found no open-access PDF for doi:10.5555/nopdf.2022.6" in rationales["moreau2022"]
    assert "could not be downloaded (the URL did not serve a PDF)" in rationales["osei2024"]
    fetched = await pool.fetch(
        "SELECT d.state, d.kind FROM open_access_documents o JOIN documents d "
        "ON d.id = o.document_id"
    )
    assert len(fetched) == 5 and {(r["state"], r["kind"]) for r in fetched} == {
        ("parsed", "source")
    }
    cached = dict(await pool.fetch("SELECT doi, status FROM open_access_lookups"))
    assert cached[DOIS["6"]] == "none" and cached[DOIS["7"]] == "fetch_failed"

    # A second check of the same thesis asks nobody: cached answers, fetched documents reused.
    before = len(stub.requests)
    async with AsyncTestClient(app=app) as client:
        thesis_id, run_id = await _start_run(client, headers, parser, pool)
    await run_once(pool, retriever.plan_stage)
    assert len(stub.requests) == before
    links = await _links(pool, thesis_id, run_id)
    assert sum(1 for row in links.values() if row["method"] == LINK_OPEN_ACCESS) == sum(
        1 for pdf in expected.values() if pdf
    )


async def test_no_lookup_unless_the_user_and_the_server_switch_it_on(
    pool, oa_db, parser, stub
) -> None:
    assert RetrieverSettings().open_access_enabled is False
    before = len(stub.requests)
    headers = await new_user_headers(pool)  # never switched on
    app = create_app(ApiSettings(), db_settings=oa_db)
    async with AsyncTestClient(app=app) as client:
        thesis_id, run_id = await _start_run(client, headers, parser, pool)
    await _plan_to_the_end(pool, parser, RetrieverService(_settings(stub)))
    links = await _links(pool, thesis_id, run_id)
    assert all(row["filename"] is None for row in links.values())
    assert len(stub.requests) == before


async def test_pdf_urls_into_private_networks_are_refused(stub) -> None:
    client = OpenAccessClient(RetrieverSettings(open_access_enabled=True, open_access_email=EMAIL))
    try:
        with pytest.raises(FetchError, match="not a public address"):
            await client.download(f"{stub.url}/pdf/1")
        with pytest.raises(FetchError, match="not an http"):
            await client.download("file:///etc/passwd")
    finally:
        await client.aclose()
