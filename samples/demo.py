"""`make demo`: `citeproof check` on the sample thesis, as a researcher would run it.

Renders the sample thesis and its sources to PDF, then runs `citeproof check` itself: it
starts the embedded PostgreSQL (in .citeproof/, with the fast test settings; DATABASE_URL
targets a real server instead), the API and the three workers as separate processes, uploads,
shows progress, writes the report as HTML, Markdown and JSON and stops everything it started.
Finally prints a table of every citation next to the verdict its author intended.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from citeproof.cli import main as citeproof_cli
from citeproof.cli._outcome import EXIT_ERROR, EXIT_INTERRUPTED

REPO_ROOT = Path(__file__).resolve().parents[1]
OUT_DIR = REPO_ROOT / "artifacts" / "demo"
STATE_DIR = REPO_ROOT / ".citeproof"
# The demo's database is throw-away: the crash-unsafe fast settings are right here.
FAST_ENV = "CITEPROOF_EMBEDDED_PG_FAST"


def _render_samples() -> dict:
    result = subprocess.run(
        [sys.executable, str(REPO_ROOT / "samples" / "build.py"), str(OUT_DIR / "pdf"), "--json"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return json.loads(result.stdout)


def _expected_labels(expected_path: str) -> dict[tuple[str, str], str]:
    expected = json.loads(Path(expected_path).read_text())
    return {
        (" ".join(s["sentence"].split())[:60], c["reference"]): c["label"]
        for s in expected["sentences"]
        for c in s["citations"]
    }


def _print_table(report: dict, expected: dict[tuple[str, str], str]) -> None:
    print(f"\n{'#':>2}  {'ref':<4} {'verdict':<20} {'conf':>4}  {'intended':<20} claim")
    agree = 0
    for i, c in enumerate(report["citations"], 1):
        verdict = c["verdict"] or {}
        key = (" ".join(c["claim"].split())[:60], c["reference"]["label"] if c["reference"] else "")
        intended = next((v for (s, r), v in expected.items() if r == key[1] and s[:40] in
                         " ".join(c["claim"].split())), "?")  # fmt: skip
        agree += verdict.get("label") == intended
        claim = " ".join(c["claim"].split())
        claim = claim if len(claim) <= 70 else claim[:69] + "…"
        ref = c["reference"]["label"] if c["reference"] else "-"
        print(f"{i:>2}  [{ref:<2}] {verdict.get('label', '-'):<20} "
              f"{verdict.get('confidence', 0):>4.2f}  {intended:<20} {claim}")  # fmt: skip
    print(f"\n{agree} of {len(report['citations'])} citations got the verdict their author "
          "intended (needs_review counts as a miss; see docs/judge.md).")  # fmt: skip


def main() -> int:
    started = time.monotonic()
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    pdfs = _render_samples()
    print(f"rendered the sample thesis and {len(pdfs['sources'])} sources into {OUT_DIR / 'pdf'}")
    os.environ.setdefault(FAST_ENV, "1")
    where = ["--data-dir", str(STATE_DIR)]
    if os.environ.get("DATABASE_URL"):
        where += ["--database-url", os.environ["DATABASE_URL"]]
    command = ["check", pdfs["thesis"], str(Path(pdfs["sources"][0]).parent), *where,
               "--format", "html", "--format", "md", "--format", "json",
               "-o", str(OUT_DIR / "report")]  # fmt: skip
    print(f"$ citeproof {' '.join(command[:3])} --format html --format md --format json "
          f"-o {(OUT_DIR / 'report').relative_to(REPO_ROOT)}", flush=True)  # fmt: skip
    code = citeproof_cli(command)
    if code in (EXIT_ERROR, EXIT_INTERRUPTED):
        print(f"the check did not finish (exit {code}); service logs are in {STATE_DIR / 'logs'}")
        return 1
    meaning = {
        0: "every checked citation is fine",
        1: "it found problem citations, as the sample intends",
        3: "too few citations got a definite verdict: the offline judge says needs_review "
        "when it cannot back a label (docs/judge.md)",
    }.get(code, "see citeproof check --help")
    print(f"(citeproof check exited {code}: {meaning})")
    report = json.loads((OUT_DIR / "report.json").read_text())
    _print_table(report, _expected_labels(pdfs["expected"]))
    print(f"\nreport: {OUT_DIR / 'report.html'}  (also report.md, report.json)")
    print(f"demo finished in {time.monotonic() - started:.0f} s; everything it started is stopped.")
    print("To browse the web UI: `.venv/bin/citeproof dev`, then open http://127.0.0.1:8000")
    return 0


if __name__ == "__main__":
    sys.exit(main())
