"""Every metric the Grafana dashboard and the alert rules name is exported by a running
service — a renamed metric would otherwise leave an empty panel or a silent alert."""

from __future__ import annotations

import sys
from pathlib import Path

import httpx

REPO_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO_ROOT / "deploy" / "tools"))

from deploycheck.observability import referenced_metrics, unexported_metrics  # noqa: E402


def test_dashboard_and_alert_metrics_are_exported(e2e_stack) -> None:
    pages = []
    for proc in e2e_stack.processes:
        response = httpx.get(f"http://127.0.0.1:{proc.health_port}/metrics", timeout=10)
        assert response.status_code == 200, proc.name
        pages.append(response.text)
    assert referenced_metrics()  # the files were read: there is something to check
    assert unexported_metrics(pages) == {}
