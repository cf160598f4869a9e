"""The demo thesis (samples/demo, Markdown): every expected (sentence, reference) pair is found."""

import json
from pathlib import Path

from citeproof.parser.thesis import analyze_thesis

DEMO = Path(__file__).resolve().parents[2] / "samples" / "demo"


def test_demo_thesis_claims_and_links_match_the_expected_pairs():
    expected = json.loads((DEMO / "expected.json").read_text())
    analysis = analyze_thesis((DEMO / expected["thesis"]).read_text(), [0])
    found = {(c.claim_text, c.marker_text, c.reference_label) for c in analysis.citations}
    wanted = {
        (sentence["sentence"], sentence["marker"], citation["reference"])
        for sentence in expected["sentences"]
        for citation in sentence["citations"]
    }
    assert found == wanted
    assert [ref.label for ref in analysis.references] == [str(n) for n in range(1, 8)]
    assert analysis.notes == []
