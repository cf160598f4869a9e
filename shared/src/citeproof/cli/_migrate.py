"""`citeproof migrate`: apply pending migrations by hand (services also do it at boot) and grant
the least-privilege runtime roles (`citeproof.db.roles`)."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from citeproof.db.migrate import apply_migrations
from citeproof.db.pool import resolve_listen_url
from citeproof.db.roles import roles_sql
from citeproof.db.settings import DatabaseSettings
from citeproof.obs.logs import configure_logging
from citeproof.settings import load


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("migrate", help="apply pending database migrations")
    parser.add_argument("--dir", type=Path, default=None, help="migrations folder")
    parser.add_argument(
        "--print-roles",
        action="store_true",
        help="print the SQL that creates and grants the least-privilege runtime roles, and exit",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if getattr(args, "print_roles", False):
        print(roles_sql(), end="")
        return 0
    configure_logging("migrate")
    settings = load(DatabaseSettings)
    directory = args.dir or (Path(settings.migrations_dir) if settings.migrations_dir else None)
    # Then re-grant the runtime roles that exist (none on a one-role database).
    applied = asyncio.run(
        apply_migrations(resolve_listen_url(settings), directory, grant_roles=True)
    )
    print(f"applied {len(applied)} migration(s)" + (f": {applied}" if applied else ""))
    return 0
