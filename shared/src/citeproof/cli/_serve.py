"""`citeproof serve`: the API and the three workers under one supervisor, for one box.

The all-in-one image's command (deploy/docker/all-in-one.Dockerfile): each service is still its
own process (the same code and queues as the four-image deployment), restarted with back-off
when it dies; SIGTERM drains the workers, stops the API and exits 0. Logs of every child go to
this process's output, so the container's log stream carries all of them.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
import time
from dataclasses import dataclass, field

from citeproof.db.pool import embedded_server, resolve_database_url
from citeproof.db.settings import DatabaseSettings
from citeproof.devstack import SERVICE_MODULES, WORKER_SERVICES, DevStack, ServiceProcess
from citeproof.settings import load

DEFAULT_HOST = "0.0.0.0"
DEFAULT_PORT = 8000
SUPERVISE_INTERVAL_S = 1.0
# A child that keeps dying is restarted after 1, 2, 4 … s, at most this long apart, so a crash
# loop (database down, bad setting) does not burn the box's CPU.
MAX_BACKOFF_S = 30.0
# A child that stayed up this long counts as healthy again: its next crash restarts at once.
STABLE_AFTER_S = 60.0


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "serve", help="run the API and the three workers under one supervisor (one box)"
    )
    parser.add_argument("--host", default=DEFAULT_HOST, help="API listen address")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help="API port")
    for service in WORKER_SERVICES:
        parser.add_argument(f"--{service}s", type=int, default=1, help=f"{service} replicas")
    parser.set_defaults(handler=run)


@dataclass
class _Restarts:
    """Back-off bookkeeping per service (replicas of one service share it)."""

    delay_s: dict[str, float] = field(default_factory=dict)
    due: dict[int, float] = field(default_factory=dict)

    def schedule(self, proc: ServiceProcess, started_at: float, now: float) -> None:
        if now - started_at >= STABLE_AFTER_S:
            self.delay_s[proc.service] = 0.0
        delay = self.delay_s.get(proc.service, 0.0)
        self.due[id(proc)] = now + delay
        self.delay_s[proc.service] = min(MAX_BACKOFF_S, max(1.0, delay * 2))


def supervise(stack: DevStack, stop: threading.Event) -> None:
    """Restart dead children until `stop` is set."""
    restarts = _Restarts()
    started = {id(p): time.monotonic() for p in stack.processes}
    while not stop.wait(SUPERVISE_INTERVAL_S):
        now = time.monotonic()
        for proc in list(stack.processes):
            if proc.alive:
                continue
            key = id(proc)
            if key not in restarts.due:
                print(
                    f"citeproof serve: {proc.name} exited with {proc.popen.returncode}",
                    file=sys.stderr,
                    flush=True,
                )
                restarts.schedule(proc, started.get(key, now), now)
            if now >= restarts.due[key]:
                del restarts.due[key]
                stack.processes.remove(proc)
                fresh = stack.start_service(proc.service)
                started[id(fresh)] = now


def run(args: argparse.Namespace) -> int:
    url = resolve_database_url(load(DatabaseSettings))
    stack = DevStack(database_url=url, api_port=args.port, api_host=args.host, inherit_output=True)
    stop = threading.Event()
    # The handler only sets the flag; the drain runs on the main thread below.
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    stack.start({s: getattr(args, f"{s}s") for s in WORKER_SERVICES})
    print(
        f"citeproof serve: {', '.join(SERVICE_MODULES)} started; API on {args.host}:{args.port}",
        file=sys.stderr,
        flush=True,
    )
    try:
        supervise(stack, stop)
    finally:
        stack.stop()
        server = embedded_server()
        if server is not None and server.owner:
            server.stop()
    return 0
