"""Drive the benchmark's PDFs through the whole running stack, as a user would.

A fresh embedded PostgreSQL, the four services as OS processes (`DevStack`, configured like a
default deployment: local judge, local embeddings), a user with an API token, then over HTTP:
one session, the sources uploaded, the theses uploaded, one run per thesis, progress polled until
every run ends, the JSON reports fetched. What the report does not show (the passages each
citation was judged on) is read from the database before it is destroyed, for the diagnosis.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from pathlib import Path
from typing import Final

import asyncpg
import httpx
import msgspec

from bench import common
from citeproof.auth import create_token, create_user
from citeproof.db.migrate import apply_migrations
from citeproof.devkit import journey  # the user's HTTP journey, shared with the e2e tests
from citeproof.devstack import DevStack

# Files per upload request (the API's default cap is 100).
UPLOAD_BATCH: Final = 100
# How long a 429 (admission cap) is waited out before the upload is retried, at most.
UPLOAD_RETRY_LIMIT_S: Final = 300.0
PROGRESS_EVERY_S: Final = 10.0
# Seconds between two status polls of all runs: the API allows 120 requests a minute per user.
POLL_EVERY_S: Final = 3.0
# Faster polling than the 2 s default: the benchmark measures accuracy, and idle workers
# waiting for a timer would only add wall time.
STACK_ENV: Final = {"CITEPROOF_POLL_INTERVAL_S": "0.5", "CITEPROOF_DRAIN_GRACE_S": "10"}

EVIDENCE_SQL: Final = """
SELECT citation_id, rank, page, text, vector_score, bm25_score, fused_score
FROM evidence WHERE run_id = ANY($1::uuid[]) ORDER BY citation_id, rank
"""
VERDICT_DETAIL_SQL: Final = """
SELECT citation_id, downgraded_from, downgrade_reason FROM verdicts WHERE run_id = ANY($1::uuid[])
"""


class Passage(msgspec.Struct, frozen=True):
    rank: int
    page: int | None
    text: str
    vector_score: float | None
    bm25_score: float | None
    fused_score: float


class StackOutcome(msgspec.Struct, frozen=True):
    reports: dict[str, dict]
    """Thesis file name -> the run's JSON report."""
    statuses: dict[str, dict]
    """Thesis file name -> the run's final status."""
    evidence: dict[int, list[Passage]]
    """citation_id -> the passages the judge saw."""
    downgrades: dict[int, str | None]
    """citation_id -> the label a verdict was downgraded from (quote not verifiable), if any."""
    seconds_ready: float
    seconds_runs: float


def _new_token(url: str) -> str:
    async def make() -> str:
        conn = await asyncpg.connect(url)
        try:
            user = await create_user(conn, f"bench-accuracy-{uuid.uuid4().hex[:8]}")
            return (await create_token(conn, user, label="bench-accuracy"))[1]
        finally:
            await conn.close()

    return asyncio.run(make())


def _upload(http: httpx.Client, session_id: str, kind: str, paths: list[Path]) -> dict[str, str]:
    """filename -> document id; waits out 429 admission caps (3 active parse jobs per user)."""
    ids: dict[str, str] = {}
    for start in range(0, len(paths), UPLOAD_BATCH):
        batch = paths[start : start + UPLOAD_BATCH]
        files = [("files", (p.name, p.read_bytes(), "application/pdf")) for p in batch]
        deadline = time.monotonic() + UPLOAD_RETRY_LIMIT_S
        while True:
            response = http.post(
                f"/v1/sessions/{session_id}/documents", data={"kind": kind}, files=files
            )
            if response.status_code != 429 or time.monotonic() > deadline:
                break
            time.sleep(float(response.headers.get("Retry-After", "2")))
        if response.status_code != 202:
            raise RuntimeError(f"upload of {kind}s failed: {response.status_code} {response.text}")
        ids.update({d["filename"]: d["id"] for d in response.json()["documents"]})
    return ids


def _get(http: httpx.Client, url: str, **params: str) -> httpx.Response:
    """GET that waits out the API's per-user rate limit (429 with Retry-After)."""
    deadline = time.monotonic() + UPLOAD_RETRY_LIMIT_S
    while True:
        response = http.get(url, params=params)
        if response.status_code != 429 or time.monotonic() > deadline:
            return response
        time.sleep(float(response.headers.get("Retry-After", "2")))


