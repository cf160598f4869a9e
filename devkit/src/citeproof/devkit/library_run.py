"""Library inputs checked end to end through the API: upload (thesis, sources, bibliography),
parse with the real parse stage, plan with the real planner, and score every citation's link
against the sample's intended reference and source. Used by the tests and by
`bench/library_inputs.py` (which writes `library_inputs` into bench/results/extraction.json).
It drives the API, the parser and the retriever in-process, so it needs every service package:
tooling of the development venv, where the repository's samples are at hand.

The judge is not run: which reference and which PDF a citation is linked to is decided at
planning, and that is what these inputs change.
"""

from __future__ import annotations

import importlib.util
import io
import json
import uuid
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import asyncpg
from litestar.testing import AsyncTestClient

from citeproof.api import create_app
from citeproof.api.settings import ApiSettings
from citeproof.auth import create_token, create_user
from citeproof.db.settings import DatabaseSettings
from citeproof.devkit.pdfgen.corpus import render_corpus
from citeproof.parser.service import ParseService
from citeproof.parser.settings import ParserSettings
from citeproof.queue import run_once
from citeproof.retriever.service import RetrieverService
from citeproof.retriever.settings import RetrieverSettings

# devkit is installed editable from the repository (make setup): devkit/src/citeproof/devkit/.
REPO = Path(__file__).resolve().parents[4]
DEMO = REPO / "samples" / "demo"
LIBRARY = REPO / "samples" / "library"
# Reference number of the demo thesis -> citation key in the sample library.
KEYS = {"1": "kowalczyk2021", "2": "hofer2020", "3": "marchetti2022", "4": "aalto2023",
        "5": "vandijk2019", "6": "moreau2022", "7": "osei2024"}  # fmt: skip
NUMBERS = {key: number for number, key in KEYS.items()}
# Marker identity: the first characters of the citing sentence.
CLAIM_PREFIX = 40

CITATION_LINKS = """
SELECT c.claim_text, r.label, d.filename, l.method, l.score, v.label AS verdict
FROM citations c
LEFT JOIN "references" r ON r.id = c.reference_id
LEFT JOIN run_reference_links l ON l.run_id = $2 AND l.reference_id = c.reference_id
LEFT JOIN documents d ON d.id = l.document_id
LEFT JOIN verdicts v ON v.run_id = $2 AND v.citation_id = c.id
WHERE c.document_id = $1
ORDER BY c.ordinal
"""


@dataclass
class Case:
    name: str
    thesis: tuple[str, bytes]
    sources: list[tuple[str, bytes]]
    bibliography: tuple[str, bytes] | None = None
    # Reference label as stored -> demo reference number.
    number_of: Callable[[str], str | None] = lambda label: NUMBERS.get(label)


@dataclass
class Outcome:
    record: dict
    rows: list[dict] = field(default_factory=list)
    wrong: list[dict] = field(default_factory=list)
    run_id: uuid.UUID | None = None


def latex_zip(with_bib: bool) -> bytes:
    root = LIBRARY / "latex"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in sorted(root.rglob("*")):
            if path.is_file() and (with_bib or path.suffix != ".bib"):
                archive.write(path, "thesis/" + path.relative_to(root).as_posix())
    return buffer.getvalue()


def build_docx(plugin: str, out: Path) -> bytes:
    spec = importlib.util.spec_from_file_location("build_docx", LIBRARY / "build_docx.py")
    assert spec is not None and spec.loader is not None  # a .py file always has both
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.build_docx(plugin, out).read_bytes()


def cases(work: Path) -> list[Case]:
    """The fixtures of the library inputs (PDFs rendered into `work`)."""
    rendered = render_corpus(DEMO, work / "demo")
    sources = [(Path(p).name, Path(p).read_bytes()) for p in rendered.sources]
    thesis_pdf = Path(rendered.thesis).read_bytes()
    numeric = lambda label: label if label in KEYS else None  # noqa: E731 - a one-line mapping
    return [
        Case("latex+bibtex (Better BibTeX, file fields)", ("thesis.zip", latex_zip(True)), sources),
        Case("latex+csl-json (Zotero)", ("thesis.zip", latex_zip(False)), sources,
             ("library.json", (LIBRARY / "library.json").read_bytes())),
        Case("latex+ris (Zotero, L1)", ("thesis.zip", latex_zip(False)), sources,
             ("library.ris", (LIBRARY / "library.ris").read_bytes())),
        Case("pdf+ris (rendered thesis matched to the library)", ("thesis.pdf", thesis_pdf),
             sources, ("library.ris", (LIBRARY / "library.ris").read_bytes()), numeric),
        Case("docx+zotero fields", ("zotero.docx", build_docx("zotero", work / "z.docx")),
             sources),
        Case("docx+mendeley fields", ("mendeley.docx", build_docx("mendeley", work / "m.docx")),
             sources),
    ]  # fmt: skip


