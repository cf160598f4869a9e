"""The `citeproof users|tokens` commands and `citeproof verify` against a served API."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import threading
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator

import asyncpg
import httpx
import msgspec
import pytest
import uvicorn

from citeproof.api import create_app
from citeproof.api.settings import ApiSettings
from citeproof.auth import TokenExpiredError, authenticate
from citeproof.cli import main as cli
from citeproof.contracts.findings import Finding
from citeproof.findings import PRODUCER_PLAN, PRODUCER_RETRIEVE, Found, replace_findings
from citeproof.pipeline import NUMBER_CONFLICT, UNCITED_ENTRY
from tests.integration.api_support import seed_results


@pytest.fixture
def cli_env(database_url, monkeypatch):
    monkeypatch.setenv("DATABASE_URL", database_url)
    return database_url


def _authenticate(url: str, token: str):
    async def check():
        conn = await asyncpg.connect(url)
        try:
            return await authenticate(conn, token)
        finally:
            await conn.close()

    return asyncio.run(check())


def test_users_and_tokens_commands(cli_env, capsys):
    name = f"cli-{uuid.uuid4().hex[:8]}"
    assert cli(["users", "create", name]) == 0
    assert name in capsys.readouterr().out
    assert cli(["users", "create", name]) == 2  # names are unique
    capsys.readouterr()

    assert cli(["tokens", "create", "--user", name, "--label", "laptop"]) == 0
    captured = capsys.readouterr()
    token = captured.out.strip()
    assert token.startswith("cpt_") and "\n" not in token
    caller = _authenticate(cli_env, token)
    assert caller is not None and caller.name == name

    assert cli(["tokens", "list", "--user", name]) == 0
    listing = capsys.readouterr().out
    assert "laptop" in listing and "active" in listing and token not in listing

    assert cli(["tokens", "revoke", str(caller.token_id)]) == 0
    assert _authenticate(cli_env, token) is None
    assert cli(["tokens", "revoke", str(caller.token_id)]) == 2
    assert cli(["tokens", "create", "--user", "nobody-" + name]) == 2


def _expire(url: str, token_id: uuid.UUID) -> None:
    async def expire() -> None:
        conn = await asyncpg.connect(url)
        try:
            await conn.execute(
                "UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE id = $1",
                token_id,
            )
        finally:
            await conn.close()

    asyncio.run(expire())


def test_a_token_with_an_expiry_works_until_then_and_is_refused_after(cli_env, db_settings, capsys):
    name = f"expiring-{uuid.uuid4().hex[:8]}"
    assert cli(["users", "create", name]) == 0
    with pytest.raises(SystemExit) as refused:  # argparse: not a duration
        cli(["tokens", "create", "--user", name, "--expires-in", "soon"])
    assert refused.value.code == 2
    capsys.readouterr()
    assert cli(["tokens", "create", "--user", name, "--expires-in", "1d12h"]) == 0
    captured = capsys.readouterr()
    token = captured.out.strip()
    assert "expires: " in captured.err
    caller = _authenticate(cli_env, token)
    assert caller is not None and caller.token_expires_at is not None
    assert cli(["tokens", "list", "--user", name]) == 0
    assert "active until" in capsys.readouterr().out
    headers = {"Authorization": f"Bearer {token}"}
    with serve_api(db_settings) as api:
        me = httpx.get(f"{api}/v1/me", headers=headers)
        assert me.status_code == 200
        lifetime = msgspec.json.decode(me.content)["token_expires_at"]
        assert lifetime is not None and lifetime.startswith(str(caller.token_expires_at.year))

        _expire(cli_env, caller.token_id)
        for path in ("/v1/me", "/v1/sessions"):
            expired = httpx.get(f"{api}{path}", headers=headers)
            assert expired.status_code == 401
            body = expired.json()
            assert body["code"] == "token_expired" and "expired" in body["detail"]
            assert expired.headers["WWW-Authenticate"].startswith("Bearer")
    with pytest.raises(TokenExpiredError):
        _authenticate(cli_env, token)
    assert cli(["tokens", "list", "--user", name]) == 0
    assert "expired" in capsys.readouterr().out
    # A token created without --expires-in has no expiry.
    assert cli(["tokens", "create", "--user", name]) == 0
    forever = _authenticate(cli_env, capsys.readouterr().out.strip())
    assert forever is not None and forever.token_expires_at is None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def serve_api(db_settings, settings: ApiSettings | None = None) -> Iterator[str]:
    port = _free_port()
    settings = msgspec.structs.replace(settings or ApiSettings(), port=port)
    app = create_app(settings, db_settings=db_settings)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_config=None))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "API did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)


@pytest.fixture
def served_api(db_settings):
    with serve_api(db_settings) as url:
        yield url


def _fake_pipeline(
    url: str,
    user_name: str,
    stop: threading.Event,
    more: Callable[[asyncpg.Connection, str], Awaitable[None]] | None = None,
) -> None:
    """Stands in for parser, planner and judge: finishes the user's runs with fixed verdicts
    (and whatever `more` adds to each run)."""

    async def work() -> None:
        conn = await asyncpg.connect(url)
        try:
            while not stop.is_set():
                run = await conn.fetchrow(
                    "SELECT r.id, r.thesis_document_id, r.document_ids FROM runs r "
                    "JOIN users u ON u.id = r.user_id "
                    "WHERE u.name = $1 AND r.status = 'waiting_for_documents'",
                    user_name,
                )
                if run is None:
                    await asyncio.sleep(0.2)
                    continue
                await conn.execute(
                    "UPDATE documents SET state = 'parsed' WHERE id = ANY($1)",
                    run["document_ids"],
                )
                await conn.execute(
                    "UPDATE parse_items SET state = 'succeeded', file_bytes = NULL "
                    "WHERE document_id = ANY($1)",
                    run["document_ids"],
                )
                await conn.execute(
                    "UPDATE parse_jobs SET state = 'succeeded' WHERE id IN "
                    "(SELECT job_id FROM parse_items WHERE document_id = ANY($1))",
                    run["document_ids"],
                )
                sources = await conn.fetch(
                    "SELECT id FROM documents WHERE id = ANY($1) AND kind = 'source' "
                    "ORDER BY filename",
                    run["document_ids"],
                )
                ids = {
                    "thesis_id": str(run["thesis_document_id"]),
                    "smith_id": str(sources[0]["id"]),
                    "doe_id": str(sources[1]["id"]),
                }
                await seed_results(conn, str(run["id"]), ids)
                if more is not None:
                    await more(conn, str(run["id"]))
        finally:
            await conn.close()

    asyncio.run(work())


def test_verify_uploads_waits_writes_the_report_and_exits_1_on_problems(
    cli_env, served_api, tmp_path, capsys
):
    name = f"verify-{uuid.uuid4().hex[:8]}"
    assert cli(["users", "create", name]) == 0
    assert cli(["tokens", "create", "--user", name]) == 0
    token = capsys.readouterr().out.strip().splitlines()[-1]
    thesis = tmp_path / "thesis.md"
    thesis.write_text("# Cooling cities\nTrees cool streets [1].\n")
    sources = [tmp_path / "smith2020.pdf", tmp_path / "doe2019.pdf"]
    for n, path in enumerate(sources):
        path.write_bytes(f"%PDF-1.4 source {n} {uuid.uuid4()}".encode())

    stop = threading.Event()
    pipeline = threading.Thread(target=_fake_pipeline, args=(cli_env, name, stop), daemon=True)
    pipeline.start()
    out = tmp_path / "report.html"
    try:
        code = cli(["verify", str(thesis), *map(str, sources), "--out", str(out),
                    "--api", served_api, "--token", token, "--timeout", "60"])  # fmt: skip
    finally:
        stop.set()
        pipeline.join(timeout=10)
    captured = capsys.readouterr()
    assert code == 1, captured.err
    assert out.read_text().startswith("<!doctype html>")
    assert "contradicted" in captured.out and "unsupported" in captured.out
    assert "total" in captured.out and str(out.resolve()) in captured.out
    assert "judge 4/4" in captured.err  # the last progress line

    json_out = tmp_path / "report.json"
    thesis.write_text("# Cooling cities, second edition\nTrees cool streets [1].\n")
    stop = threading.Event()
    pipeline = threading.Thread(target=_fake_pipeline, args=(cli_env, name, stop), daemon=True)
    pipeline.start()
    try:
        assert cli(["verify", str(thesis), *map(str, sources), "--out", str(json_out),
                    "--api", served_api, "--token", token, "--timeout", "60"]) == 1  # fmt: skip
    finally:
        stop.set()
        pipeline.join(timeout=10)
    assert '"contradicted": 1' in json_out.read_text()


def test_verify_exits_2_on_errors(cli_env, served_api, tmp_path, capsys):
    thesis = tmp_path / "t.md"
    thesis.write_text("x")
    assert cli(["verify", str(thesis), "--api", served_api, "--token", "cpt_wrong"]) == 2
    assert "invalid_token" in capsys.readouterr().err
    assert cli(["verify", str(tmp_path / "missing.pdf"), "--token", "cpt_x"]) == 2
    assert cli(["verify", str(thesis), "--token", "cpt_x", "--out", "r.docx"]) == 2
    assert cli(["verify", str(thesis), "--api", "http://127.0.0.1:9", "--token", "cpt_x"]) == 2
    assert "cannot reach" in capsys.readouterr().err


def test_verify_waits_out_the_active_jobs_cap(cli_env, db_settings, tmp_path, capsys):
    name = f"patient-{uuid.uuid4().hex[:8]}"
    assert cli(["users", "create", name]) == 0
    assert cli(["tokens", "create", "--user", name]) == 0
    token = capsys.readouterr().out.strip().splitlines()[-1]
    with serve_api(db_settings, ApiSettings(active_jobs_retry_after_s=1)) as api:
        headers = {"Authorization": f"Bearer {token}"}
        session = httpx.post(f"{api}/v1/sessions", json={"name": "busy"}, headers=headers)
        for n in range(3):  # three uploads nobody parses yet: the cap is reached
            busy = httpx.post(
                f"{api}/v1/sessions/{session.json()['id']}/documents",
                files=[("files", (f"{n}.pdf", uuid.uuid4().bytes, "application/pdf"))],
                data={"kind": "source"},
                headers=headers,
            )
            assert busy.status_code == 202

        thesis = tmp_path / "thesis.md"
        thesis.write_text(f"# Patience {uuid.uuid4()}\nTrees cool streets [1].\n")
        sources = [tmp_path / "smith.pdf", tmp_path / "doe.pdf"]
        for path in sources:
            path.write_bytes(f"%PDF {uuid.uuid4()}".encode())
        stop = threading.Event()

        def release_then_work() -> None:
            time.sleep(2)  # verify meets the cap first, then the jobs finish
            asyncio.run(_finish_all_jobs(cli_env, name))
            _fake_pipeline(cli_env, name, stop)

        pipeline = threading.Thread(target=release_then_work, daemon=True)
        pipeline.start()
        try:
            code = cli(["verify", str(thesis), *map(str, sources), "--out",
                        str(tmp_path / "r.md"), "--api", api, "--token", token,
                        "--timeout", "60"])  # fmt: skip
        finally:
            stop.set()
            pipeline.join(timeout=10)
    err = capsys.readouterr().err
    assert "too_many_active_jobs" in err and "retrying" in err
    assert code == 1
    assert (tmp_path / "r.md").read_text().startswith("# Citation report")


async def _finish_all_jobs(url: str, user_name: str) -> None:
    conn = await asyncpg.connect(url)
    try:
        await conn.execute(
            "UPDATE parse_jobs SET state = 'succeeded' WHERE user_id = "
            "(SELECT id FROM users WHERE name = $1)",
            user_name,
        )
    finally:
        await conn.close()


async def _seed_findings(conn: asyncpg.Connection, run_id: str) -> None:
    """A number conflict on the citation of Smith, an uncited entry (Roe), as the retrieve and
    plan stages store them."""
    run = await conn.fetchrow("SELECT id, user_id FROM runs WHERE id = $1", uuid.UUID(run_id))
    citation = await conn.fetchval(
        "SELECT c.id FROM citations c JOIN runs r ON r.thesis_document_id = c.document_id "
        "WHERE r.id = $1 AND c.claim_text LIKE 'Trees cool streets%'",
        run["id"],
    )
    entry = await conn.fetchval(
        'SELECT rf.id FROM "references" rf JOIN runs r ON r.thesis_document_id = rf.document_id '
        "WHERE r.id = $1 AND rf.label = '3'",
        run["id"],
    )
    conflict = Finding(rule=NUMBER_CONFLICT.code, message="2 °C in the claim, 0.2 °C in the source",
                       key="2 °C")  # fmt: skip
    found = [Found(conflict, citation_id=citation)]
    await replace_findings(conn, run_id=run["id"], user_id=run["user_id"],
                           producer=PRODUCER_RETRIEVE, found=found,
                           citation_ids=[citation])  # fmt: skip
    uncited = Finding(rule=UNCITED_ENTRY.code, message="No citation points to this entry.")
    await replace_findings(conn, run_id=run["id"], user_id=run["user_id"],
                           producer=PRODUCER_PLAN, found=[Found(uncited, reference_id=entry)],
                           reference_ids=[entry])  # fmt: skip


def _check_with_findings(cli_env: str, name: str, args: list[str]) -> int:
    stop = threading.Event()
    pipeline = threading.Thread(
        target=_fake_pipeline, args=(cli_env, name, stop, _seed_findings), daemon=True
    )
    pipeline.start()
    try:
        return cli(args)
    finally:
        stop.set()
        pipeline.join(timeout=10)


def test_check_sends_the_rule_overrides_so_the_apis_formats_honour_them(
    cli_env, served_api, tmp_path, capsys
):
    name = f"rules-{uuid.uuid4().hex[:8]}"
    assert cli(["users", "create", name]) == 0
    assert cli(["tokens", "create", "--user", name]) == 0
    token = capsys.readouterr().out.strip().splitlines()[-1]
    thesis = tmp_path / "thesis.md"
    thesis.write_text("# Cooling cities\nTrees cool streets [1].\n")
    sources = [tmp_path / "smith2020.pdf", tmp_path / "doe2019.pdf"]
    for n, path in enumerate(sources):
        path.write_bytes(f"%PDF-1.4 source {n} {uuid.uuid4()}".encode())
    common = [str(thesis), *map(str, sources), "--api", served_api, "--token", token,
              "--timeout", "60", "--no-config", "-f", "md", "-f", "json", "-f",
              "sarif"]  # fmt: skip

    # As configured by default: the number conflict is an error, the Markdown shows it.
    plain = tmp_path / "plain"
    assert _check_with_findings(cli_env, name, ["check", *common, "-o", str(plain),
                                                "--fail-on", "error"]) == 1  # fmt: skip
    assert NUMBER_CONFLICT.code in (tmp_path / "plain.md").read_text()

    configured = tmp_path / "configured"
    thesis.write_text("# Cooling cities, configured\nTrees cool streets [1].\n")  # a new document
    code = _check_with_findings(cli_env, name, [
        "check", *common, "-o", str(configured), "--fail-on", "error",
        "--disable", NUMBER_CONFLICT.slug, "--severity", f"{UNCITED_ENTRY.slug}=error",
    ])  # fmt: skip
    out = capsys.readouterr().out
    # The uncited entry, re-levelled, is now the error that fails the check.
    assert code == 1, out
    assert f"{UNCITED_ENTRY.code} {UNCITED_ENTRY.slug}" in out.split("needs attention")[1]
    markdown = (tmp_path / "configured.md").read_text()
    assert NUMBER_CONFLICT.code not in markdown and UNCITED_ENTRY.code in markdown
    report = json.loads((tmp_path / "configured.json").read_text())
    assert report["configuration"]["disabled"] == [NUMBER_CONFLICT.code]
    assert not any(f["rule"] == NUMBER_CONFLICT.code for c in report["citations"]
                   for f in c["findings"])  # fmt: skip
    [entry_finding] = [f for e in report["entries"] for f in e["findings"]]
    assert entry_finding["severity"] == "error"
    assert report["summary"]["findings"]["error"] >= 1
    sarif = json.loads((tmp_path / "configured.sarif").read_text())
    assert {r["ruleId"] for r in sarif["runs"][0]["results"]} >= {UNCITED_ENTRY.code}
    assert NUMBER_CONFLICT.code not in {r["ruleId"] for r in sarif["runs"][0]["results"]}
