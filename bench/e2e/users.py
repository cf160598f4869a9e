"""K users at once, each through the public API as a person would: a session, their sources,
their thesis, a run, progress polled until it ends, the report fetched. The time to report is
taken from the first upload request to the report in hand."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Final

import httpx

from bench.e2e.work import ThesisWork

TERMINAL_STATUSES: Final = ("completed", "failed", "cancelled")
# Files per upload request (the API's default cap is 100).
UPLOAD_BATCH: Final = 100
# Between two status polls of one user's run: well inside the per-user rate limit.
POLL_EVERY_S: Final = 1.0
# 429 (admission cap or rate limit) is waited out this long at most.
RETRY_LIMIT_S: Final = 600.0
REQUEST_TIMEOUT_S: Final = 120.0


@dataclass(frozen=True)
class UserResult:
    thesis: int
    run_id: str
    status: str
    citations_reported: int
    seconds_to_report: float


async def _send(http: httpx.AsyncClient, method: str, url: str, **kwargs) -> httpx.Response:
    """A request that waits out 429s (they carry Retry-After)."""
    deadline = time.monotonic() + RETRY_LIMIT_S
    while True:
        response = await http.request(method, url, **kwargs)
        if response.status_code != 429 or time.monotonic() > deadline:
            return response
        await asyncio.sleep(float(response.headers.get("Retry-After", "1")))


async def _upload(http: httpx.AsyncClient, session_id: str, kind: str, paths) -> list[str]:
    ids = []
    for start in range(0, len(paths), UPLOAD_BATCH):
        files = [
            ("files", (p.name, p.read_bytes(), "application/pdf"))
            for p in paths[start : start + UPLOAD_BATCH]
        ]
        response = await _send(
            http, "POST", f"/v1/sessions/{session_id}/documents", data={"kind": kind}, files=files
        )
        if response.status_code != 202:
            raise RuntimeError(f"upload of {kind}s: {response.status_code} {response.text}")
        ids.extend(d["id"] for d in response.json()["documents"])
    return ids


async def one_user(api_url: str, token: str, work: ThesisWork, timeout_s: float) -> UserResult:
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(
        base_url=api_url, headers=headers, timeout=REQUEST_TIMEOUT_S
    ) as http:
        began = time.monotonic()
        session = await _send(http, "POST", "/v1/sessions", json={"name": f"e2e-{work.number}"})
        session.raise_for_status()
        session_id = session.json()["id"]
        await _upload(http, session_id, "source", list(work.sources))
        (thesis_id,) = await _upload(http, session_id, "thesis", [work.thesis])
        run = await _send(
            http, "POST", f"/v1/sessions/{session_id}/runs", json={"thesis_document_id": thesis_id}
        )
        if run.status_code != 202:
            raise RuntimeError(f"run refused: {run.status_code} {run.text}")
        run_id = run.json()["run_id"]
        status: dict = {}
        while time.monotonic() - began < timeout_s:
            response = await _send(http, "GET", f"/v1/runs/{run_id}")
            if response.status_code == 200:
                status = response.json()
                if status.get("status") in TERMINAL_STATUSES:
                    break
            await asyncio.sleep(POLL_EVERY_S)
        else:
            raise TimeoutError(f"thesis {work.number}: run not finished in {timeout_s:.0f} s")
        report = await _send(http, "GET", f"/v1/runs/{run_id}/report", params={"format": "json"})
        report.raise_for_status()
        seconds = time.monotonic() - began
    return UserResult(
        thesis=work.number,
        run_id=run_id,
        status=status["status"],
        citations_reported=len(report.json().get("citations", [])),
        seconds_to_report=seconds,
    )


async def all_users(
    api_url: str, tokens: list[str], work: list[ThesisWork], timeout_s: float
) -> list[UserResult]:
    """Every user starts at the same moment."""
    return list(
        await asyncio.gather(
            *(one_user(api_url, t, w, timeout_s) for t, w in zip(tokens, work, strict=True))
        )
    )
