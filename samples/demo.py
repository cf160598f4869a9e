"""`make demo`: `citeproof check` on the two sample theses, as a researcher would run it.

1. samples/demo — the sample thesis and its sources. Renders them to PDF and runs `citeproof
   check` itself: it starts the embedded PostgreSQL (in .citeproof/, with the fast test settings;
   DATABASE_URL targets a real server instead), the API and the workers as separate processes,
   uploads, shows progress, writes the report as HTML, Markdown and JSON and stops everything it
   started. Prints a table of every citation next to the verdict its author intended.
2. samples/demo-errors — the same thesis with three seeded errors (a misquotation, a changed
   number, a PDF attached to the wrong entry of the writer's library), checked with its library
   (`--bib library.bib`). Prints every error and warning with its evidence and the exit code
   (1: problems found), and checks them against the sample's expected findings.

Exits 0 when both checks finished and the second one found its expected findings and exited 1;
otherwise 1, naming what is missing.
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
from citeproof.devkit.expected_findings import problem_lines, unmet
from citeproof.pipeline import INFO, LABEL_FINDINGS

REPO_ROOT = Path(__file__).resolve().parents[1]
OUT_DIR = REPO_ROOT / "artifacts" / "demo"
STATE_DIR = REPO_ROOT / ".citeproof"
# The demo's database is throw-away: the crash-unsafe fast settings are right here.
FAST_ENV = "CITEPROOF_EMBEDDED_PG_FAST"
ERRORS_CORPUS = "demo-errors"
# What the check of the sample with seeded errors must exit with: problems found.
EXIT_PROBLEMS = 1
# The pipeline label a finding stands for (a citation without a source shows its CP402).
_LABEL_OF_RULE = {rule.code: label for label, rule in LABEL_FINDINGS.items()}


def _render_samples(corpus: str, out: Path) -> dict:
    result = subprocess.run(
        [sys.executable, str(REPO_ROOT / "samples" / "build.py"), str(out), "--corpus", corpus,
         "--json"],
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


def _label(citation: dict) -> str:
    """The verdict's label, or the label a pipeline finding stands for (report v2)."""
    if citation["verdict"]:
        return citation["verdict"]["label"]
    for finding in citation.get("findings") or []:
        if finding["rule"] in _LABEL_OF_RULE:
            return _LABEL_OF_RULE[finding["rule"]]
    return "-"


def _print_table(report: dict, expected: dict[tuple[str, str], str]) -> None:
    head = f"{'#':>2}  {'ref':<4} {'verdict':<20} {'conf':>4}  {'intended':<20} {'findings':<9}"
    print(f"\n{head} claim")
    agree = 0
    for i, c in enumerate(report["citations"], 1):
        verdict = c["verdict"] or {}
        ref = c["reference"]["label"] if c["reference"] else ""
        claim = " ".join(c["claim"].split())
        intended = next((v for (s, r), v in expected.items() if r == ref and s[:40] in claim), "?")
        label = _label(c)
        agree += label == intended
        shown = claim if len(claim) <= 70 else claim[:69] + "…"
        conf = f"{verdict['confidence']:.2f}" if verdict else "-"
        # Errors and warnings (a missing source's info finding is the verdict column already).
        codes = ",".join(f["rule"] for f in c.get("findings") or [] if f["severity"] != INFO)
        print(f"{i:>2}  [{ref or '-':<2}] {label:<20} {conf:>4}  {intended:<20} {codes or '-':<9} "
              f"{shown}")  # fmt: skip
    print(f"\n{agree} of {len(report['citations'])} citations got the verdict their author "
          "intended (needs_review counts as a miss; see docs/judge.md).")  # fmt: skip


def _relative(path: str | Path) -> str:
    """A path as the command line shows it: relative to the repository when it is inside."""
    path = Path(path)
    return str(path.relative_to(REPO_ROOT)) if path.is_relative_to(REPO_ROOT) else str(path)


def _check(thesis: str, more: list[str], report_stem: Path) -> int:
    where = ["--data-dir", str(STATE_DIR)]
    if os.environ.get("DATABASE_URL"):
        where += ["--database-url", os.environ["DATABASE_URL"]]
    outputs = ["--format", "html", "--format", "md", "--format", "json", "-o", str(report_stem)]
    shown = [_relative(thesis), *map(_relative, more), *outputs[:6], "-o", _relative(report_stem)]
    print(f"$ citeproof check {' '.join(map(str, shown))}", flush=True)
    return citeproof_cli(["check", thesis, *more, *where, *outputs])


def _first_sample() -> int | None:
    pdfs = _render_samples("demo", OUT_DIR / "pdf")
    print(f"rendered the sample thesis and {len(pdfs['sources'])} sources into {OUT_DIR / 'pdf'}")
    code = _check(pdfs["thesis"], [str(Path(pdfs["sources"][0]).parent)], OUT_DIR / "report")
    if code in (EXIT_ERROR, EXIT_INTERRUPTED):
        print(f"the check did not finish (exit {code}); service logs are in {STATE_DIR / 'logs'}")
        return None
    meaning = {
        0: "nothing the default --fail-on selects",
        1: "it found problems, as the sample intends",
        3: "too few citations could be examined (see the sentence above)",
    }.get(code, "see citeproof check --help")
    print(f"(citeproof check exited {code}: {meaning})")
    report = json.loads((OUT_DIR / "report.json").read_text())
    print(f"headline: {report['summary'].get('headline', '')}")
    _print_table(report, _expected_labels(pdfs["expected"]))
    print(f"\nreport: {OUT_DIR / 'report.html'}  (also report.md, report.json)")
    return code


def _second_sample() -> list[str]:
    """Check the sample with seeded errors; what did not go as intended (empty: all did)."""
    out = OUT_DIR / ERRORS_CORPUS
    pdfs = _render_samples(ERRORS_CORPUS, out / "pdf")
    print(
        f"\nThe same thesis with three seeded errors (samples/{ERRORS_CORPUS}): a misquotation, "
        "a changed number, and the library attaching another paper's PDF to entry [3]."
    )
    library = ["--bib", pdfs["library"], "--attachments", str(Path(pdfs["sources"][0]).parent)]
    code = _check(pdfs["thesis"], library, out / "report")
    if code in (EXIT_ERROR, EXIT_INTERRUPTED):
        return [f"the check did not finish (exit {code}); logs in {STATE_DIR / 'logs'}"]
    report = json.loads((out / "report.json").read_text())
    print(f"headline: {report['summary'].get('headline', '')}")
    print("errors and warnings, with their evidence:")
    print("\n".join(problem_lines(report)) or "  (none)")
    expected = json.loads(Path(pdfs["expected"]).read_text())
    missing = unmet(report, expected["findings"])
    print(f"(citeproof check exited {code}; the sample intends {EXIT_PROBLEMS}: problems found)")
    print(f"report: {out / 'report.html'}  (also report.md, report.json)")
    if code != EXIT_PROBLEMS:
        missing.append(f"citeproof check exited {code}, not {EXIT_PROBLEMS}")
    return missing


def main() -> int:
    started = time.monotonic()
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault(FAST_ENV, "1")
    if _first_sample() is None:
        return 1
    missing = _second_sample()
    print(
        f"\ndemo finished in {time.monotonic() - started:.0f} s; everything it started is stopped."
    )
    print("To browse the web UI: `.venv/bin/citeproof dev`, then open http://127.0.0.1:8000")
    if missing:
        print("the second sample did not show what it should:\n  " + "\n  ".join(missing))
        return 1
    print("the second sample showed each of its seeded errors with its evidence and exited 1.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
