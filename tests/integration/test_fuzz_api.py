"""Schemathesis against the API's own OpenAPI document: no 5xx, responses as documented.

The API is served by uvicorn over real HTTP (in a thread of this process) on the test
database, with rate limits and admission caps lifted so the fuzzer exercises the handlers and
not the limiter. Every operation is fuzzed three ways: schema-valid data with random ids
(mostly 404s), schema-valid data with ids of the caller's real session, documents, job and
run (the handlers' happy and conflict paths), and schema-violating data (validation paths).

Failures are collected rather than raised one by one, so one run lists every finding with
the request that caused it.
"""

from __future__ import annotations

import asyncio
import os
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field

import asyncpg
import httpx
import hypothesis
import pytest
import schemathesis
import uvicorn
from hypothesis import HealthCheck, Phase
from schemathesis.checks import not_a_server_error
from schemathesis.core.failures import FailureGroup
from schemathesis.generation import GenerationMode
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from citeproof.api import create_app
from citeproof.api.settings import ApiSettings
from citeproof.auth import create_token, create_user
from citeproof.db.settings import DatabaseSettings

pytestmark = pytest.mark.slow

# Examples per operation and mode: 20 operations x 3 modes x 12 stays well under a minute in
# `make test`; `make fuzz-api` sets CITEPROOF_FUZZ_EXAMPLES for a deeper run.
EXAMPLES_PER_MODE = int(os.environ.get("CITEPROOF_FUZZ_EXAMPLES", "12"))
# `make test` fuzzes the same examples every time (a failure reproduces); a deeper run explores.
DERANDOMIZE = "CITEPROOF_FUZZ_EXAMPLES" not in os.environ
# A progress stream of a real, unfinished run is cut after this long (the fuzzer must not hang).
SSE_MAX_DURATION_S = 1
REQUEST_TIMEOUT_S = 15.0
UNLIMITED = 10**9
# "Conforms to the schema": a documented status, a documented content type, a body that
# validates against the documented schema (errors included), documented headers.
CONFORMANCE_CHECKS = [
    not_a_server_error,
    status_code_conformance,
    response_schema_conformance,
    content_type_conformance,
    response_headers_conformance,
]
# Operations whose real-id cases destroy the world; they get a disposable one per case.
DESTRUCTIVE = {("DELETE", "/v1/sessions/{session_id}"), ("DELETE", "/v1/documents/{document_id}")}

# The schema is the app's own document; building the app opens no connection.
SCHEMA = schemathesis.openapi.from_dict(
    create_app(
        ApiSettings(), db_settings=DatabaseSettings(url="postgresql:///unused")
    ).openapi_schema.to_schema()
)


@dataclass
class Finding:
    operation: str
    mode: str
    check: str
    request: str
    status: int
    body: str

    def __str__(self) -> str:
        return (
            f"{self.operation} [{self.mode}] {self.check}: {self.request} -> {self.status} "
            f"{self.body[:300]}"
        )


@dataclass
class World:
    """Real ids of the fuzzing user, substituted into path parameters."""

    base_url: str
    token: str
    ids: dict[str, str] = field(default_factory=dict)

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    def http(self) -> httpx.Client:
        return httpx.Client(base_url=self.base_url, headers=self.headers, timeout=30)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _new_token(database_url: str) -> str:
    async def make() -> str:
        conn = await asyncpg.connect(database_url)
        try:
            user = await create_user(conn, f"fuzz-{uuid.uuid4().hex[:8]}")
            return (await create_token(conn, user, label="fuzz"))[1]
        finally:
            await conn.close()

    return asyncio.run(make())


