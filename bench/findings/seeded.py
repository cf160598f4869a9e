"""The citation linter on seeded errors, through the whole stack (issue 25, bench/results/
findings.json: "formats", "variations", "seed").

Theses from `citeproof.devkit.seeded` (Check-COVID and Citation-Integrity train SUPPORT
citations against their sources rendered as multi-page PDFs, quotations copied from those
sources; errors injected at known places, the answer key beside them) are rendered as PDF and
as DOCX with randomised layouts and checked as a user checks them: on a fresh embedded
PostgreSQL, the API, parser, retriever and judge as processes (`DevStack`); per thesis and
format one session with its source PDFs, its library (BibTeX with the attached PDFs' names)
and the thesis, one run, the JSON report. The judge answers from a stub LLM endpoint
(`citeproof.devkit.llm_stub`): verdicts are not scored here, the findings come from the parser
and the retriever. Each report is scored against the answer key (`citeproof.devkit.seeded.score`)
per rule and per format.

    python -m bench.findings.seeded --seed N [--theses 50] [--formats pdf,docx] [--work DIR]

Bars (issue 25): every error rule precision >= 0.98, recall >= 0.90, false alarms on untouched
citations <= 0.5%; warnings precision >= 0.80, recall >= 0.70; normal variations of an entry no
error and at most 2% warnings.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any, Final

import asyncpg
import httpx
import msgspec

from bench import common
from citeproof.auth import create_token, create_user
from citeproof.db.migrate import apply_migrations
from citeproof.devkit import journey
from citeproof.devkit.llm_stub import LlmStub
from citeproof.devkit.pdfgen.thesis_layout import (
    random_layout,
    render_thesis_docx,
    render_thesis_pdf,
)
from citeproof.devkit.seeded.compose import Composer, GeneratorConfig
from citeproof.devkit.seeded.key import CITATION_KINDS, ENTRY_KINDS, VARIATION, ThesisKey
from citeproof.devkit.seeded.material import filler_sentences, load_checkcovid, load_citint
from citeproof.devkit.seeded.score import Scores, Tally, score_thesis
from citeproof.devstack import DevStack
from citeproof.pipeline import ERROR, INFO, WARNING

RESULTS_NAME: Final = "findings"
FORMATS: Final = ("pdf", "docx")
DEFAULT_SEED: Final = 11
# Bars of issue 25.
ERROR_PRECISION: Final = 0.98
ERROR_RECALL: Final = 0.90
MAX_FALSE_ALARM_RATE: Final = 0.005
WARNING_PRECISION: Final = 0.80
WARNING_RECALL: Final = 0.70
MAX_VARIATION_WARNINGS: Final = 0.02
MEDIA_TYPES: Final = {
    ".pdf": "application/pdf",
    ".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    ".bib": "application/x-bibtex",
}
# The benchmark's user uploads every thesis at once; the per-user caps that protect a shared
# deployment (runs in flight, parse jobs, requests a minute) would only serialise it.
STACK_ENV: Final = {
    "CITEPROOF_POLL_INTERVAL_S": "0.5",
    "CITEPROOF_DRAIN_GRACE_S": "10",
    "CITEPROOF_API_MAX_ACTIVE_RUNS_PER_USER": "1000",
    "CITEPROOF_API_MAX_ACTIVE_PARSE_JOBS": "1000",
    "CITEPROOF_API_RATE_LIMIT_REQUESTS": "1000000",
    "CITEPROOF_API_RATE_LIMIT_UPLOADS": "1000000",
}
UPLOAD_RETRY_LIMIT_S: Final = 600.0
POLL_EVERY_S: Final = 5.0
PROGRESS_EVERY_S: Final = 30.0


# --- generation ------------------------------------------------------------------------------
def generate(seed: int, config: GeneratorConfig, work: Path) -> list[ThesisKey]:
    """Every thesis of the seed into ``work``: its sources, library, PDF, DOCX and key."""
    data = common.DATA_DIR
    documents = load_checkcovid(data / "checkcovid") + load_citint(data / "citint")
    filler = filler_sentences(data / "citint", {d.key for d in documents})
    composer = Composer(documents, filler, seed, config)
    keys = []
    for index in range(config.theses):
        built = composer.thesis(index)
        folder = work / built.key.id
        (folder / "sources").mkdir(parents=True, exist_ok=True)
        for name, pdf in built.sources.items():
            (folder / "sources" / name).write_bytes(pdf)
        (folder / built.key.library).write_text(built.library)
        layout = random_layout(f"{seed}/{built.key.id}")
        (folder / "thesis.pdf").write_bytes(render_thesis_pdf(built.styled, layout))
        (folder / "thesis.docx").write_bytes(render_thesis_docx(built.styled, layout))
        (folder / "key.json").write_bytes(msgspec.json.encode(built.key))
        keys.append(built.key)
        print(f"  generated {built.key.id} ({built.key.style}, {len(built.key.citations)} "
              f"citations, {len(built.key.entries)} entries)", flush=True)  # fmt: skip
    if composer.pool.rounds > 1:
        print(f"  note: documents were cited again ({composer.pool.rounds} rounds of the pool)")
    return keys


def load_keys(work: Path) -> list[ThesisKey]:
    return [
        msgspec.json.decode(path.read_bytes(), type=ThesisKey)
        for path in sorted(work.glob("*/key.json"))
    ]


# --- the stack ---------------------------------------------------------------------------------
def _new_token(url: str) -> str:
    async def make() -> str:
        conn = await asyncpg.connect(url)
        try:
            user = await create_user(conn, f"bench-findings-{uuid.uuid4().hex[:8]}")
            return (await create_token(conn, user, label="bench-findings"))[1]
        finally:
            await conn.close()

    return asyncio.run(make())


def _upload(http: httpx.Client, session: str, kind: str, paths: list[Path]) -> dict[str, str]:
    """file name -> document id; waits out 429s (admission caps)."""
    files = [
        ("files", (p.name, p.read_bytes(), MEDIA_TYPES.get(p.suffix, "application/octet-stream")))
        for p in paths
    ]
    deadline = time.monotonic() + UPLOAD_RETRY_LIMIT_S
    while True:
        response = http.post(f"/v1/sessions/{session}/documents", data={"kind": kind}, files=files)
        if response.status_code != 429 or time.monotonic() > deadline:
            break
        time.sleep(float(response.headers.get("Retry-After", "2")))
    if response.status_code != 202:
        raise RuntimeError(f"upload of {kind} failed: {response.status_code} {response.text}")
    return {d["filename"]: d["id"] for d in response.json()["documents"]}


def _submit(http: httpx.Client, work: Path, key: ThesisKey, fmt: str) -> str:
    folder = work / key.id
    response = http.post("/v1/sessions", json={"name": f"{key.id}-{fmt}"})
    response.raise_for_status()
    session = response.json()["id"]
    _upload(http, session, "source", sorted((folder / "sources").glob("*.pdf")))
    _upload(http, session, "bibliography", [folder / key.library])
    thesis = _upload(http, session, "thesis", [folder / f"thesis.{fmt}"])
    run = http.post(
        f"/v1/sessions/{session}/runs", json={"thesis_document_id": next(iter(thesis.values()))}
    )
    if run.status_code != 202:
        raise RuntimeError(f"run of {key.id} ({fmt}) refused: {run.status_code} {run.text}")
    return run.json()["run_id"]


def _wait(http: httpx.Client, runs: dict[tuple[str, str], str], timeout: float) -> dict:
    started = time.monotonic()
    last = 0.0
    statuses: dict[tuple[str, str], dict] = {}
    while True:
        for name, run_id in runs.items():
            if statuses.get(name, {}).get("status") in journey.TERMINAL:
                continue
            response = http.get(f"/v1/runs/{run_id}")
            if response.status_code == 200:
                statuses[name] = response.json()
        done = sum(1 for s in statuses.values() if s.get("status") in journey.TERMINAL)
        now = time.monotonic()
        if done == len(runs):
            return statuses
        if now - last >= PROGRESS_EVERY_S:
            last = now
            print(f"  [{now - started:6.0f} s] {done}/{len(runs)} runs finished", flush=True)
        if now - started > timeout:
            raise TimeoutError(f"{len(runs) - done} runs not finished in {timeout:.0f} s")
        time.sleep(POLL_EVERY_S)


def run_stack(
    work: Path, keys: list[ThesisKey], formats: tuple[str, ...], timeout: float
) -> tuple[dict[tuple[str, str], dict], dict[str, Any]]:
    """(thesis id, format) -> the run's JSON report; and how long it took."""
    log_dir = work / "logs"
    log_dir.mkdir(exist_ok=True)
    with common.fresh_postgres("citeproof-findings-") as url, LlmStub() as stub:
        asyncio.run(apply_migrations(url))
        token = _new_token(url)
        stack = DevStack(database_url=url, log_dir=log_dir, env={**STACK_ENV, **stub.judge_env()})
        began = time.monotonic()
        stack.start()
        try:
            stack.wait_ready()
            ready = time.monotonic() - began
            print(f"stack ready in {ready:.1f} s (logs in {log_dir})", flush=True)
            began = time.monotonic()
            with journey.client(stack.api_url, token, timeout=300.0) as http:
                runs = {(key.id, fmt): _submit(http, work, key, fmt) for key in keys
                        for fmt in formats}  # fmt: skip
                print(f"submitted {len(runs)} runs", flush=True)
                statuses = _wait(http, runs, timeout)
                reports = {}
                for name, run_id in runs.items():
                    response = http.get(f"/v1/runs/{run_id}/report", params={"format": "json"})
                    response.raise_for_status()
                    reports[name] = response.json()
            seconds = time.monotonic() - began
        finally:
            stack.stop()
    failed = sorted(f"{t}/{f}" for (t, f), s in statuses.items() if s.get("status") != "completed")
    timing = {"seconds_ready": round(ready, 1), "seconds_runs": round(seconds, 1),
              "runs": len(runs), "runs_not_completed": failed,
              "judge_stub_requests": stub.requests}  # fmt: skip
    return reports, timing


