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
