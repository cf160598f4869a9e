"""`citeproof dev`: the four services as separate processes on the embedded database.

Logs of every process are prefixed and coloured on this terminal; Ctrl-C drains the
workers, stops the API and then the embedded PostgreSQL this command started.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
import threading

from citeproof.db.boot import migrate_at_boot
from citeproof.db.pool import embedded_server, resolve_database_url
from citeproof.db.settings import DatabaseSettings
from citeproof.devstack import WORKER_SERVICES, DevStack
from citeproof.settings import load


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("dev", help="run the whole stack locally")
    parser.add_argument("--port", type=int, default=8000, help="API port")
    for service in WORKER_SERVICES:
        parser.add_argument(f"--{service}s", type=int, default=1, help=f"{service} replicas")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    settings = load(DatabaseSettings)
    asyncio.run(migrate_at_boot(settings))
    url = resolve_database_url(settings)
    stack = DevStack(database_url=url, prefix_output=sys.stdout, api_port=args.port,
                     env={"CITEPROOF_LOG_FORMAT": "console"})  # fmt: skip
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    stack.start({s: getattr(args, f"{s}s") for s in WORKER_SERVICES})
    try:
        stack.wait_ready()
        print(f"citeproof is up: {stack.api_url}  (Ctrl-C stops everything)", flush=True)
        while not stop.wait(0.5):
            if not all(p.alive for p in stack.processes):
                dead = [p.name for p in stack.processes if not p.alive]
                print(f"stopping: {', '.join(dead)} exited", file=sys.stderr)
                return 1
    finally:
        stack.stop()
        server = embedded_server()
        if server is not None and server.owner:
            server.stop()
    return 0
