"""`citeproof retractions import FILE` and `citeproof retractions status`: the Retraction Watch
data set, offline (ADR 0024, `citeproof.retractions`).

Reference verification reads retractions, expressions of concern and corrections from this
local copy with no network at all. Get the file from Crossref (CC0):
https://gitlab.com/crossref/retraction-watch-data (`retraction_watch.csv`). An import replaces
the previous one. The database is DATABASE_URL's, else the embedded one `citeproof check` uses
(in --data-dir).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

import asyncpg

from citeproof.cli._local import PG_DIR, default_data_dir
from citeproof.db.boot import migrate_at_boot
from citeproof.db.embedded import EmbeddedPostgres
from citeproof.db.settings import DatabaseSettings
from citeproof.retractions import COUNT, RetractionFileError, import_file
from citeproof.settings import load

WHERE_TO_GET = "https://gitlab.com/crossref/retraction-watch-data (retraction_watch.csv)"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "retractions",
        help="load the Retraction Watch data set for offline retraction checks",
        description=__doc__.split("\n\n")[1],
    )
    sub = parser.add_subparsers(dest="retractions_command", required=True)
    load_cmd = sub.add_parser(
        "import", help=f"load (replace) the Retraction Watch CSV; get it from {WHERE_TO_GET}"
    )
    load_cmd.add_argument("file", type=Path, help="retraction_watch.csv as Crossref publishes it")
    load_cmd.add_argument(
        "--data-dir", type=Path, default=None,
        help=f"the local data `citeproof check` uses (default {default_data_dir()}); ignored "
        "when DATABASE_URL is set",
    )  # fmt: skip
    load_cmd.set_defaults(handler=lambda args: _run(_import, args))
    status = sub.add_parser("status", help="how many notices are loaded")
    status.add_argument("--data-dir", type=Path, default=None)
    status.set_defaults(handler=lambda args: _run(_status, args))


def _run(command: Any, args: argparse.Namespace) -> int:
    settings = load(DatabaseSettings)
    server = None
    url = settings.url
    if not url:
        data_dir = args.data_dir or default_data_dir()
        server = EmbeddedPostgres(data_dir / PG_DIR)
        owner = not server.is_running()
        server.start()
        url = server.url()
    try:
        asyncio.run(
            migrate_at_boot(DatabaseSettings(url=url, migrations_dir=settings.migrations_dir))
        )
        return int(asyncio.run(command(url, args)))
    finally:
        if server is not None and owner:
            server.stop()


async def _import(url: str, args: argparse.Namespace) -> int:
    path: Path = args.file
    if not path.is_file():
        print(f"error: {path} is not a file (get it from {WHERE_TO_GET})", file=sys.stderr)
        return 2
    conn = await asyncpg.connect(url)
    try:
        summary = await import_file(conn, path)
    except RetractionFileError as exc:
        print(f"error: {path}: {exc}", file=sys.stderr)
        return 2
    finally:
        await conn.close()
    kinds = ", ".join(
        f"{n} {kind.replace('_', ' ')}" for kind, n in sorted(summary.by_kind.items())
    )
    print(f"imported {summary.imported} notices from {path.name} ({kinds})")
    if summary.skipped:
        print(f"skipped {summary.skipped} rows:", file=sys.stderr)
        for problem in summary.problems:
            print(f"  {problem}", file=sys.stderr)
    return 0


async def _status(url: str, args: argparse.Namespace) -> int:
    conn = await asyncpg.connect(url)
    try:
        count = await conn.fetchval(COUNT)
    finally:
        await conn.close()
    if count:
        print(f"{count} Retraction Watch notices loaded")
    else:
        print(
            f"no Retraction Watch data loaded (citeproof retractions import FILE; {WHERE_TO_GET})"
        )
    return 0
