"""Library inputs (issue: bring your library) checked end to end through the API.

    .venv/bin/python -m bench.library_inputs        # or: make bench-library-inputs

Each fixture (a LaTeX project with a Better BibTeX .bib whose `file` fields point at the sample
PDFs; the same project with a Zotero CSL-JSON or RIS library uploaded beside it; the rendered
thesis PDF matched to the RIS library; DOCX with Zotero and with Mendeley citation fields) is
uploaded through the API to a fresh embedded PostgreSQL, parsed by the real parse stage and
planned by the real planner. The same fixtures, laid out on disk as a user has them, are then
checked by `citeproof check` itself (records `citeproof check: ...`, `bench/_library_cli.py`).
Every citation's reference and linked PDF is compared with the
sample's intended one (samples/demo/expected.json).

Writes the section `library_inputs` of bench/results/extraction.json (same record shape as
`styles`; `verdict_agreement` is null: the judge is not run, links are decided at planning) and
leaves every other key of that file as it is.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

from bench import common
from bench._library_results import merge_section
from citeproof.db.migrate import apply_migrations
from citeproof.db.pool import create_pool
from citeproof.db.settings import DatabaseSettings
from citeproof.devkit.library_run import cases, new_user_headers, run_case, services

ROOT = Path(__file__).resolve().parent.parent
os.environ.setdefault("DO_NOT_TRACK", "1")


def through_the_cli() -> dict[str, dict]:
    """The same fixtures through `citeproof check` (`bench/_library_cli.py`)."""
    import shutil

    from bench._library_cli import measure as measure_cli

    work = Path(tempfile.mkdtemp(prefix="citeproof-library-cli-"))
    try:
        return measure_cli(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


async def measure(url: str, work: Path) -> dict[str, dict]:
    await apply_migrations(url)
    settings = DatabaseSettings(url=url, pool_min=1, pool_max=6)
    pool = await create_pool(settings)
    parser, retriever = services()
    records: dict[str, dict] = {}
    try:
        # One user: the sample PDFs are parsed once and reused by every case's session.
        headers = await new_user_headers(pool)
        for case in cases(work):
            started = time.perf_counter()
            outcome = await run_case(case, pool, settings, parser, retriever, headers)
            records[case.name] = {
                **outcome.record,
                "seconds": round(time.perf_counter() - started, 1),
            }
            for row in outcome.wrong:
                print(f"  {case.name}: {row['claim_text'][:50]!r} -> {row['filename']} "
                      f"(expected {row['expected']})")  # fmt: skip
    finally:
        parser.sandbox.close()
        await pool.close()
    return records


def style_matrix() -> dict[str, dict]:
    """The references issue's style matrix with a library (item: matching a rendered thesis)."""
    try:
        from bench._library_styles import run_matrix_with_library
    except ImportError as exc:  # the style-matrix renderer is not installed in this checkout
        print(f"style matrix skipped: {exc}")
        return {}
    return run_matrix_with_library()


def main() -> int:
    with common.fresh_postgres("citeproof-library-") as url, tempfile.TemporaryDirectory() as work:
        records = asyncio.run(measure(url, Path(work)))
    records.update(style_matrix())
    records.update(through_the_cli())
    path = merge_section(records)
    columns = [
        common.Column("references_found", "refs", 0),
        common.Column("marker_precision", "marker P", 3),
        common.Column("marker_recall", "marker R", 3),
        common.Column("link_accuracy", "link acc", 3),
        common.Column("wrong_links", "wrong", 0),
    ]
    baseline = next(iter(records))
    common.print_table(records, columns, baseline, title=f"library inputs -> {path}")
    # Wrong links are never acceptable; the fixtures must also link every citation (the style
    # matrix's link accuracy also depends on marker detection, reported as measured).
    fixtures_exact = all(
        r["link_accuracy"] == 1.0 for name, r in records.items() if not name.startswith("style")
    )
    return 0 if fixtures_exact and all(r["wrong_links"] == 0 for r in records.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
