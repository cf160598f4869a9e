"""Alert rules, dashboard and the metric-name contract with the services."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "deploy" / "tools"))

from deploycheck import observability
from deploycheck.paths import ALERT_RULES

# The metric names the services promise (docs/operations.md): the dashboard and the
# alerts together must use every one of them, so nothing exported goes unwatched.
PROMISED_METRICS = {
    "citeproof_tasks_claimed_total",
    "citeproof_tasks_finished_total",
    "citeproof_task_duration_seconds",
    "citeproof_task_queue_wait_seconds",
    "citeproof_tasks_in_progress",
    "citeproof_leases_lost_total",
    "citeproof_leases_reclaimed_total",
    "citeproof_listener_reconnects_total",
    "citeproof_judge_requests_total",
    "citeproof_judge_request_seconds",
    "citeproof_judge_tokens_total",
    "citeproof_queue_depth",
    "citeproof_queue_oldest_age_seconds",
    "citeproof_queue_dead_total",
    "citeproof_live_workers",
    "citeproof_http_requests_total",
    "citeproof_http_request_seconds",
}


def test_selected_metrics_walks_the_whole_expression() -> None:
    expr = (
        "histogram_quantile(0.95, sum by (le) (rate(a_bucket[$__rate_interval])))"
        ' / on () max_over_time(b[10m:1m]) or {__name__="c"} unless absent(d offset 5m)'
    )
    assert observability.selected_metrics(expr) == {"a_bucket", "b", "c", "d"}
    assert observability.metric_family("a_bucket") == "a"
    assert observability.metric_family("x_total") == "x_total"


def test_invalid_promql_is_an_error() -> None:
    with pytest.raises(ValueError):
        observability.parse_promql("sum(rate(x[5m])")


def test_dashboard_and_alerts_reference_exactly_the_promised_metrics() -> None:
    assert set(observability.referenced_metrics()) == PROMISED_METRICS


def test_unexported_metrics_reads_type_lines_even_without_samples() -> None:
    registry = CollectorRegistry()
    # Labelled metrics with no children yet export only their # TYPE line.
    Counter("citeproof_tasks_claimed", "claims", ["stage"], registry=registry)
    Histogram("citeproof_task_duration_seconds", "duration", ["stage"], registry=registry)
    Gauge("citeproof_queue_dead_total", "dead rows", ["stage"], registry=registry)
    exposition = generate_latest(registry).decode()
    assert observability.exported_metric_families(exposition) == {
        "citeproof_tasks_claimed_total",
        "citeproof_task_duration_seconds",
        "citeproof_queue_dead_total",
    }
    missing = observability.unexported_metrics([exposition])
    assert set(missing) == PROMISED_METRICS - observability.exported_metric_families(exposition)
    assert all(missing[name] for name in missing)  # each says where it is used


def test_repository_alerts_dashboard_and_scrape_config_pass() -> None:
    assert observability.check_all() == []


def test_generated_prometheus_rule_carries_the_rule_file_groups() -> None:
    rule = yaml.safe_load(observability.render_prometheus_rule())
    assert rule["kind"] == "PrometheusRule"
    assert rule["spec"]["groups"] == yaml.safe_load(ALERT_RULES.read_text())["groups"]


def test_alert_rule_problems_are_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rules = {
        "groups": [
            {
                "name": "g",
                "rules": [
                    {"alert": "Broken", "expr": "sum(rate(x[5m])", "labels": {"severity": "page"}},
                    {"alert": "Broken", "expr": "up == 0", "for": "5 minutes"},
                ],
            }
        ]
    }
    path = tmp_path / "alerts.yaml"
    path.write_text(yaml.safe_dump(rules))
    monkeypatch.setattr(observability, "ALERT_RULES", path)
    messages = [f.message for f in observability.check_alert_rules()]
    assert "unclosed left parenthesis" in messages
    assert any(m.startswith("labels.severity must be one of") for m in messages)
    assert "duplicate alert name" in messages
    assert "not a duration: '5 minutes'" in messages
    assert "annotations.runbook is missing" in messages


def test_dashboard_covers_the_panels_operators_need() -> None:
    dashboard = observability.load_dashboard()
    titles = [p["title"] for p in dashboard["panels"] if p["type"] != "row"]
    for needed in ("Queue depth", "Oldest queued", "Task duration", "Non-success outcomes"):
        assert any(t.startswith(needed) for t in titles), titles
    for needed in ("LLM tokens", "Judge request latency", "API latency"):
        assert any(t.startswith(needed) for t in titles), titles
