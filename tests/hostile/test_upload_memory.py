"""Concurrent large uploads against one API process: its memory stays bounded both ways.

The API runs as its own OS process (`python -m citeproof.api`, as deployed); its resident set is
sampled every 10 ms from /proc while the attack runs, and the peak above its idle RSS is the
measure (target: under 300 MiB for each case).

- refused: 20 concurrent uploads of three 40 MiB files (120 MiB + framing, over the staged cap)
  from one user. Today's caps: 18 are refused at once (that user's upload slots), the others
  are streamed to the spool file and refused at the cap.
- accepted: 20 concurrent 40 MiB uploads from 20 users; all must be accepted, their bytes in
  PostgreSQL exactly (anything missing counts as lost work).
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import asyncpg
import httpx
import pytest

from citeproof.auth import create_token, create_user
from tests.hostile.raw_http import GeneratedFile, upload

MIB = 1024 * 1024
CONCURRENT = 20
TARGET_MIB = 300
REPO_ROOT = Path(__file__).resolve().parents[2]


def _rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS")


class RssSampler:
    """The peak resident set of a process while sampling (every 10 ms, in a thread)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, _rss_bytes(self.pid))
            time.sleep(0.01)

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


@pytest.fixture(scope="module")
def api_process(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    spool = tmp_path_factory.mktemp("spool")
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "CITEPROOF_API_PORT": str(port),
        "CITEPROOF_API_UPLOAD_SPOOL_DIR": str(spool),
        # Twenty users' uploads share eight slots; on a 2-core machine the last ones wait
        # minutes for theirs, which is the behaviour measured (accepted, not refused).
        "CITEPROOF_API_UPLOAD_SLOT_WAIT_S": "900",
        "CITEPROOF_API_RATE_LIMIT_UPLOADS": "1000",
        "CITEPROOF_LOG_LEVEL": "warning",
    }
    process = subprocess.Popen([sys.executable, "-m", "citeproof.api"], env=env, cwd=REPO_ROOT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            assert process.poll() is None, "the API process exited"
            try:
                if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "the API did not start"
            time.sleep(0.5)
        yield url, process.pid, spool
    finally:
        process.terminate()
        process.wait(timeout=60)


async def _users(database_url: str, count: int) -> list[tuple[uuid.UUID, str]]:
    conn = await asyncpg.connect(database_url)
    try:
        users = []
        for _ in range(count):
            user_id = await create_user(conn, f"hostile-{uuid.uuid4().hex[:10]}")
            _, token = await create_token(conn, user_id, "hostile")
            users.append((user_id, token))
        return users
    finally:
        await conn.close()


async def _session(url: str, token: str) -> str:
    async with httpx.AsyncClient(base_url=url, timeout=60) as client:
        response = await client.post(
            "/v1/sessions", json={"name": "hostile"}, headers={"Authorization": f"Bearer {token}"}
        )
    assert response.status_code == 201, response.text
    return response.json()["id"]


def _code(response) -> str | None:
    try:
        return response.json().get("code")
    except ValueError:
        return None


async def _idle_rss(url: str, pid: int) -> int:
    # Warm the code paths first (imports, pools), so the idle figure is the steady state.
    async with httpx.AsyncClient(base_url=url) as client:
        for _ in range(20):
            await client.get("/healthz")
    await asyncio.sleep(1)
    return _rss_bytes(pid)


async def test_twenty_concurrent_120_mib_uploads_from_one_user_are_refused_cheaply(
    api_process, database_url, hostile_record
):
    url, pid, spool = api_process
    [(_, token)] = await _users(database_url, 1)
    session_id = await _session(url, token)
    idle = await _idle_rss(url, pid)
    with RssSampler(pid) as sampler:
        responses = await asyncio.gather(
            *(
                upload(url, token, session_id, [GeneratedFile(f"f{i}-{j}.pdf", 40 * MIB + 1)
                                                for j in range(3)])
                for i in range(CONCURRENT)
            )
        )  # fmt: skip
    above = (sampler.peak - idle) / MIB
    for response in responses:
        refused = response.status in (413, 429)
        hostile_record.add("upload_120mib_one_user", response.status, _code(response), refused)
    hostile_record.extra.setdefault("upload_rss_mib", {})["refused_one_user"] = round(above, 1)
    hostile_record.extra["upload_idle_rss_mib"] = round(idle / MIB, 1)
    hostile_record.extra["upload_peak_rss_mib"] = round(
        max(above, hostile_record.extra.get("upload_peak_rss_mib", 0)), 1
    )
    assert {r.status for r in responses} <= {413, 429}, [(r.status, r.body) for r in responses]
    assert not list(spool.iterdir()), "spool files left behind"
    assert above < TARGET_MIB, f"{above:.0f} MiB above idle"


async def test_twenty_concurrent_40_mib_uploads_from_twenty_users_are_accepted(
    api_process, database_url, hostile_record
):
    url, pid, spool = api_process
    users = await _users(database_url, CONCURRENT)
    sessions = [await _session(url, token) for _, token in users]
    files = [GeneratedFile(f"user{i}.pdf", 40 * MIB) for i in range(CONCURRENT)]
    idle = await _idle_rss(url, pid)
    with RssSampler(pid) as sampler:
        responses = await asyncio.gather(
            *(
                upload(url, token, session_id, [file], timeout_s=1800)
                for (_, token), session_id, file in zip(users, sessions, files, strict=True)
            )
        )
    above = (sampler.peak - idle) / MIB
    for response in responses:
        hostile_record.add(
            "upload_40mib_twenty_users", response.status, _code(response), response.status == 202
        )
    # Every accepted byte is in PostgreSQL, exactly; then the rows go (the database is dropped
    # at the end of the session, but 800 MiB should not wait for that).
    conn = await asyncpg.connect(database_url)
    try:
        lost = 0
        for response, file in zip(responses, files, strict=True):
            if response.status != 202:
                continue
            stored = await conn.fetchval(
                "SELECT sha256(file_bytes) FROM parse_items WHERE job_id = $1",
                uuid.UUID(response.json()["job_id"]),
            )
            if stored != hashlib.sha256(b"".join(file.pieces())).digest():
                lost += 1
        await conn.execute(
            "DELETE FROM parse_items WHERE user_id = ANY($1::uuid[])", [u for u, _ in users]
        )
    finally:
        await conn.close()
    hostile_record.lost_work += lost
    hostile_record.extra.setdefault("upload_rss_mib", {})["accepted_twenty_users"] = round(above, 1)
    hostile_record.extra["upload_peak_rss_mib"] = round(
        max(above, hostile_record.extra.get("upload_peak_rss_mib", 0)), 1
    )
    assert [r.status for r in responses] == [202] * CONCURRENT, [r.body for r in responses]
    assert lost == 0
    assert not list(spool.iterdir()), "spool files left behind"
    assert above < TARGET_MIB, f"{above:.0f} MiB above idle"