def _start_runs(http: httpx.Client, session_id: str, thesis_ids: dict[str, str]) -> dict[str, str]:
    runs = {}
    for filename, document_id in thesis_ids.items():
        response = http.post(
            f"/v1/sessions/{session_id}/runs", json={"thesis_document_id": document_id}
        )
        if response.status_code != 202:
            raise RuntimeError(
                f"run for {filename} refused: {response.status_code} {response.text}"
            )
        runs[filename] = response.json()["run_id"]
    return runs


def _wait(http: httpx.Client, runs: dict[str, str], timeout: float) -> dict[str, dict]:
    deadline = time.monotonic() + timeout
    started = time.monotonic()
    last_print = 0.0
    statuses: dict[str, dict] = {}
    while True:
        for filename, run_id in runs.items():
            response = _get(http, f"/v1/runs/{run_id}")
            if response.status_code == 200:
                statuses[filename] = response.json()
        finished = all(s.get("status") in journey.TERMINAL for s in statuses.values())
        now = time.monotonic()
        if finished and len(statuses) == len(runs):
            return statuses
        if now - last_print >= PROGRESS_EVERY_S:
            last_print = now
            print(f"  [{now - started:5.0f} s] " + _progress_line(statuses), flush=True)
        if now > deadline:
            raise TimeoutError(f"runs not finished in {timeout:.0f} s: {_progress_line(statuses)}")
        time.sleep(POLL_EVERY_S)


def _progress_line(statuses: dict[str, dict]) -> str:
    def stage(status: dict, name: str) -> int:
        return status.get("progress", {}).get(name, {}).get("done", 0)

    def total(status: dict, name: str) -> int:
        return status.get("progress", {}).get(name, {}).get("total", 0)

    parts = []
    for filename, s in sorted(statuses.items()):
        parts.append(
            f"{Path(filename).stem}: {s.get('status')} parse {stage(s, 'parse')}/"
            f"{total(s, 'parse')} retrieve {stage(s, 'retrieve')}/{total(s, 'retrieve')} "
            f"judge {stage(s, 'judge')}/{total(s, 'judge')}"
        )
    return "; ".join(parts)


async def _read_details(url: str, run_ids: list[str]) -> tuple[dict, dict]:
    conn = await asyncpg.connect(url)
    try:
        evidence: dict[int, list[Passage]] = {}
        for row in await conn.fetch(EVIDENCE_SQL, run_ids):
            evidence.setdefault(row["citation_id"], []).append(
                Passage(
                    rank=row["rank"],
                    page=row["page"],
                    text=row["text"],
                    vector_score=row["vector_score"],
                    bm25_score=row["bm25_score"],
                    fused_score=row["fused_score"],
                )
            )
        downgrades = {
            row["citation_id"]: row["downgraded_from"]
            for row in await conn.fetch(VERDICT_DETAIL_SQL, run_ids)
        }
        return evidence, downgrades
    finally:
        await conn.close()


def run_through_stack(
    theses: list[Path], sources: list[Path], *, log_dir: Path, timeout: float
) -> StackOutcome:
    with common.fresh_postgres("citeproof-accuracy-") as url:
        asyncio.run(apply_migrations(url))
        token = _new_token(url)
        stack = DevStack(database_url=url, log_dir=log_dir, env=dict(STACK_ENV))
        began = time.monotonic()
        stack.start()
        try:
            stack.wait_ready()
            ready = time.monotonic() - began
            print(f"stack ready in {ready:.1f} s (logs in {log_dir})", flush=True)
            began = time.monotonic()
            with journey.client(stack.api_url, token, timeout=120.0) as http:
                session = http.post("/v1/sessions", json={"name": "bench-accuracy"})
                session.raise_for_status()
                session_id = session.json()["id"]
                _upload(http, session_id, "source", sources)
                thesis_ids = _upload(http, session_id, "thesis", theses)
                print(f"uploaded {len(sources)} sources and {len(theses)} theses", flush=True)
                runs = _start_runs(http, session_id, thesis_ids)
                statuses = _wait(http, runs, timeout)
                reports = {}
                for filename, run_id in runs.items():
                    response = _get(http, f"/v1/runs/{run_id}/report", format="json")
                    response.raise_for_status()
                    reports[filename] = response.json()
            seconds_runs = time.monotonic() - began
            evidence, downgrades = asyncio.run(_read_details(url, list(runs.values())))
        finally:
            stack.stop()
    return StackOutcome(
        reports=reports,
        statuses=statuses,
        evidence=evidence,
        downgrades=downgrades,
        seconds_ready=ready,
        seconds_runs=seconds_runs,
    )
