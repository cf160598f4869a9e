"""The user's journey over HTTP (create a session, upload, run, wait, fetch the report): developer
tooling shared by the end-to-end and chaos tests and the accuracy benchmark."""

from __future__ import annotations

import time
from pathlib import Path

import httpx

TERMINAL = ("completed", "cancelled", "failed")


def client(base_url: str, token: str, timeout: float = 60.0) -> httpx.Client:
    return httpx.Client(
        base_url=base_url, headers={"Authorization": f"Bearer {token}"}, timeout=timeout
    )


def upload(http: httpx.Client, session_id: str, kind: str, paths: list[Path]) -> dict:
    files = [("files", (p.name, p.read_bytes(), "application/pdf")) for p in paths]
    response = http.post(f"/v1/sessions/{session_id}/documents", data={"kind": kind}, files=files)
    assert response.status_code == 202, response.text
    return response.json()


def submit_thesis(http: httpx.Client, thesis: Path, sources: list[Path], name: str) -> str:
    """Create a session, upload everything, start a run; returns the run id."""
    session = http.post("/v1/sessions", json={"name": name})
    assert session.status_code == 201, session.text
    session_id = session.json()["id"]
    thesis_doc = upload(http, session_id, "thesis", [thesis])["documents"][0]["id"]
    if sources:
        upload(http, session_id, "source", sources)
    run = http.post(f"/v1/sessions/{session_id}/runs", json={"thesis_document_id": thesis_doc})
    assert run.status_code == 202, run.text
    return run.json()["run_id"]


def wait_for_run(http: httpx.Client, run_id: str, timeout: float = 600.0) -> dict:
    deadline = time.monotonic() + timeout
    status: dict = {}
    while time.monotonic() < deadline:
        response = http.get(f"/v1/runs/{run_id}")
        if response.status_code == 200:
            status = response.json()
            if status["status"] in TERMINAL:
                return status
        time.sleep(1.0)
    raise AssertionError(f"run {run_id} not finished in {timeout}s; last status {status}")


def report(http: httpx.Client, run_id: str, fmt: str = "json") -> httpx.Response:
    return http.get(f"/v1/runs/{run_id}/report", params={"format": fmt})


def outcome(citation: dict) -> tuple[str | None, str]:
    """(label, rationale) of one report citation, whichever way the report carries it: the
    judge's verdict, or — for the pipeline's labels that are findings (source_missing, ...),
    which report v2 gives no verdict — the label its finding's rule stands for and the
    finding's message. (None, "") while the citation is not judged yet."""
    from citeproof.pipeline import LABEL_FINDINGS

    if citation.get("verdict"):
        return citation["verdict"]["label"], citation["verdict"]["rationale"]
    by_code = {rule.code: label for label, rule in LABEL_FINDINGS.items()}
    for finding in citation.get("findings", []):
        if finding["rule"] in by_code:
            return by_code[finding["rule"]], finding["message"]
    return None, ""
