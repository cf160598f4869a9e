"""The second sample (samples/demo-errors) is the demo thesis with exactly three seeded errors,
and its expected.json says which findings they must produce: a misquotation, a changed number
and a PDF attached to the wrong entry. The original sample stays as it was."""

import json
import re
from pathlib import Path

from citeproof.parser.thesis import analyze_thesis
from citeproof.pipeline import RULES_BY_CODE, SOURCE_MISSING

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
DEMO, ERRORS = SAMPLES / "demo", SAMPLES / "demo-errors"


def _expected(corpus: Path) -> dict:
    return json.loads((corpus / "expected.json").read_text())


def test_the_sample_parses_into_the_expected_pairs():
    expected = _expected(ERRORS)
    analysis = analyze_thesis((ERRORS / expected["thesis"]).read_text(), [0])
    found = {(c.claim_text, c.marker_text, c.reference_label) for c in analysis.citations}
    wanted = {
        (sentence["sentence"], sentence["marker"], citation["reference"])
        for sentence in expected["sentences"]
        for citation in sentence["citations"]
    }
    assert found == wanted
    sentences = {s["sentence"] for s in expected["sentences"]}
    for finding in expected["findings"]:
        if finding["on"] == "citation":
            assert finding["sentence"] in sentences, finding


def test_it_differs_from_the_demo_in_the_seeded_sentences_only():
    demo, errors = _expected(DEMO), _expected(ERRORS)
    changed = [
        (a["sentence"], b["sentence"])
        for a, b in zip(demo["sentences"], errors["sentences"], strict=True)
        if a["sentence"] != b["sentence"]
    ]
    assert len(changed) == 2
    (quoted_before, quoted), (number_before, number) = changed
    # One word of a quotation of the source changed; one number changed.
    assert re.search(r'"[^"]*\bdaytime\b[^"]*"', quoted) and "daytime" not in quoted_before
    assert "2.5%" in number_before and "4.5%" in number and "2.5%" not in number
    demo_text = (DEMO / "thesis.md").read_text().split("\n# ", 1)[1]
    errors_text = (ERRORS / "thesis.md").read_text().split("\n# ", 1)[1]
    assert errors_text == demo_text.replace(quoted_before, quoted).replace(number_before, number)
    source = (DEMO / "sources" / "5-rotterdam-network.md").read_text()
    assert "The urban heat island was predominantly a night-time phenomenon" in source


def test_the_library_attaches_another_works_pdf_to_one_entry():
    errors = _expected(ERRORS)
    library = (ERRORS / errors["library"]).read_text()
    attachments = dict(re.findall(r"@article\{(\w+),.*?file = \{files/\d/([^}]+)\}", library, re.S))
    reference = (SAMPLES / "library" / "latex" / "library.bib").read_text()
    original = dict(re.findall(r"@article\{(\w+),.*?file = \{files/\d/([^}]+)\}", reference, re.S))
    differing = {key for key in original if attachments.get(key) != original[key]}
    assert differing == {"marchetti2022"}
    assert attachments["marchetti2022"] == "4-heat-mortality.pdf"
    # [3]'s citations are not checked against the wrong file.
    for sentence in errors["sentences"]:
        for citation in sentence["citations"]:
            if citation["reference"] == "3":
                assert citation["label"] == SOURCE_MISSING


def test_the_expected_findings_name_real_rules_at_their_default_severity():
    findings = _expected(ERRORS)["findings"]
    assert [f["slug"] for f in findings] == [
        "quote-not-found",
        "number-conflict",
        "wrong-attachment",
    ]
    for finding in findings:
        rule = RULES_BY_CODE[finding["rule"]]
        assert (rule.slug, rule.severity, rule.subject) == (
            finding["slug"],
            finding["severity"],
            finding["on"],
        )
        assert finding["evidence"]
