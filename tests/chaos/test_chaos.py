"""Survive everything: kill -9, redeploys, a PostgreSQL restart, lost notifications.

`make test-chaos` runs the full schedule (CHAOS_SEEDS, three seeds by default) and writes
bench/results/chaos.json; `make test` runs a short variant (one seed, fewer kills, one thesis).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from .controller import Thesis, run_chaos

REPO_ROOT = Path(__file__).resolve().parents[2]
RESULTS = REPO_ROOT / "bench" / "results" / "chaos.json"


def _theses(demo_pdfs: dict, count: int) -> list[Thesis]:
    sources = [Path(p) for p in demo_pdfs["sources"]]
    thesis = Path(demo_pdfs["thesis"])
    # Different source subsets make distinct runs (some references become source_missing).
    return [Thesis(thesis, sources[: len(sources) - i % 3]) for i in range(count)]


def _assert_survived(figures: dict) -> None:
    assert figures["problems"] == [], figures
    assert figures["verdicts_identical"], figures["verdict_differences"]
    assert figures["kills"] >= 1 and figures["postgres_restarts"] == 1


@pytest.mark.slow
@pytest.mark.timeout(1500)
def test_chaos_short(demo_pdfs, tmp_path) -> None:
    figures = run_chaos(_theses(demo_pdfs, 3), seed=7, work_dir=tmp_path, kills=2)
    _assert_survived(figures)


@pytest.mark.chaos
@pytest.mark.timeout(0)
def test_chaos_full(demo_pdfs, tmp_path) -> None:
    seeds = [int(s) for s in os.environ.get("CHAOS_SEEDS", "11,23,42").split(",")]
    results = []
    for seed in seeds:
        figures = run_chaos(_theses(demo_pdfs, 8), seed=seed, work_dir=tmp_path / str(seed))
        results.append(figures)
        _assert_survived(figures)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({"runs": results}, indent=2) + "\n")
