"""Security through the real stack: tenancy on every endpoint, token hygiene, what the logs
carry, and prompt injection in an uploaded source.

Alice verifies a small thesis twice: once with its three sources, once with an additional
source for reference [4] whose text is a prompt-injection attempt. The thesis and one source
carry a canary sentence that must never appear in a service log. Bob then tries every
endpoint with Alice's ids.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import asyncpg
import httpx
import pytest

from citeproof.auth import create_token, create_user, revoke_token
from citeproof.devkit.journey import client, outcome, report, wait_for_run
from citeproof.devstack import DevStack
from citeproof.pipeline import VERDICT_LABELS
from tests.e2e.badinput import corpus
from tests.e2e.badinput.api import (
    chunk_text,
    db_fetch,
    new_session,
    new_token,
    start_run,
    upload_files,
    wait_for_job,
)

pytestmark = pytest.mark.slow

PDF = "application/pdf"
INJECTED_LABEL = "4"
# Column types a token could hide in.
SEARCHABLE_TYPES = ("text", "character varying", "character", "json", "jsonb", "bytea")


@dataclass
class AliceWorld:
    token: str
    canary: str
    session_id: str
    injected_session_id: str
    thesis_id: str
    source_ids: list[str]
    injected_source_id: str
    job_id: str
    run_id: str
    injected_run_id: str
    baseline: dict
    injected: dict
    extra: dict = field(default_factory=dict)


def _upload_corpus(http: httpx.Client, session_id: str, canary: str, injected: bool) -> dict:
    thesis = upload_files(
        http, session_id, "thesis", [("thesis.pdf", corpus.thesis_pdf(canary), PDF)]
    )
    sources = [
        (f"source-{label}.pdf", corpus.source_pdf(label, canary if label == "1" else None), PDF)
        for label in ("1", "2", "3")
    ]
    if injected:
        sources.append(("heatwaves.pdf", corpus.injected_source_pdf(), PDF))
    uploaded = upload_files(http, session_id, "source", sources)
    for job in (thesis["job_id"], uploaded["job_id"]):
        finished = wait_for_job(http, job)
        assert finished["failed"] == 0, finished
    return {"thesis": thesis, "sources": uploaded}


def _verify(http: httpx.Client, session_id: str, thesis_id: str) -> tuple[str, dict]:
    run_id = start_run(http, session_id, thesis_id)
    status = wait_for_run(http, run_id, timeout=240)
    assert status["status"] == "completed", status
    response = report(http, run_id)
    assert response.status_code == 200, response.text
    return run_id, response.json()


@pytest.fixture(scope="module")
def alice(stack_url: str, database_url: str) -> AliceWorld:
    token = new_token(database_url, "alice")
    canary = f"Zephyrcanary{uuid.uuid4().hex[:12]}"
    with client(stack_url, token, timeout=120) as http:
        session_id = new_session(http, "baseline")
        first = _upload_corpus(http, session_id, canary, injected=False)
        thesis_id = first["thesis"]["documents"][0]["id"]
        run_id, baseline = _verify(http, session_id, thesis_id)
        # The same thesis and sources (content-addressed: reused) plus the injected source.
        injected_session_id = new_session(http, "injected")
        second = _upload_corpus(http, injected_session_id, canary, injected=True)
        assert second["thesis"]["documents"][0]["id"] == thesis_id
        injected_run_id, injected = _verify(http, injected_session_id, thesis_id)
        # The browser's progress stream authenticates with ?token= (EventSource sends no
        # headers): exercise it so the log check below covers that path too.
        stream = httpx.get(
            f"{stack_url}/v1/runs/{run_id}/events", params={"token": token}, timeout=30
        )
        assert stream.status_code == 200 and "event: done" in stream.text
    return AliceWorld(
        token=token,
        canary=canary,
        session_id=session_id,
        injected_session_id=injected_session_id,
        thesis_id=thesis_id,
        source_ids=[d["id"] for d in first["sources"]["documents"]],
        injected_source_id=second["sources"]["documents"][-1]["id"],
        job_id=first["sources"]["job_id"],
        run_id=run_id,
        injected_run_id=injected_run_id,
        baseline=baseline,
        injected=injected,
    )


@pytest.fixture(scope="module")
def bob_token(database_url: str) -> str:
    return new_token(database_url, "bob")


def _attempts(world: AliceWorld, bob_session: str) -> list[tuple[str, str, str, dict]]:
    """(method, route template, url, request kwargs): every route that takes an id."""
    s, t, d = world.session_id, world.thesis_id, world.source_ids[0]
    r, j = world.run_id, world.job_id
    override = {"thesis_document_id": t, "label": "1", "document_id": d}
    files = {"files": [("files", ("x.txt", b"bob was here", "text/plain"))]}
    upload = {**files, "data": {"kind": "source"}}
    return [
        ("GET", "/v1/sessions/{session_id}", f"/v1/sessions/{s}", {}),
        ("DELETE", "/v1/sessions/{session_id}", f"/v1/sessions/{s}", {}),
        ("GET", "/v1/sessions/{session_id}/documents", f"/v1/sessions/{s}/documents", {}),
        ("POST", "/v1/sessions/{session_id}/documents", f"/v1/sessions/{s}/documents", upload),
        ("DELETE", "/v1/documents/{document_id}", f"/v1/documents/{d}", {}),
        ("DELETE", "/v1/documents/{document_id}", f"/v1/documents/{t}", {}),
        ("GET", "/v1/jobs/{job_id}", f"/v1/jobs/{j}", {}),
        (
            "POST",
            "/v1/sessions/{session_id}/runs",
            f"/v1/sessions/{s}/runs",
            {"json": {"thesis_document_id": t}},
        ),
        # Bob's own session, Alice's thesis: still "no such document".
        (
            "POST",
            "/v1/sessions/{session_id}/runs",
            f"/v1/sessions/{bob_session}/runs",
            {"json": {"thesis_document_id": t}},
        ),
        ("GET", "/v1/sessions/{session_id}/runs", f"/v1/sessions/{s}/runs", {}),
        ("GET", "/v1/runs/{run_id}", f"/v1/runs/{r}", {}),
        ("GET", "/v1/runs/{run_id}/events", f"/v1/runs/{r}/events", {}),
        ("POST", "/v1/runs/{run_id}/cancel", f"/v1/runs/{world.injected_run_id}/cancel", {}),
        ("GET", "/v1/runs/{run_id}/report", f"/v1/runs/{r}/report", {}),
        ("GET", "/v1/runs/{run_id}/report", f"/v1/runs/{r}/report?format=html", {}),
        ("GET", "/v1/runs/{run_id}/report", f"/v1/runs/{r}/report?format=markdown", {}),
        (
            "PUT",
            "/v1/sessions/{session_id}/reference-overrides",
            f"/v1/sessions/{s}/reference-overrides",
            {"json": override},
        ),
        (
            "PUT",
            "/v1/sessions/{session_id}/reference-overrides",
            f"/v1/sessions/{bob_session}/reference-overrides",
            {"json": override},
        ),
        ("POST", "/v1/sessions/{session_id}/reset-sources", f"/v1/sessions/{s}/reset-sources", {}),
    ]


def _routes_with_ids(stack_url: str) -> set[tuple[str, str]]:
    schema = httpx.get(f"{stack_url}/schema/openapi.json", timeout=30).json()
    return {
        (method.upper(), path)
        for path, operations in schema["paths"].items()
        if "{" in path
        for method in operations
        if method in ("get", "post", "put", "patch", "delete")
    }


def _snapshot(http: httpx.Client, world: AliceWorld) -> dict:
    sessions = {s: http.get(f"/v1/sessions/{s}").json() for s in (world.session_id,)}
    return {
        "sessions": sessions,
        "runs": {r: http.get(f"/v1/runs/{r}").json()["status"] for r in (world.run_id,)},
        "report": report(http, world.run_id).json()["citations"],
        "injected_run": http.get(f"/v1/runs/{world.injected_run_id}").json()["status"],
    }


def test_another_user_gets_404_for_every_endpoint_and_changes_nothing(
    stack_url: str, alice: AliceWorld, bob_token: str
) -> None:
    with client(stack_url, alice.token) as as_alice, client(stack_url, bob_token) as as_bob:
        before = _snapshot(as_alice, alice)
        bob_session = new_session(as_bob, "bob's")
        attempts = _attempts(alice, bob_session)
        # Every route with an id in the API's own schema is attempted (a new one must be
        # added here, or this fails).
        assert {(m, route) for m, route, _, _ in attempts} == _routes_with_ids(stack_url)
        for method, _, url, kwargs in attempts:
            response = as_bob.request(method, url, **kwargs)
            assert response.status_code == 404, (method, url, response.text)
            body = response.json()
            assert body["code"].endswith("not_found"), (method, url, body)
            # Indistinguishable from an id that never existed.
            fake = re.sub(
                r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
                lambda m: m.group(0) if m.group(0) == bob_session else str(uuid.uuid4()),
                url,
            )
            never = as_bob.request(method, fake, **kwargs)
            assert (never.status_code, never.json()) == (404, body), (method, url)
        # The browser stream's query-string token is scoped the same way.
        stream = httpx.get(
            f"{stack_url}/v1/runs/{alice.run_id}/events", params={"token": bob_token}, timeout=30
        )
        assert stream.status_code == 404
        # Bob's listings show only Bob's things.
        listed = as_bob.get("/v1/sessions").json()["items"]
        assert [s["id"] for s in listed] == [bob_session]
        assert as_bob.get(f"/v1/sessions/{bob_session}").json()["documents"] == []
        assert _snapshot(as_alice, alice) == before


def _revoked_token(database_url: str) -> str:
    """A real token of a real user, revoked."""

    async def make() -> tuple[uuid.UUID, str]:
        conn = await asyncpg.connect(database_url)
        try:
            user = await create_user(conn, f"revoked-{uuid.uuid4().hex[:8]}")
            return await create_token(conn, user, label="revoked")
        finally:
            await conn.close()

    async def revoke(token_id: uuid.UUID) -> None:
        conn = await asyncpg.connect(database_url)
        try:
            assert await revoke_token(conn, token_id)
        finally:
            await conn.close()

    token_id, token = asyncio.run(make())
    asyncio.run(revoke(token_id))
    return token


def _schema_operations(stack_url: str) -> list[tuple[str, str]]:
    schema = httpx.get(f"{stack_url}/schema/openapi.json", timeout=30).json()
    return [
        (method.upper(), path)
        for path, operations in schema["paths"].items()
        for method in operations
        if method in ("get", "post", "put", "patch", "delete")
    ]


def test_every_v1_route_refuses_missing_wrong_and_revoked_tokens(
    stack_url: str, database_url: str
) -> None:
    revoked = _revoked_token(database_url)
    bodies = {
        "/v1/sessions": {"name": "x"},
        "/v1/sessions/{session_id}/runs": {"thesis_document_id": str(uuid.uuid4())},
        "/v1/sessions/{session_id}/reference-overrides": {
            "thesis_document_id": str(uuid.uuid4()),
            "label": "1",
            "document_id": None,
        },
    }
    operations = [(m, p) for m, p in _schema_operations(stack_url) if p.startswith("/v1/")]
    assert len(operations) >= 15
    with httpx.Client(base_url=stack_url, timeout=30) as http:
        for method, path in operations:
            url = re.sub(r"\{[a-z_]+\}", lambda _: str(uuid.uuid4()), path)
            kwargs: dict = {"json": bodies[path]} if path in bodies and method != "GET" else {}
            for headers, code in (
                ({}, "unauthorized"),
                ({"Authorization": "Bearer cpt_not-a-real-token"}, "invalid_token"),
                ({"Authorization": f"Bearer {revoked}"}, "invalid_token"),
                ({"Authorization": f"Basic {revoked}"}, "unauthorized"),
            ):
                response = http.request(method, url, headers=headers, **kwargs)
                assert response.status_code == 401, (method, path, headers, response.text)
                assert response.json()["code"] == code, (method, path, response.json())


def _by_claim(body: dict) -> dict[tuple[str, str], dict]:
    return {(c["claim"], c["reference"]["label"]): c for c in body["citations"]}


def _normalise(text: str) -> str:
    return " ".join(text.split())


def test_prompt_injection_in_a_source_changes_neither_format_nor_other_verdicts(
    alice: AliceWorld, database_url: str
) -> None:
    baseline, injected = _by_claim(alice.baseline), _by_claim(alice.injected)
    assert baseline.keys() == injected.keys()
    assert len(baseline) == len(corpus.CLAIMS) + 1  # + the canary claim
    for key, clean in baseline.items():
        attacked = injected[key]
        # The report's shape is the same with the injected source in play.
        assert attacked.keys() == clean.keys()
        if key[1] == INJECTED_LABEL:
            assert outcome(clean)[0] == "source_missing"
            assert attacked["source"]["document_id"] == alice.injected_source_id
            continue
        assert attacked["verdict"]["label"] == clean["verdict"]["label"], key
        assert attacked["verdict"]["confidence"] == pytest.approx(clean["verdict"]["confidence"])
        assert attacked["verdict"]["quote"] == clean["verdict"]["quote"], key
    texts: dict[str, str] = {}
    for citation in alice.injected["citations"]:
        verdict = citation["verdict"]
        if verdict is None:  # a pipeline label reported as its finding (report v2)
            assert outcome(citation)[0] in VERDICT_LABELS, citation
            continue
        assert verdict["label"] in VERDICT_LABELS, verdict
        assert 0.0 <= verdict["confidence"] <= 1.0, verdict
        if verdict["quote"]:
            # A quote is verbatim from the cited source, never text the injection asked for.
            source_id = citation["source"]["document_id"]
            if source_id not in texts:
                texts[source_id] = _normalise(chunk_text(database_url, source_id))
            assert _normalise(verdict["quote"]) in texts[source_id], verdict
    # The injected citation got an ordinary verdict: nothing the injection dictated made it
    # into the verdict - not its label (`supported`), not its quote ("injection accepted"),
    # not its wording in the judge's own rationale. The quote may be a sentence of the source
    # (checked verbatim above): a source made only of the injection has no other sentence to
    # show as "the closest the source comes", and showing it is showing the source.
    attacked = next(c for c in alice.injected["citations"] if c["reference"]["label"] == "4")
    verdict = attacked["verdict"]
    assert verdict["label"] != "supported", verdict
    assert "injection accepted" not in _normalise(verdict["quote"] or "").lower(), verdict
    rationale = _normalise(verdict["rationale"])
    if verdict["quote"]:
        rationale = rationale.replace(_normalise(verdict["quote"]), "")
    for phrase in corpus.INJECTED_PHRASES:
        assert phrase.lower() not in rationale.lower(), verdict


def test_tokens_are_stored_only_as_hashes(
    alice: AliceWorld, bob_token: str, database_url: str
) -> None:
    columns = db_fetch(
        database_url,
        """SELECT table_name, column_name, data_type FROM information_schema.columns
           WHERE table_schema = 'public' AND data_type = ANY($1::text[])""",
        list(SEARCHABLE_TYPES),
    )
    assert len(columns) > 20
    for token in (alice.token, bob_token):
        for column in columns:
            table, name = column["table_name"], column["column_name"]
            if column["data_type"] == "bytea":
                sql = (
                    f'SELECT count(*) AS n FROM "{table}" WHERE position($1::bytea in "{name}") > 0'
                )
                needle: str | bytes = token.encode()
            else:
                sql = f'SELECT count(*) AS n FROM "{table}" WHERE strpos("{name}"::text, $1) > 0'
                needle = token
            assert db_fetch(database_url, sql, needle)[0]["n"] == 0, (table, name)
        digest = hashlib.sha256(token.encode()).digest()
        stored = db_fetch(
            database_url, "SELECT count(*) AS n FROM api_tokens WHERE token_hash = $1", digest
        )
        assert stored[0]["n"] == 1


def _provoke_logging_of_tokens(stack_url: str, token: str) -> None:
    """Requests that put a token where careless logging would pick it up: in the URL path
    of an unmatched route, in a query string, on a wrong method, as a revoked-looking token."""
    headers = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=stack_url, timeout=30) as http:
        responses = [
            (404, http.get(f"/v1/sessions/{token}", headers=headers)),
            (404, http.get(f"/v1/nowhere/{token}", headers=headers)),
            (405, http.patch("/v1/sessions", headers=headers)),
            (404, http.get(f"/v1/runs/{uuid.uuid4()}/events", params={"token": token})),
            (401, http.get("/v1/me", headers={"Authorization": f"Bearer {token}x"})),
        ]
    for status, response in responses:
        assert response.status_code == status, response.text
        assert token not in response.text  # and no error echoes it back


def _service_logs(stack: DevStack) -> dict[str, str]:
    assert stack.log_dir is not None
    logs = {
        p.name: p.read_text(errors="replace") for p in sorted(Path(stack.log_dir).glob("*.log"))
    }
    assert {name.split("-")[0] for name in logs} >= {"api", "parser", "retriever", "judge"}
    return logs


def test_logs_carry_neither_tokens_nor_document_text(
    e2e_stack: DevStack, stack_url: str, alice: AliceWorld, bob_token: str
) -> None:
    _provoke_logging_of_tokens(stack_url, alice.token)
    time.sleep(1.0)  # let the services flush what they logged about those requests
    metrics = httpx.get(f"{stack_url}/metrics", timeout=30).text
    logs = {**_service_logs(e2e_stack), "/metrics": metrics}
    # The logs are real: the work on Alice's run was logged, by id.
    assert any(alice.run_id in text for text in logs.values())
    for name, text in logs.items():
        for token in (alice.token, bob_token):
            assert token not in text, f"a raw token in {name}"
            assert token[len("cpt_") :] not in text, f"a token's secret part in {name}"
        assert alice.canary not in text, f"document text (the canary) in {name}"
        injection_marker = "Ignore previous instructions"
        assert injection_marker not in text, f"source text in {name}"
    # Metrics are per route template, never per user or per id.
    assert alice.run_id not in metrics and alice.session_id not in metrics
