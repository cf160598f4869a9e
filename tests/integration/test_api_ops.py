"""Operations: health, readiness, metrics, rate limits and token hygiene."""

from __future__ import annotations

import hashlib
import logging
import re
import shutil
import uuid

import msgspec
import pytest

from citeproof.api.settings import ApiSettings
from citeproof.auth import create_token
from citeproof.db.migrate import default_migrations_dir
from citeproof.obs.logs import configure_logging
from citeproof.pipeline import LABEL_NAMES, NEEDS_REVIEW, VERDICT_LABELS
from tests.integration.api_support import api_client, assert_error, new_session, new_user, upload


async def test_healthz_and_readyz(pool, db_settings):
    async with api_client(db_settings) as client:
        health = await client.get("/healthz")
        assert health.status_code == 200 and health.json() == {"status": "ok"}
        await pool.execute("DELETE FROM worker_heartbeats")
        await pool.execute(
            "INSERT INTO worker_heartbeats (worker_id, service, version, capabilities, hostname,"
            " pid) VALUES ('j1', 'judge', 't', '{judge}', 'h', 1)"
        )
        try:
            ready = await client.get("/readyz")
        finally:
            await pool.execute("DELETE FROM worker_heartbeats")
        assert ready.status_code == 200
        assert ready.json() == {
            "status": "ready",
            "database": True,
            "pending_migrations": [],
            "workers": {
                "parse": False,
                "plan": False,
                "retrieve": False,
                "judge": True,
                "verify": False,
            },
            "unavailable": {},
            "parser_sandbox": [],
        }


async def test_readyz_shows_how_the_parsers_isolate_their_children(pool, db_settings):
    async with api_client(db_settings) as client:
        await pool.execute("DELETE FROM worker_heartbeats")
        await pool.execute(
            "INSERT INTO worker_heartbeats (worker_id, service, version, capabilities, hostname,"
            " pid) VALUES ('p1', 'parser', 't', '{parse:pdf,parse:sandbox=netns+uid}', 'h', 1),"
            " ('p2', 'parser', 't', '{parse:pdf,parse:sandbox=shared-network+same-uid}', 'h', 2)"
        )
        try:
            ready = await client.get("/readyz")
        finally:
            await pool.execute("DELETE FROM worker_heartbeats")
    assert ready.json()["workers"]["parse"] is True
    assert ready.json()["parser_sandbox"] == ["netns+uid", "shared-network+same-uid"]


async def test_readyz_names_a_stage_whose_backend_is_down(pool, db_settings):
    async with api_client(db_settings) as client:
        await pool.execute("DELETE FROM worker_heartbeats")
        # A live judge worker whose circuit breaker is open: it no longer advertises judge.
        await pool.execute(
            "INSERT INTO worker_heartbeats (worker_id, service, version, capabilities, hostname,"
            " pid, unavailable) VALUES ('j2', 'judge', 't', '{}', 'h', 1, $1::jsonb)",
            '{"judge": {"dependency": "judge backend", "since": "2026-01-02T03:04:05+00:00"}}',
        )
        try:
            ready = await client.get("/readyz")
        finally:
            await pool.execute("DELETE FROM worker_heartbeats")
    assert ready.status_code == 200
    assert ready.json()["workers"]["judge"] is False
    assert ready.json()["unavailable"] == {
        "judge": "judge backend unreachable since 2026-01-02 03:04:05 UTC"
    }


async def test_labels_are_served_without_a_token_from_the_pipeline_contract(db_settings):
    async with api_client(db_settings) as client:
        response = await client.get("/labels")
    assert response.status_code == 200, response.text
    served = {entry["label"]: entry for entry in response.json()}
    assert set(served) == set(VERDICT_LABELS)
    assert {label: entry["name"] for label, entry in served.items()} == LABEL_NAMES
    assert served[NEEDS_REVIEW]["description"] and served[NEEDS_REVIEW]["bar_colour"]


async def test_readyz_is_503_with_pending_migrations(pool, db_settings, tmp_path):
    for path in default_migrations_dir().glob("*.sql"):
        shutil.copy(path, tmp_path / path.name)
    (tmp_path / "9999_future.sql").write_text("SELECT 1;")
    settings = msgspec.structs.replace(db_settings, migrations_dir=str(tmp_path))
    async with api_client(settings) as client:
        ready = await client.get("/readyz")
        assert ready.status_code == 503
        assert ready.json()["pending_migrations"] == [9999]
        assert ready.json()["status"] == "not_ready"


