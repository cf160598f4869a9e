"""`citeproof verify THESIS SOURCES...`: check a thesis's citations through the API.

Creates a session, uploads the thesis and its sources, starts a run, shows progress on
stderr, writes the report (format from the --out extension) and prints a summary. The exit
code makes it usable in CI: 0 nothing contradicted or unsupported, 1 problems found, 2 error.
"""

from __future__ import annotations

import argparse
import json
import mimetypes
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

from citeproof.pipeline import CONTRADICTED, UNSUPPORTED

DEFAULT_API_URL = "http://127.0.0.1:8000"
API_URL_ENV = "CITEPROOF_API_URL"
TOKEN_ENV = "CITEPROOF_TOKEN"
DEFAULT_OUT = "citeproof-report.html"
DEFAULT_TIMEOUT_S = 1800.0
# The web UI polls at the same pace; the API's rate limit allows it comfortably.
POLL_INTERVAL_S = 1.5
# Sources go up in batches well below the API's per-user staged-bytes cap.
UPLOAD_BATCH_BYTES = 60 * 1024 * 1024
BAR_WIDTH = 24

EXIT_CLEAN, EXIT_PROBLEMS, EXIT_ERROR = 0, 1, 2
PROBLEM_LABELS = (CONTRADICTED, UNSUPPORTED)
TERMINAL = ("completed", "cancelled", "failed")
REPORT_FORMATS = {".html": "html", ".htm": "html", ".md": "markdown", ".json": "json"}
# Refusals that clear up by themselves once earlier uploads are parsed.
RETRYABLE_CODES = ("too_many_active_jobs", "staged_bytes_limit", "rate_limited")
MAX_UPLOAD_RETRIES = 60


