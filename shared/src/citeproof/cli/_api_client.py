"""The HTTP calls `citeproof check` makes: upload, start a run, poll it, fetch its report.

The same client talks to a deployed API (`--api URL --token T`) and to the API that
`citeproof check` starts for itself; nothing here knows which.
"""

from __future__ import annotations

import mimetypes
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx

# The web UI polls at the same pace; the API's rate limit allows it comfortably.
POLL_INTERVAL_S = 1.5
# Sources go up in batches well below the API's per-user staged-bytes cap.
UPLOAD_BATCH_BYTES = 60 * 1024 * 1024
REQUEST_TIMEOUT_S = 120.0
# Refusals that clear up by themselves once earlier uploads are parsed.
RETRYABLE_CODES = ("too_many_active_jobs", "staged_bytes_limit", "rate_limited")
MAX_UPLOAD_RETRIES = 60
DEFAULT_RETRY_AFTER_S = 10
RUN_COMPLETED = "completed"
TERMINAL_STATUSES = (RUN_COMPLETED, "cancelled", "failed")
# Report formats the API renders itself (the others are built from its JSON).
API_RENDERED_FORMATS = {"html": "html", "md": "markdown"}


class ApiError(Exception):
    """The API refused or failed; the message is the API's code and sentence."""


def api_error_message(response: httpx.Response) -> str:
    try:
        body = response.json()
        return f"{body['code']}: {body['detail']}"
    except (ValueError, KeyError, TypeError):
        return f"HTTP {response.status_code}"


def _code(response: httpx.Response) -> str:
    try:
        return str(response.json().get("code", ""))
    except (ValueError, AttributeError):
        return ""


def _checked(response: httpx.Response) -> Any:
    if response.status_code < 400:
        return response.json() if response.content else None
    raise ApiError(api_error_message(response))


def _content_type(path: Path) -> str:
    return mimetypes.guess_type(path.name)[0] or "application/octet-stream"


def batches(paths: list[Path], limit: int = UPLOAD_BATCH_BYTES) -> Iterator[list[Path]]:
    batch: list[Path] = []
    size = 0
    for path in paths:
        file_size = path.stat().st_size
        if batch and size + file_size > limit:
            yield batch
            batch, size = [], 0
        batch.append(path)
        size += file_size
    if batch:
        yield batch


class ApiClient:
    def __init__(self, base_url: str, token: str, status: Callable[[str], None]) -> None:
        self._http = httpx.Client(
            base_url=base_url.rstrip("/"),
            headers={"Authorization": f"Bearer {token}"},
            timeout=REQUEST_TIMEOUT_S,
        )
        self._status = status
        # The run this client started and has not seen finish: cancelled on interruption.
        self.active_run: str | None = None

    def close(self) -> None:
        self._http.close()

    def me(self) -> dict:
        return _checked(self._http.get("/v1/me"))

    def set_open_access(self, enabled: bool) -> dict:
        """The account's open-access lookup switch; returns the caller's preferences."""
        return _checked(
            self._http.patch("/v1/me/preferences", json={"open_access_lookup": enabled})
        )

    def set_verify_references(self, enabled: bool) -> dict:
        """The account's reference-verification switch; returns the caller's preferences."""
        return _checked(self._http.patch("/v1/me/preferences", json={"verify_references": enabled}))

    def create_session(self, name: str) -> str:
        return _checked(self._http.post("/v1/sessions", json={"name": name}))["id"]

    def upload(self, session_id: str, kind: str, paths: list[Path]) -> list[dict]:
        documents: list[dict] = []
        for batch in batches(paths):
            documents += self._upload_batch(session_id, kind, batch)
        return documents

    def _upload_batch(self, session_id: str, kind: str, paths: list[Path]) -> list[dict]:
        files = [("files", (p.name, p.read_bytes(), _content_type(p))) for p in paths]
        for _ in range(MAX_UPLOAD_RETRIES):
            response = self._http.post(
                f"/v1/sessions/{session_id}/documents", files=files, data={"kind": kind}
            )
            # Only refusals that name a wait are worth retrying (an upload larger than the cap
            # itself is refused without Retry-After).
            retryable = _code(response) in RETRYABLE_CODES and "Retry-After" in response.headers
            if response.status_code in (413, 429) and retryable:
                wait = int(response.headers.get("Retry-After", DEFAULT_RETRY_AFTER_S))
                self._status(f"the API asks to wait ({_code(response)}); retrying in {wait} s")
                time.sleep(wait)
                continue
            body = _checked(response)
            self._status(f"uploaded {len(paths)} {kind} file(s)")
            return body["documents"]
        return _checked(response)["documents"]  # still refused: raises with the API's reason

    def start_run(self, session_id: str, thesis_document_id: str) -> str:
        body = _checked(
            self._http.post(
                f"/v1/sessions/{session_id}/runs",
                json={"thesis_document_id": thesis_document_id},
            )
        )
        self.active_run = body["run_id"]
        return body["run_id"]

    def wait(self, run_id: str, timeout_s: float, on_progress: Callable[[dict], None]) -> dict:
        """Poll until the run ends; `on_progress` sees every status."""
        deadline = time.monotonic() + timeout_s
        while True:
            response = self._http.get(f"/v1/runs/{run_id}")
            if response.status_code == 429:
                time.sleep(int(response.headers.get("Retry-After", "5")))
                continue
            status = _checked(response)
            on_progress(status)
            if status["status"] in TERMINAL_STATUSES:
                self.active_run = None
                return status
            if time.monotonic() > deadline:
                raise ApiError(f"run {run_id} did not finish within {timeout_s:.0f} s")
            time.sleep(POLL_INTERVAL_S)

    def cancel_active_run(self) -> str | None:
        """Nobody will read an abandoned run's report: free the workers for other work."""
        run_id, self.active_run = self.active_run, None
        if run_id is not None:
            try:
                self._http.post(f"/v1/runs/{run_id}/cancel", timeout=10)
            except httpx.HTTPError:
                return None
        return run_id

    def report(self, run_id: str, rules: list[tuple[str, str]] | None = None) -> dict:
        """The JSON report; `rules` are the rule overrides' query parameters (disable=,
        level=), so the API's counts and headline honour them."""
        params: list[tuple[str, str | int | float | bool | None]] = [("format", "json")]
        params += rules or []
        return _checked(self._http.get(f"/v1/runs/{run_id}/report", params=params))

    def rendered_report(
        self, run_id: str, fmt: str, rules: list[tuple[str, str]] | None = None
    ) -> str:
        params: list[tuple[str, str | int | float | bool | None]] = [
            ("format", API_RENDERED_FORMATS[fmt])
        ]
        params += rules or []
        response = self._http.get(f"/v1/runs/{run_id}/report", params=params)
        if response.status_code >= 400:
            raise ApiError(api_error_message(response))
        return response.text
