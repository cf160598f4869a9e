"""The runtime's per-task metrics: counted in plain numbers, exported under the names the
dashboards and alerts use, with Prometheus histogram semantics."""

from __future__ import annotations

import uuid

from prometheus_client import REGISTRY, generate_latest

from citeproof.queue.metrics import TASK_BUCKETS, stage_metrics


def _sample(name: str, **labels: str) -> float | None:
    return REGISTRY.get_sample_value(name, labels)


def test_every_family_is_exported_before_any_task_ran() -> None:
    exposition = generate_latest(REGISTRY).decode()
    for line in (
        "# TYPE citeproof_tasks_claimed_total counter",
        "# TYPE citeproof_tasks_finished_total counter",
        "# TYPE citeproof_task_duration_seconds histogram",
        "# TYPE citeproof_task_queue_wait_seconds histogram",
        "# TYPE citeproof_tasks_in_progress gauge",
    ):
        assert line in exposition


def test_counts_gauges_and_histograms_read_back_from_the_registry() -> None:
    stage = f"s_{uuid.uuid4().hex[:6]}"
    metrics = stage_metrics(stage)
    metrics.claimed += 3
    metrics.in_progress += 3
    metrics.in_progress -= 1
    metrics.count_finished("succeeded")
    metrics.count_finished("succeeded")
    metrics.count_finished("dead")
    # A value equal to a bound belongs to that bucket (`le`), one above the last only to +Inf.
    for value in (TASK_BUCKETS[0], 0.7, TASK_BUCKETS[-1] + 1):
        metrics.duration.observe(value)
    assert _sample("citeproof_tasks_claimed_total", stage=stage) == 3
    assert _sample("citeproof_tasks_in_progress", stage=stage) == 2
    assert _sample("citeproof_tasks_finished_total", stage=stage, outcome="succeeded") == 2
    assert _sample("citeproof_tasks_finished_total", stage=stage, outcome="dead") == 1
    bucket = "citeproof_task_duration_seconds_bucket"
    assert _sample(bucket, stage=stage, le="0.005") == 1
    assert _sample(bucket, stage=stage, le="0.5") == 1
    assert _sample(bucket, stage=stage, le="1.0") == 2
    assert _sample(bucket, stage=stage, le="300.0") == 2
    assert _sample(bucket, stage=stage, le="+Inf") == 3
    assert _sample("citeproof_task_duration_seconds_count", stage=stage) == 3
    total = _sample("citeproof_task_duration_seconds_sum", stage=stage)
    assert total is not None and abs(total - (0.005 + 0.7 + 301)) < 1e-9
    assert _sample("citeproof_task_queue_wait_seconds_count", stage=stage) == 0
