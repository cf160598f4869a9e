"""HTTP and database helpers shared by the hostile-input and security tests."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Sequence
from typing import Any

import asyncpg
import httpx

JOB_TERMINAL = ("succeeded", "failed", "partial", "dead", "cancelled")
ERROR_KEYS = {"type", "title", "status", "code", "detail"}


def assert_error(response: httpx.Response, status: int, code: str) -> dict:
    """The one error shape: status + stable code + a human sentence, nothing else."""
    assert response.status_code == status, (response.status_code, response.text[:500])
    body = response.json()
    assert set(body) == ERROR_KEYS, body
    assert body["status"] == status and body["code"] == code, body
    assert isinstance(body["detail"], str) and len(body["detail"]) > 10, body
    return body


def new_session(http: httpx.Client, name: str) -> str:
    response = http.post("/v1/sessions", json={"name": name})
    assert response.status_code == 201, response.text
    return response.json()["id"]


def upload_files(
    http: httpx.Client, session_id: str, kind: str, files: Sequence[tuple[str, bytes, str]]
) -> dict:
    """Upload (filename, bytes, content type) triples in one request; expects 202."""
    parts = [("files", (name, data, content_type)) for name, data, content_type in files]
    response = http.post(f"/v1/sessions/{session_id}/documents", data={"kind": kind}, files=parts)
    assert response.status_code == 202, response.text[:500]
    return response.json()


def wait_for_job(http: httpx.Client, job_id: str, timeout: float = 240.0) -> dict:
    deadline = time.monotonic() + timeout
    job: dict[str, Any] = {}
    while time.monotonic() < deadline:
        response = http.get(f"/v1/jobs/{job_id}")
        assert response.status_code == 200, response.text
        job = response.json()
        if job["state"] in JOB_TERMINAL and all(
            item["state"] not in ("queued", "running") for item in job["items"]
        ):
            return job
        time.sleep(1.0)
    raise AssertionError(f"job {job_id} not finished in {timeout}s: {job}")


def start_run(http: httpx.Client, session_id: str, thesis_id: str) -> str:
    response = http.post(f"/v1/sessions/{session_id}/runs", json={"thesis_document_id": thesis_id})
    assert response.status_code == 202, response.text
    return response.json()["run_id"]


def multipart_body(
    parts: Sequence[tuple[bytes, bytes]], boundary: bytes = b"citeproof-hostile-boundary"
) -> tuple[bytes, str]:
    """A hand-built multipart body from (raw Content-Disposition line, payload) pairs, so a
    test controls every byte of the part headers (httpx would escape hostile names)."""
    body = b""
    for disposition, payload in parts:
        body += b"--" + boundary + b"\r\n" + disposition + b"\r\n\r\n" + payload + b"\r\n"
    body += b"--" + boundary + b"--\r\n"
    return body, f"multipart/form-data; boundary={boundary.decode()}"


def file_part(filename: bytes, payload: bytes, content_type: bytes = b"text/plain") -> tuple:
    disposition = (
        b'Content-Disposition: form-data; name="files"; filename="'
        + filename
        + b'"\r\nContent-Type: '
        + content_type
    )
    return disposition, payload


def kind_part(kind: bytes) -> tuple[bytes, bytes]:
    return b'Content-Disposition: form-data; name="kind"', kind


def db_fetch(database_url: str, sql: str, *args: Any) -> list[asyncpg.Record]:
    """Run one query on the stack's database (the tests inspect what the services stored)."""

    async def run() -> list[asyncpg.Record]:
        conn = await asyncpg.connect(database_url)
        try:
            return await conn.fetch(sql, *args)
        finally:
            await conn.close()

    return asyncio.run(run())


def chunk_text(database_url: str, document_id: str) -> str:
    rows = db_fetch(
        database_url,
        "SELECT text FROM chunks WHERE document_id = $1 ORDER BY ordinal",
        uuid.UUID(document_id),
    )
    return "\n".join(row["text"] for row in rows)


def new_token(database_url: str, name: str) -> str:
    """A new user with one API token (the raw token, as shown once to its owner)."""
    from citeproof.auth import create_token, create_user

    async def make() -> str:
        conn = await asyncpg.connect(database_url)
        try:
            user = await create_user(conn, f"{name}-{uuid.uuid4().hex[:8]}")
            return (await create_token(conn, user, label=name))[1]
        finally:
            await conn.close()

    return asyncio.run(make())
