"""`citeproof migrate`: apply pending migrations by hand (services also do it at boot)."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from citeproof.db.migrate import apply_migrations
from citeproof.db.pool import resolve_listen_url
from citeproof.db.settings import DatabaseSettings
from citeproof.obs.logs import configure_logging
from citeproof.settings import load


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("migrate", help="apply pending database migrations")
    parser.add_argument("--dir", type=Path, default=None, help="migrations folder")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    configure_logging("migrate")
    settings = load(DatabaseSettings)
    directory = args.dir or (Path(settings.migrations_dir) if settings.migrations_dir else None)
    applied = asyncio.run(apply_migrations(resolve_listen_url(settings), directory))
    print(f"applied {len(applied)} migration(s)" + (f": {applied}" if applied else ""))
    return 0
