"""`make demo`: the whole stack on the embedded defaults verifies the sample thesis.

Starts the embedded PostgreSQL (or uses DATABASE_URL), the API and the three workers as
separate processes, creates a demo user, renders the sample thesis and its sources to PDF,
verifies them with `citeproof verify` over HTTP, prints a table of every citation next to the
verdict its author intended, writes the report as HTML, Markdown and JSON, and stops
everything it started.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
import uuid
from pathlib import Path

import asyncpg
import httpx

from citeproof.auth import create_token, create_user
from citeproof.cli import main as citeproof_cli
from citeproof.db.migrate import apply_migrations
from citeproof.db.pool import embedded_server, resolve_database_url
from citeproof.db.settings import DatabaseSettings
from citeproof.devstack import DevStack
from citeproof.settings import load

REPO_ROOT = Path(__file__).resolve().parents[1]
OUT_DIR = REPO_ROOT / "artifacts" / "demo"
STATE_DIR = REPO_ROOT / ".citeproof"


async def _demo_token(url: str) -> str:
    conn = await asyncpg.connect(url)
    try:
        user = await create_user(conn, f"demo-{uuid.uuid4().hex[:6]}")
        return (await create_token(conn, user, label="make demo"))[1]
    finally:
        await conn.close()


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
          "intended (the offline judge is a small classifier; see docs/judge.md).")  # fmt: skip


def main() -> int:
    started = time.monotonic()
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    url = resolve_database_url(load(DatabaseSettings))
    asyncio.run(apply_migrations(url))
    pdfs = _render_samples()
    print(f"rendered the sample thesis and {len(pdfs['sources'])} sources into {OUT_DIR / 'pdf'}")
    stack = DevStack(database_url=url, log_dir=STATE_DIR / "logs")
    try:
        stack.start()
        print("starting the API, parser, retriever and judge as separate processes …")
        stack.wait_ready()
        token = asyncio.run(_demo_token(url))
        json_report = OUT_DIR / "report.json"
        code = citeproof_cli(
            ["verify", pdfs["thesis"], *pdfs["sources"], "--out", str(json_report),
             "--api", stack.api_url, "--token", token]
        )  # fmt: skip
        if code == 2:
            print(f"verification failed; service logs are in {STATE_DIR / 'logs'}")
            return 1
        report = json.loads(json_report.read_text())
        run_id = report["run"]["id"]
        headers = {"Authorization": f"Bearer {token}"}
        with httpx.Client(base_url=stack.api_url, headers=headers, timeout=60) as http:
            for fmt, suffix in (("html", "html"), ("markdown", "md")):
                response = http.get(f"/v1/runs/{run_id}/report", params={"format": fmt})
                response.raise_for_status()
                (OUT_DIR / f"report.{suffix}").write_text(response.text, encoding="utf-8")
        _print_table(report, _expected_labels(pdfs["expected"]))
    finally:
        stack.stop()
        server = embedded_server()
        if server is not None and server.owner:
            server.stop()
    print(f"\nreport: {OUT_DIR / 'report.html'}  (also report.md, report.json)")
    print(f"demo finished in {time.monotonic() - started:.0f} s; everything it started is stopped.")
    print("To browse the web UI: `.venv/bin/citeproof dev`, then open http://127.0.0.1:8000")
    return 0


if __name__ == "__main__":
    sys.exit(main())
