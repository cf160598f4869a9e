"""The whole stack as separate OS processes on one database: `citeproof dev`, `make demo`,
the end-to-end and chaos tests all run it through this one class.

Each service is its own process (exactly what a deployment runs), started from its console
script's module with `DATABASE_URL` pointing at the shared database. Replicas of a worker
get their own health port. Output is prefixed and coloured per process when asked.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

SERVICE_MODULES = {
    "api": "citeproof.api",
    "parser": "citeproof.parser",
    "retriever": "citeproof.retriever",
    "judge": "citeproof.judge",
}
WORKER_SERVICES = ("parser", "retriever", "judge")
COLOURS = {"api": "36", "parser": "35", "retriever": "33", "judge": "32"}
API_READY_TIMEOUT_S = 120.0
STOP_TIMEOUT_S = 90.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class ServiceProcess:
    service: str
    replica: int
    popen: subprocess.Popen
    health_port: int
    log_path: Path | None
    _pump: threading.Thread | None = None

    @property
    def name(self) -> str:
        return f"{self.service}-{self.replica}"

    @property
    def alive(self) -> bool:
        return self.popen.poll() is None


@dataclass
class DevStack:
    database_url: str
    log_dir: Path | None = None
    env: dict[str, str] = field(default_factory=dict)
    prefix_output: IO[str] | None = None
    api_port: int = 0
    # 127.0.0.1 on a laptop; `citeproof serve` in a container listens on every interface.
    api_host: str = "127.0.0.1"
    # Children write straight to this process's stdout/stderr (a container's log stream).
    inherit_output: bool = False
    processes: list[ServiceProcess] = field(default_factory=list)
    _started: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.api_port:
            self.api_port = free_port()

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.api_port}"

    def _env(self, service: str, health_port: int) -> dict[str, str]:
        env = dict(os.environ)
        env.update(self.env)
        env.update(
            DATABASE_URL=self.database_url,
            CITEPROOF_WORKER_HTTP_PORT=str(health_port),
            CITEPROOF_WORKER_HTTP_HOST="127.0.0.1",
            CITEPROOF_API_PORT=str(self.api_port),
            CITEPROOF_API_HOST=self.api_host,
            DO_NOT_TRACK="1",
            HF_HUB_OFFLINE="1",
            TRANSFORMERS_OFFLINE="1",
            PYTHONUNBUFFERED="1",
        )
        env.setdefault("CITEPROOF_LOG_FORMAT", "json")
        return env

    def start_service(self, service: str) -> ServiceProcess:
        # Numbers are never reused, so logs and events name each process unambiguously.
        self._started[service] = replica = self._started.get(service, 0) + 1
        health_port = self.api_port if service == "api" else free_port()
        log_path = None
        stdout: int | IO[bytes] | None = subprocess.DEVNULL
        if self.inherit_output:
            stdout = None
        elif self.prefix_output is not None:
            stdout = subprocess.PIPE
        elif self.log_dir is not None:
            self.log_dir.mkdir(parents=True, exist_ok=True)
            log_path = self.log_dir / f"{service}-{replica}.log"
            stdout = log_path.open("ab")
        popen = subprocess.Popen(
            [sys.executable, "-m", SERVICE_MODULES[service]],
            env=self._env(service, health_port),
            stdout=stdout,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,  # Ctrl-C in a terminal reaches us, not the children
        )
        proc = ServiceProcess(service, replica, popen, health_port, log_path)
        if self.prefix_output is not None:
            proc._pump = threading.Thread(target=self._pump, args=(proc,), daemon=True)
            proc._pump.start()
        self.processes.append(proc)
        return proc

    def _pump(self, proc: ServiceProcess) -> None:
        assert proc.popen.stdout is not None and self.prefix_output is not None
        colour = COLOURS.get(proc.service, "0")
        tag = f"\033[{colour}m{proc.name:<12}\033[0m | "
        for raw in proc.popen.stdout:
            self.prefix_output.write(tag + raw.decode("utf-8", "replace"))
            self.prefix_output.flush()

    def start(self, replicas: dict[str, int] | None = None) -> DevStack:
        replicas = replicas or {}
        self.start_service("api")
        for service in WORKER_SERVICES:
            for _ in range(replicas.get(service, 1)):
                self.start_service(service)
        return self

    def wait_ready(self, timeout: float = API_READY_TIMEOUT_S) -> None:
        """Until the API answers /readyz and every worker's /healthz is 200."""
        deadline = time.monotonic() + timeout
        pending = {p.name: p for p in self.processes if p.alive}
        while pending:
            for name, proc in list(pending.items()):
                if not proc.alive:
                    raise RuntimeError(f"{name} exited with {proc.popen.returncode}")
                path = "/readyz" if proc.service == "api" else "/healthz"
                if _http_ok(f"http://127.0.0.1:{proc.health_port}{path}"):
                    del pending[name]
            if time.monotonic() > deadline:
                raise TimeoutError(f"not ready in {timeout:.0f}s: {sorted(pending)}")
            time.sleep(0.2)

    def kill(self, proc: ServiceProcess) -> None:
        """SIGKILL: the worst case, nothing gets to clean up."""
        with contextlib.suppress(ProcessLookupError):
            proc.popen.kill()
        proc.popen.wait(10)

    def terminate(self, proc: ServiceProcess, timeout: float = STOP_TIMEOUT_S) -> int:
        """SIGTERM and wait for the drain; returns the exit code."""
        with contextlib.suppress(ProcessLookupError):
            proc.popen.send_signal(signal.SIGTERM)
        try:
            return proc.popen.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.popen.kill()
            return proc.popen.wait(10)

    def replace(self, proc: ServiceProcess, *, graceful: bool) -> ServiceProcess:
        if graceful:
            self.terminate(proc)
        else:
            self.kill(proc)
        self.processes.remove(proc)
        return self.start_service(proc.service)

    def stop(self) -> None:
        for proc in self.processes:
            if proc.alive:
                with contextlib.suppress(ProcessLookupError):
                    proc.popen.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + STOP_TIMEOUT_S
        for proc in self.processes:
            remaining = max(0.1, deadline - time.monotonic())
            try:
                proc.popen.wait(remaining)
            except subprocess.TimeoutExpired:
                proc.popen.kill()
                proc.popen.wait(10)
        for proc in self.processes:
            if proc._pump is not None:
                proc._pump.join(timeout=2)

    def __enter__(self) -> DevStack:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _http_ok(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200
    except OSError:
        return False