def expected_links() -> dict[tuple[str, str], str | None]:
    """(claim prefix, reference number) -> the source PDF's file name (None: no source)."""
    expected = json.loads((DEMO / "expected.json").read_text())
    pdf = {
        n: Path(p).with_suffix(".pdf").name if p else None for n, p in expected["sources"].items()
    }
    return {
        (s["sentence"][:CLAIM_PREFIX], c["reference"]): pdf[c["reference"]]
        for s in expected["sentences"]
        for c in s["citations"]
    }


async def _upload(client: AsyncTestClient, headers: dict, session: str, kind: str,
                  files: list[tuple[str, bytes]]) -> dict:  # fmt: skip
    response = await client.post(
        f"/v1/sessions/{session}/documents",
        files=[("files", (name, data, "application/octet-stream")) for name, data in files],
        data={"kind": kind},
        headers=headers,
    )
    assert response.status_code == 202, response.text
    return response.json()


HARNESS_MAX_ACTIVE_RUNS = 1000


async def run_case(
    case: Case,
    pool: asyncpg.Pool,
    db_settings: DatabaseSettings,
    parser: ParseService,
    retriever: RetrieverService,
    headers: dict[str, str] | None = None,
) -> Outcome:
    """One case in a session of its own. Pass the same user's `headers` to several cases and
    their identical uploads (the sample PDFs) are parsed once: documents are per user."""
    headers = headers or await new_user_headers(pool)
    # The harness plans each run and never judges it, so every run of a shared user stays
    # in progress: the per-user cap on unfinished runs would refuse the sixth case.
    app = create_app(
        ApiSettings(max_active_runs_per_user=HARNESS_MAX_ACTIVE_RUNS), db_settings=db_settings
    )
    async with AsyncTestClient(app=app, raise_server_exceptions=False) as client:
        response = await client.post("/v1/sessions", json={"name": case.name}, headers=headers)
        session = response.json()["id"]
        await _upload(client, headers, session, "source", case.sources)
        if case.bibliography is not None:
            await _upload(client, headers, session, "bibliography", [case.bibliography])
        thesis = await _upload(client, headers, session, "thesis", [case.thesis])
        while await run_once(pool, parser.parse_stage):
            pass
        thesis_id = thesis["documents"][0]["id"]
        response = await client.post(
            f"/v1/sessions/{session}/runs", json={"thesis_document_id": thesis_id}, headers=headers
        )
        assert response.status_code == 202, response.text
        run_id = uuid.UUID(response.json()["run_id"])
    await run_once(pool, retriever.plan_stage)
    rows = [dict(r) for r in await pool.fetch(CITATION_LINKS, uuid.UUID(thesis_id), run_id)]
    references = await pool.fetchval(
        'SELECT count(*) FROM "references" WHERE document_id = $1', uuid.UUID(thesis_id)
    )
    outcome = score(case, rows, references)
    outcome.run_id = run_id
    return outcome


async def new_user_headers(pool: asyncpg.Pool) -> dict[str, str]:
    user_id = await create_user(pool, f"library-{uuid.uuid4().hex[:8]}")
    _, token = await create_token(pool, user_id, "library inputs")
    return {"Authorization": f"Bearer {token}"}


def score(case: Case, rows: list[dict], references_found: int) -> Outcome:
    expected = expected_links()
    found: dict[tuple[str, str | None], dict] = {}
    for row in rows:
        number = case.number_of(row["label"]) if row["label"] else None
        found[(row["claim_text"][:CLAIM_PREFIX], number)] = row
    hits = [key for key in found if key in expected]
    wrong = [
        {**found[key], "expected": expected[key]}
        for key in hits
        if found[key]["filename"] != expected[key]
    ]
    wrong_links = sum(1 for row in wrong if row["filename"] is not None)
    record = {
        "references_found": references_found,
        "references_expected": len(KEYS),
        "marker_precision": round(len(hits) / len(found), 4) if found else 0.0,
        "marker_recall": round(len(hits) / len(expected), 4),
        "link_accuracy": round((len(hits) - len(wrong)) / len(hits), 4) if hits else 0.0,
        "wrong_links": wrong_links,
        # The judge is not run by this check (links are decided at planning).
        "verdict_agreement": None,
        "citations": len(rows),
        "link_methods": sorted({row["method"] for row in rows if row["method"]}),
    }
    return Outcome(record=record, rows=rows, wrong=wrong)


def services() -> tuple[ParseService, RetrieverService]:
    return ParseService(ParserSettings(item_timeout_s=120)), RetrieverService(RetrieverSettings())
