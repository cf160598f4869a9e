"""The library-input fixtures checked the way a person checks them: `citeproof check` on files
laid out as Zotero, Better BibTeX, LaTeX and Word users have them, the whole pipeline on this
machine (embedded PostgreSQL, the four services as processes, the judge included). Each report's
JSON is scored like the API fixtures (`citeproof.devkit.library_run.score`).

    .venv/bin/python -m bench._library_cli   # only the `citeproof check: ...` records

Records are named `citeproof check: <fixture>` in the `library_inputs` section of
bench/results/extraction.json; `verdict_agreement` stays null (the judge runs, but these records
are about links).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench._library_results import merge_records
from citeproof.db.embedded import EmbeddedPostgres
from citeproof.devkit.library_run import DEMO, KEYS, LIBRARY, NUMBERS, Case, build_docx, score
from citeproof.devkit.pdfgen.corpus import render_corpus

PREFIX = "citeproof check: "
CHECK_TIMEOUT_S = 900


def _layout(work: Path) -> list[tuple[str, list[str], Callable[[str], str | None]]]:
    """(fixture, `citeproof check` arguments, reference label -> demo number) on disk."""
    rendered = render_corpus(DEMO, work / "rendered")
    sources = work / "sources"
    sources.mkdir()
    for pdf in rendered.sources:
        shutil.copy(pdf, sources / Path(pdf).name)

    def files_beside(folder: Path) -> None:
        for n, pdf in enumerate(sorted(sources.iterdir()), start=1):
            (folder / "files" / str(n)).mkdir(parents=True)
            shutil.copy(pdf, folder / "files" / str(n) / pdf.name)

    project_bib = work / "latex-bibtex"
    shutil.copytree(LIBRARY / "latex", project_bib)
    files_beside(project_bib)  # Better BibTeX "Export with files" into the project
    project = work / "latex"
    shutil.copytree(LIBRARY / "latex", project)
    (project / "library.bib").unlink()
    ris_export = work / "ZoteroRIS"
    ris_export.mkdir()
    shutil.copy(LIBRARY / "library.ris", ris_export / "ZoteroRIS.ris")
    files_beside(ris_export)
    csl = work / "library.json"
    shutil.copy(LIBRARY / "library.json", csl)
    bib_export = work / "ZoteroBibTeX"
    bib_export.mkdir()
    shutil.copy(LIBRARY / "latex" / "library.bib", bib_export / "ZoteroBibTeX.bib")
    files_beside(bib_export)
    # build_docx writes the file at the path it is given (and returns its bytes).
    zotero, mendeley = work / "zotero.docx", work / "mendeley.docx"
    build_docx("zotero", zotero)
    build_docx("mendeley", mendeley)
    numeric = lambda label: label if label in KEYS else None  # noqa: E731
    by_key = NUMBERS.get
    return [
        ("latex folder, Better BibTeX .bib with files/", [str(project_bib)], by_key),
        ("latex folder + --bib CSL JSON + sources/", [str(project), "--bib", str(csl),
                                                       str(sources)], by_key),
        ("latex folder + Zotero RIS export folder", [str(project), str(ris_export)], by_key),
        ("thesis.pdf + Zotero BibTeX export folder", [str(rendered.thesis), str(bib_export)],
         numeric),
        ("thesis.pdf + --bib RIS --attachments", [str(rendered.thesis), "--bib",
                                                  str(ris_export / "ZoteroRIS.ris"),
                                                  "--attachments", str(sources)], numeric),
        ("docx (Zotero fields) + sources/", [str(zotero), str(sources)], by_key),
        ("docx (Mendeley fields) + sources/", [str(mendeley), str(sources)], by_key),
    ]  # fmt: skip


def _rows(report: dict) -> list[dict]:
    return [
        {
            "claim_text": c["claim"],
            "label": c["reference"]["label"],
            "filename": c["source"]["filename"] if c["source"] else None,
            "method": c["source"]["link_method"] if c["source"] else None,
        }
        for c in report["citations"]
    ]


def measure(work: Path) -> dict[str, dict]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CITEPROOF_TOKEN",
                                                            "CITEPROOF_API_URL")}  # fmt: skip
    env.update(CITEPROOF_EMBEDDED_PG_FAST="1", NO_COLOR="1")
    data = work / "data"
    records: dict[str, dict] = {}
    try:
        for name, arguments, number_of in _layout(work):
            out = work / "out" / f"{len(records)}.json"
            started = time.perf_counter()
            result = subprocess.run(
                [sys.executable, "-m", "citeproof.cli", "check", *arguments, "--data-dir",
                 str(data), "-f", "json", "-o", str(out), "--min-coverage", "0", "--fail-on",
                 "contradicted"],
                cwd=work, env=env, capture_output=True, text=True, timeout=CHECK_TIMEOUT_S,
                check=False,
            )  # fmt: skip
            if result.returncode not in (0, 1):
                raise RuntimeError(f"{name}: exit {result.returncode}\n{result.stderr}")
            if not out.exists():
                raise RuntimeError(f"{name}: no report\n{result.stdout}\n{result.stderr}")
            report = json.loads(out.read_text())
            rows = _rows(report)
            cited = {row["label"] for row in rows if row["label"]}
            case = Case(name, ("", b""), [], number_of=number_of)
            outcome = score(case, rows, len(cited))
            records[PREFIX + name] = {
                **outcome.record,
                "seconds": round(time.perf_counter() - started, 1),
            }
            for row in outcome.wrong:
                print(f"  {name}: {row['claim_text'][:50]!r} -> {row['filename']} "
                      f"(expected {row['expected']})")  # fmt: skip
            print(f"{name}: link accuracy {outcome.record['link_accuracy']}, wrong "
                  f"{outcome.record['wrong_links']}", flush=True)  # fmt: skip
    finally:
        EmbeddedPostgres(data / "pg").destroy()
    return records


def main() -> int:
    # Not a pytest tmp dir: as root the server runs as another user that must traverse it.
    work = Path(tempfile.mkdtemp(prefix="citeproof-library-cli-"))
    try:
        records = measure(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    merge_records(records)
    ok = all(r["link_accuracy"] == 1.0 and r["wrong_links"] == 0 for r in records.values())
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
