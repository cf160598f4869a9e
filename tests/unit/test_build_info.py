"""Every process exports citeproof_build_info{version} = 1."""

from __future__ import annotations

from prometheus_client import REGISTRY, generate_latest

import citeproof.queue.metrics  # noqa: F401  (registers the workers' build info)
from citeproof.api.metrics import ApiMetrics
from citeproof.version import version


def test_workers_and_the_api_export_their_version() -> None:
    line = f'citeproof_build_info{{version="{version()}"}} 1.0'
    assert line in generate_latest(REGISTRY).decode()
    assert line in ApiMetrics().render().decode()
    assert line in ApiMetrics().render().decode()  # one registry per app: no duplicate error