async def test_metrics_expose_requests_by_route_and_queue_gauges(pool, db_settings):
    alice = await new_user(pool)
    async with api_client(db_settings) as client:
        session_id = await new_session(client, alice)
        await client.get(f"/v1/sessions/{session_id}", headers=alice.headers)
        await client.get(f"/v1/sessions/{uuid.uuid4()}", headers=alice.headers)
        await client.get("/v1/no/such/path", headers=alice.headers)
        await upload(client, alice, session_id, [("m.pdf", uuid.uuid4().bytes)])
        response = await client.get("/metrics")
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/plain")
        text = response.text
    template = "/v1/sessions/{session_id}"
    assert f'route="{template}",status="200"' in text
    assert f'route="{template}",status="404"' in text
    assert 'route="unmatched",status="404"' in text
    assert session_id not in text  # raw paths never become label values
    assert re.search(
        r'citeproof_http_request_seconds_count\{method="POST",route="/v1/sessions"', text
    )
    depth = re.search(r'citeproof_queue_depth\{stage="parse"\} (\d+)', text)
    assert depth and int(depth.group(1)) >= 1
    for stage in ("parse", "plan", "retrieve", "judge"):
        assert f'citeproof_queue_oldest_age_seconds{{stage="{stage}"}}' in text
        assert f'citeproof_queue_dead_total{{stage="{stage}"}}' in text
    assert "# TYPE citeproof_live_workers gauge" in text


async def test_rate_limit_is_per_user_and_bucket_with_retry_after(pool, db_settings):
    alice, bob = await new_user(pool), await new_user(pool)
    settings = ApiSettings(rate_limit_requests=5, rate_limit_uploads=2)
    async with api_client(db_settings, settings) as client:
        session_id = await new_session(client, alice)  # 1
        for _ in range(4):  # 2..5
            assert (await client.get("/v1/sessions", headers=alice.headers)).status_code == 200
        limited = await client.get("/v1/sessions", headers=alice.headers)
        body = assert_error(limited, 429, "rate_limited")
        assert "5 per 60 s" in body["detail"]
        assert 1 <= int(limited.headers["Retry-After"]) <= 60
        # Uploads have their own bucket; other users their own windows.
        assert (await upload(client, alice, session_id, [("a", b"1")])).status_code == 202
        assert (await upload(client, alice, session_id, [("b", b"2")])).status_code == 202
        assert_error(await upload(client, alice, session_id, [("c", b"3")]), 429, "rate_limited")
        assert (await client.get("/v1/sessions", headers=bob.headers)).status_code == 200
        # Window rows older than the window are pruned.
        await pool.execute(
            "UPDATE rate_limit_events SET at = at - interval '2 minutes' WHERE user_id = $1",
            alice.user_id,
        )
        assert (await client.get("/v1/sessions", headers=alice.headers)).status_code == 200
        assert (
            await pool.fetchval(
                "SELECT count(*) FROM rate_limit_events WHERE user_id = $1 AND bucket = 'api'",
                alice.user_id,
            )
            == 1
        )


async def test_tokens_are_stored_hashed_and_never_logged(pool, db_settings, capfd):
    alice = await new_user(pool)
    token_id, second = await create_token(pool, alice.user_id, "second")
    stored = await pool.fetch(
        "SELECT id, token_hash FROM api_tokens WHERE user_id = $1", alice.user_id
    )
    hashes = {row["id"]: bytes(row["token_hash"]) for row in stored}
    assert hashes[token_id] == hashlib.sha256(second.encode()).digest()
    assert hashes[alice.token_id] == hashlib.sha256(alice.token.encode()).digest()
    dump = str(await pool.fetch("SELECT * FROM api_tokens"))
    assert alice.token not in dump and second not in dump

    configure_logging("api")
    logging.getLogger().setLevel(logging.DEBUG)
    try:
        async with api_client(db_settings) as client:
            session_id = await new_session(client, alice)
            await client.get(f"/v1/runs/{uuid.uuid4()}/events?token={alice.token}")
            await client.get("/v1/me", headers={"Authorization": f"Bearer {second}x"})
            await client.get("/v1/me", headers={"Authorization": f"Bearer {second}"})
            await pool.execute("ALTER TABLE sessions RENAME TO sessions_hidden")
            try:
                failed = await client.get(f"/v1/sessions/{session_id}", headers=alice.headers)
            finally:
                await pool.execute("ALTER TABLE sessions_hidden RENAME TO sessions")
            assert failed.status_code == 500
    finally:
        logging.getLogger().setLevel(logging.WARNING)
    out, err = capfd.readouterr()
    logs = out + err
    assert "http.unexpected_error" in logs  # the logs were captured...
    assert alice.token not in logs and second not in logs  # ...and carry no token


