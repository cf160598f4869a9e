"""`citeproof serve` (the all-in-one image's command): four services under one supervisor that
restarts a dead one and drains everything on SIGTERM."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from citeproof.devstack import free_port

pytestmark = pytest.mark.slow
READY_TIMEOUT_S = 180


def _children(pid: int, module: str) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            cmdline = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ")
        except (OSError, ValueError, IndexError):
            continue
        if ppid == pid and f"-m {module}".encode() in cmdline:
            found.append(int(stat.parent.name))
    return found


def _ready(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


def _wait(condition, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.5)


def test_serve_restarts_a_dead_worker_and_drains_on_sigterm(database_url: str) -> None:
    port = free_port()
    env = dict(os.environ, DATABASE_URL=database_url, CITEPROOF_DRAIN_GRACE_S="5")
    serve = subprocess.Popen(
        [sys.executable, "-m", "citeproof.cli", "serve", "--host", "127.0.0.1", "--port",
         str(port)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        _wait(lambda: _ready(port), READY_TIMEOUT_S)
        (parser,) = _children(serve.pid, "citeproof.parser")
        os.kill(parser, signal.SIGKILL)
        _wait(lambda: _children(serve.pid, "citeproof.parser") not in ([], [parser]), 60)
        _wait(lambda: _ready(port), READY_TIMEOUT_S)
        modules = ("citeproof.api", "citeproof.parser", "citeproof.retriever", "citeproof.judge")
        running = [pid for module in modules for pid in _children(serve.pid, module)]
        assert len(running) == 4
        serve.send_signal(signal.SIGTERM)
        _, err = serve.communicate(timeout=120)
    finally:
        if serve.poll() is None:
            serve.kill()
    assert serve.returncode == 0, err
    assert f"parser-1 exited with {-signal.SIGKILL}" in err
    # Every child was drained and reaped before the supervisor exited.
    assert not [pid for pid in running if Path(f"/proc/{pid}").exists()]
