"""Small helpers shared by the benchmarks: a throwaway PostgreSQL, percentiles, a result table
with ratios to a baseline, and the JSON file each benchmark writes into bench/results/.

Benchmarks run as modules from the repository root (``python -m bench.<name>``) and import
this as ``from bench import common``.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from citeproof.db.embedded import EmbeddedPostgres

REPO_ROOT = Path(__file__).resolve().parents[1]
RESULTS_DIR = REPO_ROOT / "bench" / "results"
# The one place the benchmarks find the real data (read in place, never copied into the repo):
# `CITEPROOF_DATA_DIR` (the Makefile's DATA_DIR exports it), else ../shared/data beside the repo.
DATA_DIR = Path(os.environ.get("CITEPROOF_DATA_DIR") or REPO_ROOT.parent / "shared" / "data")
PAPERS_DIR = DATA_DIR / "papers"
CHECKCOVID_DIR = DATA_DIR / "checkcovid"


@contextlib.contextmanager
def fresh_postgres(prefix: str = "citeproof-bench-") -> Iterator[str]:
    """Yield the URL of a new embedded PostgreSQL in a temporary directory, destroyed after.

    A fresh server per run keeps earlier runs (bloat, caches, stray rows) out of the numbers.
    `BENCH_DATABASE_URL` points a benchmark at an existing server instead (e.g. a managed
    PostgreSQL, to compare against production-like hardware); it is then used as is.
    """
    if url := os.environ.get("BENCH_DATABASE_URL"):
        yield url
        return
    root = Path(tempfile.mkdtemp(prefix=prefix))
    server = EmbeddedPostgres(root / "data", fast=True).start()
    try:
        yield server.url()
    finally:
        server.destroy()
        shutil.rmtree(root, ignore_errors=True)


def cpu_seconds(pids: Iterable[int]) -> float:
    """User + system CPU time consumed so far by these processes (Linux /proc); processes
    that have exited count as zero."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime in clock ticks
    return total / os.sysconf("SC_CLK_TCK")


def children_of(parent: int) -> list[int]:
    """Pids whose parent is `parent` (e.g. a postmaster's backends and auxiliary processes)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == parent:
            found.append(int(entry.name))
    return found


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100); NaN for no values."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


@dataclass(frozen=True)
class Column:
    key: str
    label: str
    digits: int = 1


def print_table(
    rows: Mapping[str, Mapping[str, float]],
    columns: Sequence[Column],
    baseline: str,
    title: str = "",
) -> None:
    """One line per row; each value is followed by its ratio to the baseline row's value."""
    header = ["", *(c.label for c in columns), *(f"{c.label} / {baseline}" for c in columns)]
    lines = [header]
    base = rows.get(baseline, {})
    for name, values in rows.items():
        cells = [name]
        cells += [_number(values.get(c.key), c.digits) for c in columns]
        cells += [_ratio(values.get(c.key), base.get(c.key)) for c in columns]
        lines.append(cells)
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    if title:
        print(title)
    for line in lines:
        first, *rest = line
        padded = (cell.rjust(width) for cell, width in zip(rest, widths[1:], strict=True))
        print("  ".join([first.ljust(widths[0]), *padded]))


def _number(value: float | None, digits: int) -> str:
    if value is None or math.isnan(value):
        return "-"
    return f"{value:,.{digits}f}"


def _ratio(value: float | None, base: float | None) -> str:
    if value is None or base is None or math.isnan(value) or math.isnan(base) or base == 0:
        return "-"
    return f"{value / base:.2f}x"


def write_results(name: str, data: object) -> Path:
    """Write bench/results/<name>.json (sorted keys, so reruns diff cleanly)."""
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    path = RESULTS_DIR / f"{name}.json"
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    return path