# --- scoring and output ------------------------------------------------------------------------
def score(
    keys: list[ThesisKey], reports: dict[tuple[str, str], dict], formats: tuple[str, ...]
) -> dict[str, Scores]:
    by_format = {fmt: Scores() for fmt in formats}
    for key in keys:
        for fmt in formats:
            report = reports.get((key.id, fmt))
            if report is not None:
                score_thesis(by_format[fmt], key, report)
    return by_format


def _holds(tally: Tally) -> bool | None:
    record = tally.record()
    recall, precision, alarms = record["recall"], record["precision"], record["false_alarm_rate"]
    if tally.rule.severity == ERROR:
        if recall is None:
            return None
        return (
            recall >= ERROR_RECALL
            and (precision or 0.0) >= ERROR_PRECISION
            and (alarms or 0.0) <= MAX_FALSE_ALARM_RATE
        )
    if tally.rule.severity == WARNING:
        if recall is None:
            return None
        return recall >= WARNING_RECALL and (precision or 0.0) >= WARNING_PRECISION
    return None


def print_tables(by_format: dict[str, Scores], seed: int, seconds: float) -> None:
    order = {ERROR: 0, WARNING: 1, INFO: 2}
    for fmt, scores in by_format.items():
        print(
            f"\nSeeded findings, {fmt.upper()} (seed {seed}, {scores.theses} theses, "
            f"{scores.citations} citations of which {scores.untouched_citations} untouched, "
            f"{scores.citations_matched} matched in the report; {scores.entries} entries, "
            f"{scores.entries_matched} matched; {seconds:.0f} s)"
        )
        header = ("rule", "severity", "injected", "detected", "recall", "flagged", "precision",
                  "untouched", "false al.", "FA rate", "bar")  # fmt: skip
        rows = [header]
        tallies = sorted(
            scores.tallies.values(), key=lambda t: (order[t.rule.severity], t.rule.code)
        )
        for tally in tallies:
            record = tally.record()
            holds = _holds(tally)
            rows.append((
                f"{tally.rule.code} {tally.rule.slug}", tally.rule.severity,
                str(record["injected"]), str(record["detected"]), _share(record["recall"]),
                str(record["flagged"]), _share(record["precision"]), str(record["untouched"]),
                str(record["false_alarms"]), _share(record["false_alarm_rate"]),
                "-" if holds is None else ("holds" if holds else "FAILS"),
            ))  # fmt: skip
        widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
        for row in rows:
            print("  ".join(
                cell.ljust(widths[i]) if i < 2 else cell.rjust(widths[i])
                for i, cell in enumerate(row)
            ))  # fmt: skip
        variations = scores.variations
        rate = variations.warnings / variations.cases if variations.cases else 0.0
        verdict = "holds" if not variations.errors and rate <= MAX_VARIATION_WARNINGS else "FAILS"
        print(f"normal variations: {variations.cases} cases, {variations.errors} with an error, "
              f"{variations.warnings} with a warning ({rate:.1%}) - {verdict}")  # fmt: skip


