"""The citeproof Grafana dashboard, written as data; deploy/grafana/citeproof-dashboard.json is
generated from it (`python deploy/check.py --write`) and checked to be up to date.

Panels read: per-stage throughput, queue depth and age, task duration percentiles, failures by
outcome, leases, LLM requests, tokens and latency, API traffic and latency.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

DASHBOARD_UID = "citeproof-overview"
DATASOURCE = {"type": "prometheus", "uid": "${datasource}"}
PANEL_WIDTH = 12
PANEL_HEIGHT = 8
GRID_COLUMNS = 24
# Every API replica exports the same queue gauges; max by (stage) counts each stage once.
QUEUE = "max by (stage) ({metric})"


@dataclass(frozen=True, slots=True)
class Query:
    expr: str
    legend: str


@dataclass(frozen=True, slots=True)
class Panel:
    title: str
    description: str
    queries: tuple[Query, ...]
    unit: str = "short"
    kind: str = "timeseries"
    stacked: bool = False


@dataclass(frozen=True, slots=True)
class Row:
    title: str
    panels: tuple[Panel, ...] = field(default_factory=tuple)


def _quantiles(metric: str, by: str, legend: str) -> tuple[Query, ...]:
    return tuple(
        Query(
            f"histogram_quantile({q}, sum by (le, {by}) (rate({metric}_bucket[$__rate_interval])))",
            f"p{int(q * 100)} {legend}",
        )
        for q in (0.5, 0.95, 0.99)
    )


ROWS: tuple[Row, ...] = (
    Row(
        "Queues",
        (
            Panel(
                "Queue depth by stage",
                "Ready rows (state = 'queued', run_after <= now()) per stage, read by the API "
                "from Postgres at scrape time. KEDA scales each stage on the same numbers.",
                (Query(QUEUE.format(metric="citeproof_queue_depth"), "{{stage}}"),),
            ),
            Panel(
                "Oldest queued task age by stage",
                "How long the oldest ready row has waited. Growing steadily means the stage is "
                "saturated or not claiming.",
                (Query(QUEUE.format(metric="citeproof_queue_oldest_age_seconds"), "{{stage}}"),),
                unit="s",
            ),
            Panel(
                "Live workers by service",
                "Workers with a recent heartbeat in worker_heartbeats.",
                (Query("max by (service) (citeproof_live_workers)", "{{service}}"),),
            ),
            Panel(
                "Dead tasks by stage",
                "Rows that exhausted max_attempts. Any increase deserves a look at last_error.",
                (Query(QUEUE.format(metric="citeproof_queue_dead_total"), "{{stage}}"),),
            ),
        ),
    ),
    Row(
        "Throughput",
        (
            Panel(
                "Tasks succeeded per second by stage",
                "Completed work per stage, across all replicas.",
                (
                    Query(
                        "sum by (stage) (rate(citeproof_tasks_finished_total"
                        '{outcome="succeeded"}[$__rate_interval]))',
                        "{{stage}}",
                    ),
                ),
                unit="ops",
            ),
            Panel(
                "Tasks claimed per second and in progress",
                "Claims per second and tasks held right now, per stage.",
                (
                    Query(
                        "sum by (stage) (rate(citeproof_tasks_claimed_total[$__rate_interval]))",
                        "claimed {{stage}}",
                    ),
                    Query("sum by (stage) (citeproof_tasks_in_progress)", "in progress {{stage}}"),
                ),
            ),
            Panel(
                "Non-success outcomes by stage",
                "failed and dead end a task; retried goes back with backoff; lease_lost means a "
                "slower worker was fenced out; handed_back is a graceful drain; cancelled is a "
                "user's cancel.",
                (
                    Query(
                        "sum by (stage, outcome) (rate(citeproof_tasks_finished_total"
                        '{outcome!="succeeded"}[$__rate_interval]))',
                        "{{stage}} {{outcome}}",
                    ),
                ),
                unit="ops",
                stacked=True,
            ),
            Panel(
                "Leases lost and reclaimed",
                "Lost: a worker found its lease taken over. Reclaimed: the stall sweeper returned "
                "an expired lease (a worker died mid-task). Listener reconnects: LISTEN dropped.",
                (
                    Query(
                        "sum by (stage) (increase(citeproof_leases_lost_total[$__rate_interval]))",
                        "lost {{stage}}",
                    ),
                    Query(
                        "sum by (stage) "
                        "(increase(citeproof_leases_reclaimed_total[$__rate_interval]))",
                        "reclaimed {{stage}}",
                    ),
                    Query(
                        "sum(increase(citeproof_listener_reconnects_total[$__rate_interval]))",
                        "listener reconnects",
                    ),
                ),
            ),
        ),
    ),
    Row(
        "Latency",
        (
            Panel(
                "Task duration percentiles by stage",
                "Time from claim to finish.",
                _quantiles("citeproof_task_duration_seconds", "stage", "{{stage}}"),
                unit="s",
            ),
            Panel(
                "Queue wait percentiles by stage",
                "Time from ready (run_after) to claim: what users feel as waiting.",
                _quantiles("citeproof_task_queue_wait_seconds", "stage", "{{stage}}"),
                unit="s",
            ),
        ),
    ),
    Row(
        "Judge and LLM",
        (
            Panel(
                "Judge requests by backend and outcome",
                "Calls to the judge backend (local or llm).",
                (
                    Query(
                        "sum by (backend, outcome) "
                        "(rate(citeproof_judge_requests_total[$__rate_interval]))",
                        "{{backend}} {{outcome}}",
                    ),
                ),
                unit="reqps",
                stacked=True,
            ),
            Panel(
                "Judge request latency by backend",
                "Backend call latency; for the llm backend this is the LLM endpoint's latency.",
                _quantiles("citeproof_judge_request_seconds", "backend", "{{backend}}"),
                unit="s",
            ),
            Panel(
                "LLM tokens per second",
                "Tokens reported by the backend, by kind (prompt / completion).",
                (
                    Query(
                        "sum by (backend, kind) "
                        "(rate(citeproof_judge_tokens_total[$__rate_interval]))",
                        "{{backend}} {{kind}}",
                    ),
                ),
                stacked=True,
            ),
            Panel(
                "LLM tokens in the selected range",
                "Total tokens over the dashboard's time range, for cost estimates.",
                (
                    Query(
                        "sum by (kind) (increase(citeproof_judge_tokens_total[$__range]))",
                        "{{kind}}",
                    ),
                ),
                kind="stat",
            ),
        ),
    ),
    Row(
        "API",
        (
            Panel(
                "API requests per second by route and status",
                "Request rate per route template and status code.",
                (
                    Query(
                        "sum by (route, status) "
                        "(rate(citeproof_http_requests_total[$__rate_interval]))",
                        "{{route}} {{status}}",
                    ),
                ),
                unit="reqps",
            ),
            Panel(
                "API latency p95 by route",
                "95th percentile request latency per route template.",
                (
                    Query(
                        "histogram_quantile(0.95, sum by (le, route) "
                        "(rate(citeproof_http_request_seconds_bucket[$__rate_interval])))",
                        "{{route}}",
                    ),
                ),
                unit="s",
            ),
        ),
    ),
)


def _panel_json(panel: Panel, panel_id: int, x: int, y: int) -> dict[str, Any]:
    custom: dict[str, Any] = {"drawStyle": "line", "lineWidth": 1, "fillOpacity": 10}
    if panel.stacked:
        custom["stacking"] = {"mode": "normal", "group": "A"}
    body: dict[str, Any] = {
        "id": panel_id,
        "type": panel.kind,
        "title": panel.title,
        "description": panel.description,
        "datasource": DATASOURCE,
        "gridPos": {"x": x, "y": y, "w": PANEL_WIDTH, "h": PANEL_HEIGHT},
        "fieldConfig": {
            "defaults": {
                "unit": panel.unit,
                **({"custom": custom} if panel.kind == "timeseries" else {}),
            },
            "overrides": [],
        },
        "options": {"legend": {"displayMode": "list", "placement": "bottom"}}
        if panel.kind == "timeseries"
        else {"reduceOptions": {"calcs": ["lastNotNull"]}},
        "targets": [
            {
                "refId": chr(ord("A") + index),
                "datasource": DATASOURCE,
                "expr": query.expr,
                "legendFormat": query.legend,
            }
            for index, query in enumerate(panel.queries)
        ],
    }
    return body


def build_dashboard() -> dict[str, Any]:
    panels: list[dict[str, Any]] = []
    next_id = 1
    y = 0
    for row in ROWS:
        panels.append(
            {
                "id": next_id,
                "type": "row",
                "title": row.title,
                "collapsed": False,
                "gridPos": {"x": 0, "y": y, "w": GRID_COLUMNS, "h": 1},
                "panels": [],
            }
        )
        next_id += 1
        y += 1
        for index, panel in enumerate(row.panels):
            x = (index % 2) * PANEL_WIDTH
            if index and index % 2 == 0:
                y += PANEL_HEIGHT
            panels.append(_panel_json(panel, next_id, x, y))
            next_id += 1
        y += PANEL_HEIGHT
    return {
        "uid": DASHBOARD_UID,
        "title": "citeproof",
        "description": "citeproof stages, queues, judge backend and API (docs/operations.md).",
        "tags": ["citeproof"],
        "timezone": "browser",
        "editable": True,
        "graphTooltip": 1,
        "schemaVersion": 39,
        "version": 1,
        "refresh": "30s",
        "time": {"from": "now-6h", "to": "now"},
        "templating": {
            "list": [
                {
                    "name": "datasource",
                    "label": "Prometheus",
                    "type": "datasource",
                    "query": "prometheus",
                    "current": {},
                    "hide": 0,
                }
            ]
        },
        "annotations": {"list": []},
        "links": [],
        "panels": panels,
    }
