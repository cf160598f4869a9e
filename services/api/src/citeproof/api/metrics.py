"""Prometheus metrics of the API: request counters/latency and the queue gauges.

The queue gauges (depth, oldest age, dead rows per stage, live workers per service) are read
from PostgreSQL at scrape time — this is the ONE place in the system that exports them, so
they do not multiply with worker replicas. Each app gets its own registry so several apps in
one process (tests) never collide.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

import asyncpg
from litestar.types import ASGIApp, Message, Receive, Scope, Send
from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from citeproof.api.workers import live_workers_by_service
from citeproof.obs.build_info import register_build_info
from citeproof.obs.loop_lag import LoopLagWatch
from citeproof.pipeline import STAGE_TABLES

# Per stage: ready rows, age of the oldest ready row, dead rows. Counts use the partial
# `*_queued_idx` indexes (state = 'queued').
_QUEUE_STATS_SQL = " UNION ALL ".join(
    f"""SELECT '{stage}' AS stage,
       (SELECT count(*) FROM {table} WHERE state = 'queued' AND run_after <= now()) AS depth,
       (SELECT COALESCE(EXTRACT(EPOCH FROM now() - min(run_after)), 0)::float8 FROM {table}
         WHERE state = 'queued' AND run_after <= now()) AS oldest_age,
       (SELECT count(*) FROM {table} WHERE state = 'dead') AS dead"""
    for stage, table in STAGE_TABLES.items()
)


class QueueCollector(Collector):
    """Serves the figures of the last `refresh`; /metrics refreshes right before rendering."""

    def __init__(self) -> None:
        self._rows: list[tuple[str, int, float, int]] = []
        self._workers: dict[str, int] = {}

    async def refresh(self, pool: asyncpg.Pool, stale_after_s: float) -> None:
        async with pool.acquire() as conn:
            rows = await conn.fetch(_QUEUE_STATS_SQL)
            self._workers = await live_workers_by_service(conn, stale_after_s)
        self._rows = [(r["stage"], r["depth"], r["oldest_age"], r["dead"]) for r in rows]

    def collect(self) -> Iterable[Metric]:
        depth = GaugeMetricFamily(
            "citeproof_queue_depth", "Rows ready to be claimed, per stage.", labels=["stage"]
        )
        age = GaugeMetricFamily(
            "citeproof_queue_oldest_age_seconds",
            "Age of the oldest claimable row, per stage (0 when empty).",
            labels=["stage"],
        )
        dead = GaugeMetricFamily(
            "citeproof_queue_dead_total",
            "Rows that exhausted their attempts (state dead), per stage.",
            labels=["stage"],
        )
        for stage, n, oldest, n_dead in self._rows:
            depth.add_metric([stage], n)
            age.add_metric([stage], oldest)
            dead.add_metric([stage], n_dead)
        workers = GaugeMetricFamily(
            "citeproof_live_workers",
            "Workers with a recent heartbeat that are not draining, per service.",
            labels=["service"],
        )
        for service, n in sorted(self._workers.items()):
            workers.add_metric([service], n)
        yield from (depth, age, dead, workers)


class ApiMetrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter(
            "citeproof_http_requests_total",
            "HTTP requests by method, route template and status.",
            ["method", "route", "status"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "citeproof_http_request_seconds",
            "HTTP request latency by method and route template.",
            ["method", "route"],
            registry=self.registry,
        )
        self.queues = QueueCollector()
        self.registry.register(self.queues)
        register_build_info(self.registry)
        # Started by the first request (it needs the app's running loop); it ends with it.
        self.loop_lag = LoopLagWatch(registry=self.registry)

    def render(self) -> bytes:
        return generate_latest(self.registry)

    def middleware(self, app: ASGIApp) -> ASGIApp:
        async def measure(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] != "http":
                await app(scope, receive, send)
                return
            self.loop_lag.start()
            status = 500
            started = time.perf_counter()

            async def send_and_record(message: Message) -> None:
                nonlocal status
                if message["type"] == "http.response.start":
                    status = message["status"]
                await send(message)

            try:
                await app(scope, receive, send_and_record)
            finally:
                # The template (`/v1/runs/{run_id}`), never the raw path: bounded label values.
                route = _route_template(scope)
                self.requests.labels(scope["method"], route, str(status)).inc()
                self.latency.labels(scope["method"], route).observe(time.perf_counter() - started)

        return measure


def _route_template(scope: Any) -> str:
    # Set by Litestar's router only when a route matched; 404s share one label value.
    return scope.get("path_template") or "unmatched"