def _share(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def merge(sections: dict[str, Any]) -> Path:
    """Write these sections into bench/results/findings.json, keeping the others (real_text)."""
    path = common.RESULTS_DIR / f"{RESULTS_NAME}.json"
    data = json.loads(path.read_text()) if path.exists() else {}
    data.update(sections)
    return common.write_results(RESULTS_NAME, data)


def sections(
    by_format: dict[str, Scores],
    keys: list[ThesisKey],
    seed: int,
    config: GeneratorConfig,
    timing: dict[str, Any],
) -> dict[str, Any]:
    kinds: dict[str, int] = {}
    for key in keys:
        for item in (*key.citations, *key.entries):
            if item.kind:
                kinds[item.kind] = kinds.get(item.kind, 0) + 1
    variations = {fmt: s.variations.record() for fmt, s in by_format.items()}
    combined = {
        name: sum(v[name] for v in variations.values()) for name in ("cases", "errors", "warnings")
    }
    return {
        "seed": seed,
        "formats": {fmt: scores.rules() for fmt, scores in by_format.items()},
        "variations": {**combined, "by_format": variations},
        "details": {
            "method": __doc__.split("\n\n")[1].replace("\n", " "),
            "generator": msgspec.to_builtins(config),
            "theses": len(keys),
            "styles": {
                style: sum(1 for key in keys if key.style == style)
                for style in sorted({key.style for key in keys})
            },
            "injected_by_kind": {
                kind: kinds.get(kind, 0) for kind in (*CITATION_KINDS, *ENTRY_KINDS, VARIATION)
            },
            "stack": timing,
            "per_format": {
                fmt: {
                    "citations": s.citations,
                    "citations_matched": s.citations_matched,
                    "untouched_citations": s.untouched_citations,
                    "entries": s.entries,
                    "entries_matched": s.entries_matched,
                    "unmatched_report_citations": s.unmatched_report_citations,
                    "unmatched_report_entries": s.unmatched_report_entries,
                    "variations_by_variant": s.variations.by_variant,
                    "variation_failures": s.variations.failures,
                    "misses": {t.rule.slug: t.misses for t in s.tallies.values() if t.misses},
                    "false_alarms": {t.rule.slug: t.alarms for t in s.tallies.values() if t.alarms},
                }
                for fmt, s in by_format.items()
            },
        },
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--theses", type=int, default=GeneratorConfig().theses)
    parser.add_argument("--formats", default=",".join(FORMATS))
    parser.add_argument("--work", help="keep the theses, keys, logs and reports in this folder")
    parser.add_argument("--timeout", type=float, default=6 * 3600.0)
    parser.add_argument("--no-write", action="store_true", help="print only")
    parser.add_argument("--rescore", action="store_true",
                        help="score the reports kept in --work again (no stack run)")  # fmt: skip
    args = parser.parse_args()
    formats = tuple(f for f in args.formats.split(",") if f)
    if any(f not in FORMATS for f in formats):
        parser.error(f"--formats: choose from {', '.join(FORMATS)}")
    config = GeneratorConfig(theses=args.theses)
    config.validate()
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="citeproof-findings-"))
    work.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    try:
        reports_file = work / "reports.json"
        if args.rescore:
            keys = load_keys(work)
            saved = json.loads(reports_file.read_text())
            reports = {tuple(name.split("/")): report for name, report in saved["reports"].items()}
            timing = saved["timing"]
        else:
            print(f"generating {config.theses} theses (seed {args.seed}) in {work}", flush=True)
            keys = generate(args.seed, config, work)
            reports, timing = run_stack(work, keys, formats, args.timeout)
            if args.work:
                reports_file.write_text(json.dumps(
                    {"reports": {"/".join(n): r for n, r in reports.items()}, "timing": timing}
                ))  # fmt: skip
        by_format = score(keys, reports, formats)  # type: ignore[arg-type]
        seconds = time.monotonic() - started
        print_tables(by_format, args.seed, timing.get("seconds_runs", seconds))
        if not args.no_write:
            path = merge(sections(by_format, keys, args.seed, config, timing))
            print(f"wrote {path}")
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
