"""`citeproof_build_info{version}` = 1: which release each scraped process runs.

Every process exports it (workers on their health port's default registry, the API on its own
registry), so a dashboard can show a rolling update's mix of versions while it happens.
"""

from __future__ import annotations

from prometheus_client import REGISTRY, CollectorRegistry, Gauge

from citeproof.version import version

BUILD_INFO_METRIC = "citeproof_build_info"


def register_build_info(registry: CollectorRegistry = REGISTRY) -> Gauge:
    gauge = Gauge(
        BUILD_INFO_METRIC,
        "Always 1; the version label is the citeproof release this process runs.",
        ["version"],
        registry=registry,
    )
    gauge.labels(version=version()).set(1)
    return gauge