class VerifyError(Exception):
    pass


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "verify",
        help="verify a thesis's citations against its sources (exit 1 if any is "
        "contradicted or unsupported)",
    )
    parser.add_argument("thesis", type=Path, help="the thesis (PDF, DOCX, Markdown, HTML, text)")
    parser.add_argument("sources", type=Path, nargs="*", help="PDFs of the cited sources")
    parser.add_argument(
        "--out", type=Path, default=Path(DEFAULT_OUT), help="report file (.html, .md or .json)"
    )
    parser.add_argument(
        "--api", default=None, help=f"API base URL (default ${API_URL_ENV} or {DEFAULT_API_URL})"
    )
    parser.add_argument("--token", default=None, help=f"API token (default ${TOKEN_ENV})")
    parser.add_argument(
        "--timeout", type=float, default=DEFAULT_TIMEOUT_S, help="give up after this many s"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    api = (args.api or os.environ.get(API_URL_ENV) or DEFAULT_API_URL).rstrip("/")
    token = args.token or os.environ.get(TOKEN_ENV)
    if not token:
        return _fail(f"no API token: pass --token or set {TOKEN_ENV} "
                     "(create one with `citeproof tokens create --user NAME`)")  # fmt: skip
    report_format = REPORT_FORMATS.get(args.out.suffix.lower())
    if report_format is None:
        return _fail(f"--out must end in {', '.join(REPORT_FORMATS)}")
    for path in [args.thesis, *args.sources]:
        if not path.is_file():
            return _fail(f"{path}: no such file")
    headers = {"Authorization": f"Bearer {token}"}
    try:
        with httpx.Client(base_url=api, headers=headers, timeout=120.0) as client:
            return _verify(client, args, report_format)
    except VerifyError as exc:
        return _fail(str(exc))
    except httpx.HTTPError as exc:
        return _fail(f"cannot reach the API at {api}: {exc}")


def _fail(message: str) -> int:
    print(f"citeproof verify: error: {message}", file=sys.stderr)
    return EXIT_ERROR


def _check(response: httpx.Response) -> Any:
    if response.status_code < 400:
        return response.json() if response.content else None
    try:
        body = response.json()
        message = f"{body['code']}: {body['detail']}"
    except (ValueError, KeyError, TypeError):
        message = f"HTTP {response.status_code}"
    raise VerifyError(message)


def _verify(client: httpx.Client, args: argparse.Namespace, report_format: str) -> int:
    me = _check(client.get("/v1/me"))
    session = _check(client.post("/v1/sessions", json={"name": args.thesis.name}))
    _status(f"signed in as {me['name']}; session {session['id']}")
    thesis_docs = _upload(client, session["id"], "thesis", [args.thesis])
    for batch in _batches(args.sources):
        _upload(client, session["id"], "source", batch)
    run_id = _check(
        client.post(
            f"/v1/sessions/{session['id']}/runs",
            json={"thesis_document_id": thesis_docs[0]["id"]},
        )
    )["run_id"]
    _status(f"run {run_id} started")
    try:
        status = _wait(client, run_id, args.timeout)
    except (KeyboardInterrupt, VerifyError) as exc:
        # Nobody will read this run's report: free the workers for other work.
        client.post(f"/v1/runs/{run_id}/cancel")
        reason = "interrupted" if isinstance(exc, KeyboardInterrupt) else str(exc)
        raise VerifyError(f"{reason}; run {run_id} cancelled") from None
    if status["status"] != "completed":
        raise VerifyError(f"run {run_id} {status['status']}: {status.get('message') or ''}")
    report = _check(client.get(f"/v1/runs/{run_id}/report", params={"format": "json"}))
    _write_report(client, run_id, report_format, report, args.out)
    problems = _print_summary(report)
    print(f"\nreport: {args.out.resolve()}")
    return EXIT_PROBLEMS if problems else EXIT_CLEAN


def _batches(paths: list[Path]) -> Iterator[list[Path]]:
    batch: list[Path] = []
    size = 0
    for path in paths:
        file_size = path.stat().st_size
        if batch and size + file_size > UPLOAD_BATCH_BYTES:
            yield batch
            batch, size = [], 0
        batch.append(path)
        size += file_size
    if batch:
        yield batch


def _upload(client: httpx.Client, session_id: str, kind: str, paths: list[Path]) -> list[dict]:
    files = [("files", (p.name, p.read_bytes(), _content_type(p))) for p in paths]
    for _ in range(MAX_UPLOAD_RETRIES):
        response = client.post(
            f"/v1/sessions/{session_id}/documents", files=files, data={"kind": kind}
        )
        # Only refusals that name a wait are worth retrying (an upload larger than the cap
        # itself is refused without Retry-After).
        retryable = _code(response) in RETRYABLE_CODES and "Retry-After" in response.headers
        if response.status_code in (413, 429) and retryable:
            retry_after = int(response.headers.get("Retry-After", "10"))
            _status(f"the API asks to wait ({_code(response)}); retrying in {retry_after} s")
            time.sleep(retry_after)
            continue
        body = _check(response)
        _status(f"uploaded {len(paths)} {kind} file(s)")
        return body["documents"]
    return _check(response)["documents"]  # still refused: raises with the API's reason


def _content_type(path: Path) -> str:
    return mimetypes.guess_type(path.name)[0] or "application/octet-stream"


def _status(message: str) -> None:
    print(message, file=sys.stderr)


def _code(response: httpx.Response) -> str:
    try:
        return str(response.json().get("code", ""))
    except ValueError:
        return ""


def _wait(client: httpx.Client, run_id: str, timeout_s: float) -> dict:
    deadline = time.monotonic() + timeout_s
    last_line = ""
    tty = sys.stderr.isatty()
    while True:
        response = client.get(f"/v1/runs/{run_id}")
        if response.status_code == 429:
            time.sleep(int(response.headers.get("Retry-After", "5")))
            continue
        status = _check(response)
        line = _progress_line(status)
        if line != last_line:
            # On a terminal the bar redraws in place; in CI logs each change is one line.
            sys.stderr.write(("\r\033[K" if tty else "") + line + ("" if tty else "\n"))
            sys.stderr.flush()
            last_line = line
        if status["status"] in TERMINAL:
            if tty:
                sys.stderr.write("\n")
            return status
        if time.monotonic() > deadline:
            raise VerifyError(f"run {run_id} did not finish within {timeout_s:.0f} s")
        time.sleep(POLL_INTERVAL_S)


def _progress_line(status: dict) -> str:
    progress = status["progress"]
    # Each stage is a third of the bar, so the bar never moves back when a later stage
    # learns its total (retrieve/judge totals are known only once the run is planned).
    fraction = sum(
        min(1.0, p["done"] / p["total"]) if p["total"] else 0.0 for p in progress.values()
    ) / len(progress)
    if status["status"] == "completed":
        fraction = 1.0
    filled = round(BAR_WIDTH * fraction)
    stages = "  ".join(f"{name} {p['done']}/{p['total']}" for name, p in progress.items())
    line = f"[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {status['status']:<21} {stages}"
    if status.get("waiting_for"):
        line += f"  (waiting for: {', '.join(status['waiting_for'])})"
    return line


def _write_report(
    client: httpx.Client, run_id: str, report_format: str, report: dict, out: Path
) -> None:
    if report_format == "json":
        out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        return
    response = client.get(f"/v1/runs/{run_id}/report", params={"format": report_format})
    if response.status_code >= 400:
        _check(response)
    out.write_text(response.text, encoding="utf-8")


def _print_summary(report: dict) -> int:
    counts = report["summary"]["counts"]
    width = max(len(label) for label in counts) if counts else 10
    print(f"\n{report['thesis']['title'] or report['thesis']['filename']}")
    print(f"{'verdict':<{width}}  citations")
    print(f"{'-' * width}  ---------")
    for label, n in counts.items():
        if n:
            print(f"{label:<{width}}  {n:>9}")
    print(f"{'total':<{width}}  {report['summary']['total']:>9}")
    problems = [
        c for c in report["citations"] if c["verdict"] and c["verdict"]["label"] in PROBLEM_LABELS
    ]
    if problems:
        print("\nneeds attention:")
        for c in problems:
            claim = " ".join(c["claim"].split())
            claim = claim if len(claim) <= 90 else claim[:89] + "…"
            page = f"p.{c['page']} " if c["page"] is not None else ""
            print(f"  {c['verdict']['label']:<13} {c['marker']:<12} {page}{claim}")
    return len(problems)
