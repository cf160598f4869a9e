"""Load: N concurrent clients upload, poll and fetch reports against the local stack.

Each client is its own user (own token) and loops for a bounded time: create a session,
upload the sample thesis and its sources, start a run, poll its status every 1.5 s (as the web
UI's fallback does) and fetch the JSON report when it completes. Every API request's latency is
recorded; any 5xx, transport error or unexpected status counts as an error.

Baseline, measured in the same run: one client alone. Writes bench/results/load.json.

    python -m bench.load [--clients 20] [--seconds 120]
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import httpx

from bench import common
from citeproof.auth import create_token, create_user
from citeproof.db.migrate import apply_migrations
from citeproof.devstack import DevStack

REPO_ROOT = Path(__file__).resolve().parents[1]

POLL_INTERVAL_S = 1.5
RUN_TIMEOUT_S = 600.0
EXPECTED = {200, 201, 202, 204}


class Recorder:
    def __init__(self) -> None:
        self.latencies_ms: list[float] = []
        self.errors: list[str] = []
        self.completed_runs = 0
        self._lock = threading.Lock()

    def request(self, http: httpx.Client, method: str, url: str, **kwargs) -> httpx.Response | None:
        started = time.perf_counter()
        try:
            response = http.request(method, url, **kwargs)
        except httpx.HTTPError as exc:
            with self._lock:
                self.errors.append(f"{method} {url}: {type(exc).__name__}")
            return None
        elapsed = (time.perf_counter() - started) * 1000
        with self._lock:
            self.latencies_ms.append(elapsed)
            if response.status_code not in EXPECTED:
                self.errors.append(f"{method} {url}: {response.status_code} {response.text[:120]}")
        return response


def client_loop(base_url: str, token: str, pdfs: dict, deadline: float, rec: Recorder) -> None:
    thesis = Path(pdfs["thesis"])
    sources = [Path(p) for p in pdfs["sources"]]
    headers = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=base_url, headers=headers, timeout=60) as http:
        while time.monotonic() < deadline:
            session = rec.request(http, "POST", "/v1/sessions", json={"name": "load"})
            if session is None or session.status_code != 201:
                return
            sid = session.json()["id"]
            up = rec.request(
                http, "POST", f"/v1/sessions/{sid}/documents", data={"kind": "thesis"},
                files=[("files", (thesis.name, thesis.read_bytes(), "application/pdf"))],
            )  # fmt: skip
            rec.request(
                http, "POST", f"/v1/sessions/{sid}/documents", data={"kind": "source"},
                files=[("files", (p.name, p.read_bytes(), "application/pdf")) for p in sources],
            )  # fmt: skip
            if up is None or up.status_code != 202:
                return
            doc = up.json()["documents"][0]["id"]
            run = rec.request(
                http, "POST", f"/v1/sessions/{sid}/runs", json={"thesis_document_id": doc}
            )
            if run is None or run.status_code != 202:
                return
            run_id = run.json()["run_id"]
            run_deadline = time.monotonic() + RUN_TIMEOUT_S
            while time.monotonic() < run_deadline:
                status = rec.request(http, "GET", f"/v1/runs/{run_id}")
                if status is not None and status.status_code == 200:
                    if status.json()["status"] in ("completed", "failed", "cancelled"):
                        break
                time.sleep(POLL_INTERVAL_S)
            report = rec.request(http, "GET", f"/v1/runs/{run_id}/report",
                                 params={"format": "json"})  # fmt: skip
            if report is not None and report.status_code == 200:
                with rec._lock:
                    rec.completed_runs += 1


async def make_tokens(url: str, count: int) -> list[str]:
    import asyncpg

    conn = await asyncpg.connect(url)
    try:
        tokens = []
        for _ in range(count):
            user = await create_user(conn, f"load-{uuid.uuid4().hex[:8]}")
            tokens.append((await create_token(conn, user))[1])
        return tokens
    finally:
        await conn.close()


def phase(stack: DevStack, url: str, pdfs: dict, clients: int, seconds: float) -> dict:
    tokens = asyncio.run(make_tokens(url, clients))
    rec = Recorder()
    started = time.monotonic()
    deadline = started + seconds
    threads = [
        threading.Thread(target=client_loop, args=(stack.api_url, t, pdfs, deadline, rec))
        for t in tokens
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    minutes = (time.monotonic() - started) / 60
    return {
        "clients": clients,
        "requests": len(rec.latencies_ms),
        "errors": len(rec.errors),
        "error_samples": rec.errors[:5],
        "p50_ms": round(common.percentile(rec.latencies_ms, 50), 1),
        "p99_ms": round(common.percentile(rec.latencies_ms, 99), 1),
        "completed_runs": rec.completed_runs,
        "runs_per_minute": round(rec.completed_runs / minutes, 2) if minutes else 0.0,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--baseline-seconds", type=float, default=40.0)
    args = parser.parse_args()

    out = Path(common.RESULTS_DIR.parent / ".load-pdfs")
    import json

    pdfs = json.loads(subprocess.run(
        [sys.executable, str(REPO_ROOT / "samples" / "build.py"), str(out), "--json"],
        capture_output=True, text=True, check=True,
    ).stdout)  # fmt: skip
    with common.fresh_postgres("citeproof-load-") as url:
        asyncio.run(apply_migrations(url))
        # Rate limits are per user and sized for people, not for this test's loop; the
        # admission caps stay on.
        env = {
            "CITEPROOF_API_RATE_LIMIT_REQUESTS": "100000",
            "CITEPROOF_API_RATE_LIMIT_UPLOADS": "100000",
        }
        with DevStack(database_url=url, env=env) as stack:
            stack.start()
            stack.wait_ready()
            baseline = phase(stack, url, pdfs, 1, args.baseline_seconds)
            loaded = phase(stack, url, pdfs, args.clients, args.seconds)
    rows = {"1 client": baseline, f"{args.clients} clients": loaded}
    common.print_table(
        rows,
        [common.Column("p50_ms", "p50 ms"), common.Column("p99_ms", "p99 ms"),
         common.Column("runs_per_minute", "runs/min", 2), common.Column("errors", "errors", 0)],
        baseline="1 client",
        title="API under load (same stack, same run)",
    )  # fmt: skip
    result = {**loaded, "baseline_one_client": baseline, "seconds": args.seconds}
    path = common.write_results("load", result)
    print(f"wrote {path}")
    return 0 if loaded["errors"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