@pytest.fixture(scope="module")
def served_api(db_settings: DatabaseSettings) -> Iterator[str]:
    settings = ApiSettings(
        rate_limit_requests=UNLIMITED,
        rate_limit_uploads=UNLIMITED,
        max_active_parse_jobs=UNLIMITED,
        max_active_runs_per_user=UNLIMITED,
        max_documents_per_session=UNLIMITED,
        sse_max_duration_s=SSE_MAX_DURATION_S,
    )
    port = _free_port()
    config = uvicorn.Config(
        create_app(settings, db_settings=db_settings),
        host="127.0.0.1",
        port=port,
        log_config=None,
        access_log=False,
        lifespan="on",
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "API did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)


def _populate(world: World) -> dict[str, str]:
    """A session with a thesis and a source, their parse job and a run over them."""
    with world.http() as http:
        session_id = http.post("/v1/sessions", json={"name": "fuzz"}).json()["id"]
        tag = uuid.uuid4().hex.encode()
        uploaded = http.post(
            f"/v1/sessions/{session_id}/documents",
            data={"kind": "thesis"},
            files=[("files", ("thesis.txt", b"A claim [1].\n\n[1] A. " + tag, "text/plain"))],
        )
        assert uploaded.status_code == 202, uploaded.text
        thesis_id = uploaded.json()["documents"][0]["id"]
        source = http.post(
            f"/v1/sessions/{session_id}/documents",
            data={"kind": "source"},
            files=[("files", ("source.txt", b"A source. " + tag, "text/plain"))],
        ).json()
        run = http.post(
            f"/v1/sessions/{session_id}/runs", json={"thesis_document_id": thesis_id}
        ).json()
    return {
        "session_id": session_id,
        "document_id": source["documents"][0]["id"],
        "thesis_document_id": thesis_id,
        "job_id": uploaded.json()["job_id"],
        "run_id": run["run_id"],
    }


@pytest.fixture(scope="module")
def world(served_api: str, database_url: str) -> World:
    world = World(base_url=served_api, token=_new_token(database_url))
    world.ids = _populate(world)
    return world


def _real_path_parameters(world: World, method: str, path: str) -> dict[str, str]:
    ids = _populate(world) if (method, path) in DESTRUCTIVE else world.ids
    names = [part[1:-1] for part in path.split("/") if part.startswith("{")]
    return {name: ids[name] for name in names}


MODES = (
    ("positive", GenerationMode.POSITIVE, False),
    ("positive-real-ids", GenerationMode.POSITIVE, True),
    ("negative", GenerationMode.NEGATIVE, False),
)


def _record(findings: list[Finding], seen: set[str], case, response, group, mode: str) -> None:
    operation = f"{case.operation.method.upper()} {case.operation.path}"
    for failure in group.exceptions:
        key = f"{failure.title}:{response.status_code}"
        if key not in seen:  # one line per kind of failure, not one per example
            seen.add(key)
            findings.append(
                Finding(
                    operation=operation,
                    mode=mode,
                    check=failure.title,
                    request=case.as_curl_command(headers=dict(response.request.headers)),
                    status=response.status_code,
                    body=response.text,
                )
            )


def _fuzz_mode(operation, world: World, checks: list, findings: list[Finding], mode) -> int:
    mode_name, generation_mode, real_ids = mode
    method, path = operation.method.upper(), operation.path
    seen: set[str] = set()
    calls = 0

    @hypothesis.settings(
        max_examples=EXAMPLES_PER_MODE,
        deadline=None,
        database=None,
        derandomize=DERANDOMIZE,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @hypothesis.given(case=operation.as_strategy(generation_mode=generation_mode))
    def run(case) -> None:
        nonlocal calls
        if real_ids:
            case.path_parameters = {
                **(case.path_parameters or {}),
                **_real_path_parameters(world, method, path),
            }
        calls += 1
        response = case.call(
            base_url=world.base_url, headers=world.headers, timeout=REQUEST_TIMEOUT_S
        )
        try:
            case.validate_response(response, checks=checks, headers=world.headers)
        except FailureGroup as group:
            _record(findings, seen, case, response, group, mode_name)

    try:
        run()
    except hypothesis.errors.Unsatisfiable:
        # A public operation without parameters (GET /healthz) has nothing to make invalid.
        if generation_mode is not GenerationMode.NEGATIVE or calls:
            raise
    return calls


def _fuzz_operation(operation, world: World, checks: list, findings: list[Finding]) -> int:
    has_ids = "{" in operation.path
    return sum(
        _fuzz_mode(operation, world, checks, findings, mode)
        for mode in MODES
        if has_ids or not mode[2]
    )


def _fuzz(world: World, checks: list) -> tuple[list[Finding], int]:
    findings: list[Finding] = []
    calls = 0
    for result in SCHEMA.get_all_operations():
        calls += _fuzz_operation(result.ok(), world, checks, findings)
    return findings, calls


def test_fuzzing_finds_no_server_errors_and_no_schema_violations(world: World) -> None:
    findings, calls = _fuzz(world, CONFORMANCE_CHECKS)
    assert calls > 20 * EXAMPLES_PER_MODE, calls  # every operation was really exercised
    assert not findings, "\n".join(str(f) for f in findings)


def test_progress_stream_answers_with_its_documented_content_type(world: World) -> None:
    """Fuzzer finding, minimal: the SSE endpoint answers `text/event-stream` (as it must for
    EventSource) while the OpenAPI document promises `application/json` for its 200."""
    with world.http() as http:
        run_id = world.ids["run_id"]
        http.post(f"/v1/runs/{run_id}/cancel")  # a finished run: the stream ends at once
        response = http.get(f"/v1/runs/{run_id}/events")
    assert response.status_code == 200
    served = response.headers["content-type"].split(";")[0]
    assert served == "text/event-stream"
    responses = SCHEMA.raw_schema["paths"]["/v1/runs/{run_id}/events"]["get"]["responses"]
    assert served in responses["200"]["content"], responses["200"]
