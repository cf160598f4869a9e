"""Validate everything under deploy/ offline: no Docker engine, no cluster.

    python deploy/check.py                 # all checks; exit 1 when anything is wrong
    python deploy/check.py --write         # regenerate the dashboard JSON and PrometheusRule first
    python deploy/check.py --list-metrics  # metric names the dashboard and alerts reference

`make deploy-check` installs the tools (hadolint, docker-compose, kubernetes-validate,
promql-parser, the npm CRD validators) and runs this.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "tools"))

from deploycheck import compose, dockerfiles, imports, k8s, observability, packaging
from deploycheck.findings import Finding
from deploycheck.paths import rel

CHECKS: dict[str, Callable[[], list[Finding]]] = {
    "dockerfiles": dockerfiles.check_all,
    "image-imports": imports.check_all,
    "packaging": packaging.check_all,
    "compose": compose.check_all,
    "kubernetes": k8s.check_all,
    "observability": observability.check_all,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="regenerate generated files first")
    parser.add_argument("--list-metrics", action="store_true", help="print referenced metrics")
    parser.add_argument("--only", choices=sorted(CHECKS), action="append", help="run only these")
    args = parser.parse_args(argv)

    if args.list_metrics:
        for name, references in observability.referenced_metrics().items():
            print(f"{name}\t{', '.join(sorted(references))}")
        return 0
    if args.write:
        for path in observability.write_generated():
            print(f"wrote {rel(path)}")

    failed = 0
    for name in args.only or CHECKS:
        started = time.monotonic()
        findings = CHECKS[name]()
        elapsed = time.monotonic() - started
        status = "ok" if not findings else f"{len(findings)} problem(s)"
        print(f"deploy-check {name}: {status} ({elapsed:.1f}s)")
        for finding in findings:
            print(f"  {finding}")
        failed += len(findings)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
