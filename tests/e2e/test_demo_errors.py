"""The second sample (samples/demo-errors: the demo thesis with a misquotation, a changed number
and a PDF attached to the wrong entry of its library) through `citeproof check --bib` as a person
runs it: it exits 1, and its report shows each seeded error as the expected finding with its
evidence (samples/demo-errors/expected.json) — in the JSON, the HTML and the Markdown."""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from citeproof.db.embedded import EmbeddedPostgres
from citeproof.devkit.expected_findings import unmet
from citeproof.devkit.pdfgen.corpus import render_corpus
from tests.e2e.test_check_local import _check

pytestmark = pytest.mark.slow

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "demo-errors"


@pytest.fixture(scope="module")
def work() -> Iterator[Path]:
    # Not pytest's tmp_path: as root the server runs as another user that must traverse it.
    root = Path(tempfile.mkdtemp(prefix="citeproof-demo-errors-"))
    try:
        yield root
    finally:
        EmbeddedPostgres(root / "data" / "pg").destroy()
        shutil.rmtree(root, ignore_errors=True)


def test_the_seeded_errors_are_shown_with_their_evidence_and_exit_1(work: Path) -> None:
    expected = json.loads((SAMPLE / "expected.json").read_text())
    rendered = render_corpus(SAMPLE, work / "pdf")
    attachments = Path(rendered.sources[0]).parent
    result = _check(
        str(rendered.thesis), "--bib", str(SAMPLE / expected["library"]),
        "--attachments", str(attachments), "--data-dir", str(work / "data"),
        "-f", "json", "-f", "html", "-f", "md", "-o", "out/report", cwd=work,
    )  # fmt: skip
    assert result.returncode == 1, result.stderr[-3000:]
    report = json.loads((work / "out" / "report.json").read_text())
    assert unmet(report, expected["findings"]) == []
    html = (work / "out" / "report.html").read_text()
    markdown = (work / "out" / "report.md").read_text()
    for finding in expected["findings"]:
        assert f'data-rule="{finding["rule"]}"' in html
        assert f"{finding['rule']}** ({finding['slug']})" in markdown
    # The first screen: the problems list leads the page, errors first.
    problems = html.index('id="problems"')
    assert problems < html.index("<article")
    summary = report["summary"]
    assert summary["findings"]["error"] >= len(expected["findings"])
    # The citations of the wrongly attached entry are not judged against the wrong file: no
    # verdict, the source-missing finding instead, naming the file that is linked.
    attached = next(f["attached"] for f in expected["findings"] if f["slug"] == "wrong-attachment")
    for citation in report["citations"]:
        if citation["reference"]["label"] == "3":
            assert citation["verdict"] is None, citation
            assert [f["slug"] for f in citation["findings"]] == ["source-missing"], citation
            assert citation["source"]["filename"] == attached
