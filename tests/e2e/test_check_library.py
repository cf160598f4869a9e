"""`citeproof check --bib` as a person runs it: a Zotero export folder (library + files/) as one
argument, and a LaTeX project folder with an RIS library whose PDFs sit elsewhere. Every citation
links to the intended entry and PDF; an attachment missing from the export is reported for its
entry and the rest is checked. Real embedded PostgreSQL, the four services as processes."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from citeproof.db.embedded import EmbeddedPostgres
from citeproof.devkit.journey import outcome
from citeproof.devkit.library_run import CLAIM_PREFIX, DEMO, LIBRARY, NUMBERS, expected_links
from citeproof.devkit.pdfgen.corpus import render_corpus
from citeproof.pipeline import SOURCE_MISSING
from tests.e2e.test_check_local import CHECK_TIMEOUT_S, _env

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def work() -> Iterator[Path]:
    # Not pytest's tmp_path: as root the server runs as another user that must traverse it.
    root = Path(tempfile.mkdtemp(prefix="citeproof-check-bib-"))
    try:
        yield root
    finally:
        EmbeddedPostgres(root / "data" / "pg").destroy()
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="module")
def rendered(work: Path):
    return render_corpus(DEMO, work / "rendered")


def _check(
    *args: str, cwd: Path, extra_env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "citeproof.cli", "check", *args],
        cwd=cwd, env={**_env(), **(extra_env or {})}, capture_output=True, text=True,
        timeout=CHECK_TIMEOUT_S, check=False,
    )  # fmt: skip


def _links(report: dict, number_of) -> dict[tuple[str, str | None], dict]:
    return {
        (c["claim"][:CLAIM_PREFIX], number_of(c["reference"]["label"])): c
        for c in report["citations"]
    }


def _assert_links(report: dict, number_of, missing: str | None = None) -> None:
    expected = expected_links()
    found = _links(report, number_of)
    assert set(found) == set(expected), set(found) ^ set(expected)
    for key, pdf in expected.items():
        citation = found[key]
        source = citation["source"]
        if pdf is None or pdf == missing:
            assert source is None, citation
            label, rationale = outcome(citation)
            assert label == SOURCE_MISSING
            if missing is not None and pdf == missing:
                assert missing in rationale
        else:
            assert source is not None and source["filename"] == pdf, citation
            assert source["link_method"].endswith("+attachment"), source


def test_zotero_export_folder_as_one_argument(work: Path, rendered) -> None:
    export = work / "MyExport"
    (export / "files").mkdir(parents=True)
    shutil.copy(LIBRARY / "latex" / "library.bib", export / "MyExport.bib")
    for n, source in enumerate(sorted(rendered.sources), start=1):
        if n != 2:  # one attachment did not make it into the export
            (export / "files" / str(n)).mkdir()
            shutil.copy(source, export / "files" / str(n) / Path(source).name)
    result = _check(str(rendered.thesis), str(export), "--data-dir", str(work / "data"),
                    "-f", "json", "-o", "out/export.json", "--min-coverage", "0",
                    "--fail-on", "contradicted", cwd=work)  # fmt: skip
    assert result.returncode in (0, 1), result.stderr
    assert "library MyExport.bib (BibTeX): 7 entries, 4 of 5 attached PDFs found" in result.stderr
    assert "hofer2020: attachment not found (files/2/2-green-roofs.pdf)" in result.stderr
    report = json.loads((work / "out" / "export.json").read_text())
    numeric = lambda label: label if label in set(NUMBERS.values()) else None  # noqa: E731
    _assert_links(report, numeric, missing="2-green-roofs.pdf")


def test_latex_project_folder_with_ris_library_and_attachments_dir(work: Path, rendered) -> None:
    project = work / "thesis-project"
    shutil.copytree(LIBRARY / "latex", project)
    (project / "library.bib").unlink()  # the library comes as RIS instead
    library = work / "zotero-ris"
    library.mkdir()
    shutil.copy(LIBRARY / "library.ris", library / "library.ris")
    pdfs = work / "pdfs"
    pdfs.mkdir()
    for source in rendered.sources:
        shutil.copy(source, pdfs / Path(source).name)
    result = _check(str(project), "--bib", str(library / "library.ris"), "--attachments",
                    str(pdfs), "--data-dir", str(work / "data"), "-f", "json", "-o",
                    "out/latex.json", "--min-coverage", "0", "--fail-on", "contradicted",
                    cwd=work)  # fmt: skip
    assert result.returncode in (0, 1), result.stderr
    assert "5 of 5 attached PDFs found" in result.stderr
    report = json.loads((work / "out" / "latex.json").read_text())
    assert report["thesis"]["filename"] == "thesis-project.zip"
    assert all(c["source_file"] for c in report["citations"])
    _assert_links(report, NUMBERS.get)


def test_open_access_switch_fetches_missing_pdfs_from_a_stub_api(work: Path, rendered) -> None:
    """`--open-access` with the server setting on: the library's DOIs are looked up in a stub
    OpenAlex on 127.0.0.1, and the PDFs it serves are parsed and linked."""
    from tests.integration.test_open_access_lookup import DOIS, StubApi

    pdfs = {DOIS[Path(p).name.split("-")[0]]: Path(p).read_bytes() for p in rendered.sources}
    stub = StubApi(pdfs)
    ris = work / "no-files.ris"
    ris.write_text(
        "".join(
            line + "\n"
            for line in (LIBRARY / "library.ris").read_text().splitlines()
            if not line.startswith("L1  -")
        )
    )
    env = {
        "CITEPROOF_RETRIEVER_OPEN_ACCESS_ENABLED": "true",
        "CITEPROOF_RETRIEVER_OPEN_ACCESS_BASE_URL": stub.url,
        "CITEPROOF_RETRIEVER_OPEN_ACCESS_EMAIL": "checker@example.org",
        "CITEPROOF_RETRIEVER_OPEN_ACCESS_ALLOW_PRIVATE_HOSTS": "true",
    }
    try:
        result = _check(str(rendered.thesis), "--bib", str(ris), "--open-access",
                        "--data-dir", str(work / "data-oa"), "-f", "json", "-o", "out/oa.json",
                        "--min-coverage", "0", "--fail-on", "contradicted", cwd=work,
                        extra_env=env)  # fmt: skip
    finally:
        stub.server.shutdown()
        EmbeddedPostgres(work / "data-oa" / "pg").destroy()
    assert result.returncode in (0, 1), result.stderr
    assert "open-access lookup: on for this account" in result.stderr
    assert all(query.get("mailto") == ["checker@example.org"] for _, query in stub.lookups())
    report = json.loads((work / "out" / "oa.json").read_text())
    expected = expected_links()
    numeric = lambda label: label if label in set(NUMBERS.values()) else None  # noqa: E731
    found = _links(report, numeric)
    for key, pdf in expected.items():
        source = found[key]["source"]
        if pdf is None:
            assert source is None
        else:
            assert source["link_method"] == "open_access", found[key]
            assert source["filename"] == DOIS[key[1]].replace("/", "_") + ".pdf"