async def test_openapi_documents_the_error_shape_uploads_and_report_formats(pool, db_settings):
    async with api_client(db_settings) as client:
        response = await client.get("/schema/openapi.json")
    assert response.status_code == 200
    schema = response.json()
    required = schema["components"]["schemas"]["ErrorBody"]["required"]
    assert required == ["code", "detail", "status", "title"]
    session = schema["paths"]["/v1/sessions/{session_id}"]["get"]["responses"]
    problem = "application/problem+json"
    assert session["404"]["content"][problem]["schema"]["$ref"].endswith("/ErrorBody")
    assert session["400"]["content"][problem]["schema"]["$ref"].endswith("/ErrorBody")
    upload_op = schema["paths"]["/v1/sessions/{session_id}/documents"]["post"]
    form = upload_op["requestBody"]["content"]["multipart/form-data"]["schema"]
    assert form["properties"]["kind"]["enum"] == ["thesis", "source", "bibliography"]
    report = schema["paths"]["/v1/runs/{run_id}/report"]["get"]["responses"]["200"]["content"]
    assert set(report) == {"application/json", "text/markdown", "text/html"}
    events = schema["paths"]["/v1/runs/{run_id}/events"]["get"]["responses"]["200"]["content"]
    assert set(events) == {"text/event-stream"}
    assert schema["components"]["securitySchemes"]["BearerToken"]["scheme"] == "bearer"


def test_api_and_parser_agree_on_the_file_size_cap():
    parser_settings = pytest.importorskip("citeproof.parser.settings")
    assert ApiSettings().max_file_bytes == parser_settings.DEFAULT_MAX_FILE_BYTES


def test_sigterm_ends_progress_streams_and_the_process_promptly(database_url, tmp_path):
    """`citeproof-api` as a process: migrations at boot, and on SIGTERM an open event stream
    ends at once (instead of holding the 10 s graceful window) and the process exits."""
    import asyncio
    import os
    import socket
    import subprocess
    import sys
    import time

    import asyncpg
    import httpx

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]

    async def seed() -> tuple[str, str]:
        conn = await asyncpg.connect(database_url)
        try:
            user = await conn.fetchval(
                "INSERT INTO users (name) VALUES ($1) RETURNING id", f"proc-{uuid.uuid4().hex[:8]}"
            )
            token = (await create_token(conn, user))[1]
            session = await conn.fetchval(
                "INSERT INTO sessions (user_id, name) VALUES ($1, 's') RETURNING id", user
            )
            document = await conn.fetchval(
                "INSERT INTO documents (user_id, sha256, kind, filename, size_bytes) "
                "VALUES ($1, $2, 'thesis', 't.pdf', 1) RETURNING id",
                user,
                uuid.uuid4().bytes,
            )
            run = await conn.fetchval(
                "INSERT INTO runs (user_id, session_id, thesis_document_id) "
                "VALUES ($1, $2, $3) RETURNING id",
                user,
                session,
                document,
            )
            return token, str(run)
        finally:
            await conn.close()

    token, run_id = asyncio.run(seed())
    env = dict(os.environ, DATABASE_URL=database_url, CITEPROOF_API_PORT=str(port),
               CITEPROOF_API_SSE_SLOW_POLL_S="60")  # fmt: skip
    log = (tmp_path / "api.log").open("w")
    api = subprocess.Popen(
        [sys.executable, "-m", "citeproof.api"], env=env, stdout=log, stderr=subprocess.STDOUT
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{base}/readyz").status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline and api.poll() is None, "API did not start"
            time.sleep(0.2)
        with httpx.stream("GET", f"{base}/v1/runs/{run_id}/events?token={token}", timeout=30) as r:
            lines = r.iter_lines()
            assert next(lines) == "event: progress"
            api.terminate()
            terminated = time.monotonic()
            rest = list(lines)  # the stream ends without the run finishing
        assert time.monotonic() - terminated < 5  # not the 10 s graceful window
        assert not any(line == "event: done" for line in rest)
        api.wait(timeout=15)
    finally:
        if api.poll() is None:
            api.kill()
        log.close()
    assert token not in (tmp_path / "api.log").read_text()
