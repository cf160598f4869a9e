"""The committed accuracy run: its shape, and that none of its quotes is a source's front matter.

`make bench-accuracy` checks every quote of every report against the titles, authors, venue and
header lines the renderer printed into the source PDFs (not against the parser's own marks) and
records the offenders; this test holds the committed run to zero of them.
"""

from __future__ import annotations

import json
from pathlib import Path

RESULTS = Path(__file__).resolve().parents[2] / "bench" / "results" / "accuracy.json"


def test_no_quote_of_the_accuracy_run_is_front_matter() -> None:
    pipeline = json.loads(RESULTS.read_text())["pipeline"]
    assert pipeline["quotes"] > 0  # the check ran over real quotes
    assert pipeline["front_matter_quotes"] == []


def test_the_accuracy_run_reports_abstention_and_its_intervals() -> None:
    pipeline = json.loads(RESULTS.read_text())["pipeline"]
    assert pipeline["confusion_columns"] == [
        "supported",
        "unsupported",
        "contradicted",
        "needs_review",
        "pipeline_failure",
    ]
    assert set(pipeline["definite_share_by_class"]) == {"supported", "unsupported", "contradicted"}
    assert 0.0 <= pipeline["definite_share"] <= 1.0
    assert pipeline["judge_citations_per_cpu_s"] > 0
    low, high = pipeline["ci95"]["macro_f1"]
    assert low <= pipeline["macro_f1"] <= high
