"""The end-to-end benchmark's work is distinct (no claim-abstract pair twice, no abstract in two
theses) and its histogram quantiles read the services' buckets the way PromQL does."""

from __future__ import annotations

import math

import pytest

from bench.e2e.observe import Histogram, parse
from bench.e2e.work import CHECKCOVID, compose

pytestmark = pytest.mark.skipif(
    not (CHECKCOVID / "corpus.json").exists(), reason="Check-COVID data not present"
)


def test_theses_share_no_abstract_and_use_each_pair_once() -> None:
    cases = compose(6, 80)
    assert len(cases) == 6
    assert all(len(case.claims) >= 80 for case in cases)
    pairs = [(c.claim, c.own_cord_id) for case in cases for c in case.claims]
    assert len(pairs) == len(set(pairs))
    abstracts = [set(case.references) for case in cases]
    for i, mine in enumerate(abstracts):
        for other in abstracts[i + 1 :]:
            assert not mine & other
    # Every claim cites its own abstract, listed in its thesis's references.
    assert all(c.cited_cord_id in case.references for case in cases for c in case.claims)


def test_asking_for_more_work_than_the_data_holds_is_refused() -> None:
    with pytest.raises(ValueError, match="claim-abstract pairs"):
        compose(100, 85)


def test_quantile_interpolates_inside_the_bucket() -> None:
    histogram = Histogram({0.1: 50.0, 1.0: 90.0, 10.0: 100.0, math.inf: 100.0}, 120.0, 100.0)
    assert histogram.quantile(0.5) == pytest.approx(0.1)
    assert histogram.quantile(0.7) == pytest.approx(0.1 + 0.9 * 20 / 40)
    assert histogram.quantile(0.95) == pytest.approx(1.0 + 9.0 * 5 / 10)
    assert Histogram().quantile(0.99) is None


def test_parse_reads_stage_histograms_and_the_loop_lag() -> None:
    text = (
        "# TYPE citeproof_task_queue_wait_seconds histogram\n"
        'citeproof_task_queue_wait_seconds_bucket{stage="judge",le="1.0"} 3.0\n'
        'citeproof_task_queue_wait_seconds_bucket{stage="judge",le="+Inf"} 4.0\n'
        'citeproof_task_queue_wait_seconds_sum{stage="judge"} 5.5\n'
        'citeproof_task_queue_wait_seconds_count{stage="judge"} 4.0\n'
        "# TYPE citeproof_event_loop_lag_max_seconds gauge\n"
        "citeproof_event_loop_lag_max_seconds 0.25\n"
    )
    scrape = parse(text)
    wait = scrape.stages["judge"]["citeproof_task_queue_wait_seconds"]
    assert wait.count == 4.0 and wait.total == 5.5 and wait.buckets[1.0] == 3.0
    assert scrape.loop_lag_max_s == 0.25


def _run(wall_s: float) -> dict:
    """A measured run: parse 2 slots, the other stages 4 (task seconds), CPU per process."""
    return {
        "theses": 6,
        "wall_s": wall_s,
        "stages": {
            "parse": {"task_seconds": 60.0},
            "plan": {"task_seconds": 4.0},
            "retrieve": {"task_seconds": 160.0},
            "judge": {"task_seconds": 80.0},
        },
        "processes": {
            "parser-1": {"cpu_s": 10.0},
            "retriever-1": {"cpu_s": 30.0},
            "judge-1": {"cpu_s": 24.0},
            "postgres": {"cpu_s": 4.0},
        },
    }


def test_the_sizing_model_runs_the_phases_in_turn_and_caps_a_replica_by_the_cores(
    monkeypatch,
) -> None:
    from bench.e2e import __main__ as e2e

    monkeypatch.setattr(e2e, "CORES", 2)
    one = _run(wall_s=80.0)
    bounds = e2e.phase_bounds_s(one, {})
    # Parse (60 s over 2 slots) then plan (4 over 4); then retrieve (160 over 4) beside judge.
    assert bounds["documents"] == pytest.approx(31.0)
    assert bounds["citations"] == pytest.approx(40.0)
    predicted, efficiency = e2e.predict(one, {"retriever": 2})
    assert efficiency == pytest.approx(71.0 / 80.0)
    # Two retrievers halve retrieval's slot bound (20 s) and planning's; judging (20 s) and the
    # second phase's CPU on 2 cores ((30 + 24) / 2 = 27 s) now bound the phase.
    two = e2e.phase_bounds_s(one, {"retriever": 2})
    assert two["citations"] == pytest.approx(27.0)
    assert predicted == pytest.approx(6 / ((30.5 + 27.0) / efficiency) * 3600)
