"""A user verifies the sample thesis through the real stack: four OS processes, HTTP, Postgres."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citeproof.devkit.journey import client, outcome, report, submit_thesis, wait_for_run
from citeproof.devkit.pdfgen.front_matter import assert_no_front_matter_quotes
from citeproof.devkit.pdfgen.source import parse_source
from citeproof.pipeline import LABELS_NEEDING_QUOTE, SOURCE_MISSING

pytestmark = pytest.mark.slow


def _expected_by_sentence(expected_path: str) -> dict[tuple[str, str], dict]:
    expected = json.loads(Path(expected_path).read_text())
    table = {}
    for sentence in expected["sentences"]:
        for citation in sentence["citations"]:
            table[(sentence["sentence"][:40], citation["reference"])] = citation
    return table


def test_sample_thesis_is_verified_end_to_end(stack_url, api_token, demo_pdfs) -> None:
    with client(stack_url, api_token) as http:
        run_id = submit_thesis(
            http,
            Path(demo_pdfs["thesis"]),
            [Path(p) for p in demo_pdfs["sources"]],
            name="e2e demo",
        )
        status = wait_for_run(http, run_id)
        assert status["status"] == "completed", status
        body = report(http, run_id).json()
        markdown = report(http, run_id, "markdown")
        html = report(http, run_id, "html")

    citations = body["citations"]
    expected = _expected_by_sentence(demo_pdfs["expected"])
    # Every (sentence, reference) pair the author wrote is found and judged separately.
    assert len(citations) == len(expected), [c["claim"][:60] for c in citations]
    labels = {c["reference"]["label"]: [] for c in citations}
    for c in citations:
        label, _ = outcome(c)
        labels[c["reference"]["label"]].append(label)
        assert label, c
        if label in LABELS_NEEDING_QUOTE:
            assert c["verdict"]["quote"], c  # asserted verdicts carry a verbatim quote
            assert c["verdict"]["quote_page"] is not None, c
    # References [6] and [7] have no uploaded source.
    assert set(labels["6"]) == {SOURCE_MISSING}
    assert set(labels["7"]) == {SOURCE_MISSING}
    # Everything with an uploaded source was judged, not reported missing.
    for label, verdicts in labels.items():
        if label not in ("6", "7"):
            assert SOURCE_MISSING not in verdicts, (label, verdicts)
    # No quote is a title, author, venue or running-header line of a source, checked against what
    # the renderer printed (the sources' own specs), not against the parser's marks.
    sources_dir = Path(demo_pdfs["expected"]).parent / "sources"
    specs = [parse_source(p.read_text(encoding="utf-8")) for p in sorted(sources_dir.glob("*.md"))]
    assert_no_front_matter_quotes([(c["verdict"] or {}).get("quote") for c in citations], specs)
    assert body["summary"]["total"] == len(citations)
    assert markdown.status_code == 200 and "|" in markdown.text
    assert html.status_code == 200 and "<html" in html.text.lower()
