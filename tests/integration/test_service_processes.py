"""Every service is a process that boots on the database and drains to exit 0 on SIGTERM."""

from __future__ import annotations

import pytest

from citeproof.devstack import DevStack

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("service", ["api", "judge"])
def test_service_boots_and_exits_zero_on_sigterm(database_url, tmp_path, service) -> None:
    stack = DevStack(database_url=database_url, log_dir=tmp_path)
    proc = stack.start_service(service)
    try:
        stack.wait_ready(timeout=120)
        assert stack.terminate(proc, timeout=60) == 0, (tmp_path / f"{proc.name}.log").read_text()
    finally:
        stack.stop()
