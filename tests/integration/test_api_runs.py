"""Runs: start, status and progress, live events, cancel, and the reports."""

from __future__ import annotations

import asyncio
import json
import threading
import time
import uuid

import asyncpg

from citeproof.api.settings import ApiSettings
from tests.integration.api_support import (
    api_client,
    assert_error,
    finish_parsing,
    new_user,
    seed_results,
    thesis_with_sources,
    upload,
)


async def start_run(client, user, ids) -> str:
    response = await client.post(
        f"/v1/sessions/{ids['session_id']}/runs",
        json={"thesis_document_id": ids["thesis_id"]},
        headers=user.headers,
    )
    assert response.status_code == 202, response.text
    return response.json()["run_id"]


async def test_start_run_records_the_session_documents_and_notifies(pool, db_settings):
    alice = await new_user(pool)
    received: list[str] = []
    listener = await pool.acquire()

    def on_notify(*args) -> None:
        received.append(args[2])

    await listener.add_listener("citeproof_retrieve", on_notify)
    try:
        async with api_client(db_settings) as client:
            ids = await thesis_with_sources(client, alice)
            run_id = await start_run(client, alice, ids)
            for _ in range(50):
                if received:
                    break
                await asyncio.sleep(0.05)
    finally:
        await listener.remove_listener("citeproof_retrieve", on_notify)
        await pool.release(listener)
    assert received == ["citeproof_retrieve"]
    async with api_client(db_settings) as client:
        listed = await client.get(f"/v1/sessions/{ids['session_id']}/runs", headers=alice.headers)
    assert listed.status_code == 200
    [summary] = listed.json()["items"]
    assert summary["id"] == run_id and summary["status"] == "waiting_for_documents"
    assert summary["thesis_document_id"] == ids["thesis_id"]
    row = await pool.fetchrow(
        "SELECT status, state, document_ids, user_id FROM runs WHERE id = $1", uuid.UUID(run_id)
    )
    assert (row["status"], row["state"]) == ("waiting_for_documents", "queued")
    assert row["user_id"] == alice.user_id
    expected = {uuid.UUID(ids[k]) for k in ("thesis_id", "smith_id", "doe_id")}
    assert set(row["document_ids"]) == expected


async def test_run_needs_a_thesis_of_the_session(pool, db_settings):
    alice = await new_user(pool)
    async with api_client(db_settings) as client:
        ids = await thesis_with_sources(client, alice)
        url = f"/v1/sessions/{ids['session_id']}/runs"
        source = await client.post(
            url, json={"thesis_document_id": ids["smith_id"]}, headers=alice.headers
        )
        assert_error(source, 422, "not_a_thesis")
        missing = await client.post(
            url, json={"thesis_document_id": str(uuid.uuid4())}, headers=alice.headers
        )
        assert_error(missing, 404, "document_not_found")
        await finish_parsing(pool, ids["thesis_job"])
        await finish_parsing(pool, ids["sources_job"])
        other = await thesis_with_sources(client, alice)
        not_in_session = await client.post(
            url, json={"thesis_document_id": other["thesis_id"]}, headers=alice.headers
        )
        assert_error(not_in_session, 404, "document_not_found")


async def test_a_user_over_the_active_runs_cap_gets_429_until_a_run_finishes(pool, db_settings):
    alice, bob = await new_user(pool), await new_user(pool)
    settings = ApiSettings(max_active_runs_per_user=2)
    async with api_client(db_settings, settings) as client:
        ids = await thesis_with_sources(client, alice)
        first = await start_run(client, alice, ids)
        await start_run(client, alice, ids)
        url = f"/v1/sessions/{ids['session_id']}/runs"
        body = {"thesis_document_id": ids["thesis_id"]}
        refused = await client.post(url, json=body, headers=alice.headers)
        assert_error(refused, 429, "too_many_active_runs")
        assert int(refused.headers["retry-after"]) == settings.active_jobs_retry_after_s
        assert (
            await pool.fetchval("SELECT count(*) FROM runs WHERE user_id = $1", alice.user_id) == 2
        )
        # Another user's runs are theirs to count.
        await start_run(client, bob, await thesis_with_sources(client, bob))
        # A finished run frees its place; so does a cancelled one.
        await pool.execute("UPDATE runs SET status = 'completed' WHERE id = $1", uuid.UUID(first))
        third = await start_run(client, alice, ids)
        assert_error(await client.post(url, json=body, headers=alice.headers), 429,
                     "too_many_active_runs")  # fmt: skip
        cancel = await client.post(f"/v1/runs/{third}/cancel", headers=alice.headers)
        assert cancel.status_code == 202, cancel.text
        await start_run(client, alice, ids)


async def test_a_session_holds_at_most_the_documents_cap(pool, db_settings):
    alice = await new_user(pool)
    async with api_client(db_settings, ApiSettings(max_documents_per_session=4)) as client:
        ids = await thesis_with_sources(client, alice)  # 3 documents
        await finish_parsing(pool, ids["thesis_job"])
        await finish_parsing(pool, ids["sources_job"])
        session = ids["session_id"]
        linked = "SELECT count(*) FROM session_sources WHERE session_id = $1"
        jobs = "SELECT count(*) FROM parse_jobs WHERE session_id = $1"
        tag = uuid.uuid4().hex.encode()
        a, b, c = ((f"{n}.pdf", b"%PDF " + n.encode() + tag) for n in "abc")
        refused = await upload(client, alice, session, [b, c])
        assert_error(refused, 413, "too_many_documents")
        assert await pool.fetchval(linked, uuid.UUID(session)) == 3
        assert await pool.fetchval(jobs, uuid.UUID(session)) == 2  # nothing staged
        assert (await upload(client, alice, session, [a])).status_code == 202
        # A file the session already holds adds nothing: sent again it still fits.
        assert (await upload(client, alice, session, [a])).status_code == 202
        assert_error(await upload(client, alice, session, [a, b]), 413, "too_many_documents")
        assert await pool.fetchval(linked, uuid.UUID(session)) == 4
    # A session filled before the cap was lowered cannot start a run.
    async with api_client(db_settings, ApiSettings(max_documents_per_session=3)) as client:
        run = await client.post(
            f"/v1/sessions/{session}/runs",
            json={"thesis_document_id": ids["thesis_id"]},
            headers=alice.headers,
        )
        assert_error(run, 422, "too_many_documents")
    assert await pool.fetchval("SELECT count(*) FROM runs WHERE user_id = $1", alice.user_id) == 0


async def test_status_reports_progress_and_missing_workers(pool, db_settings):
    alice = await new_user(pool)
    async with api_client(db_settings) as client:
        ids = await thesis_with_sources(client, alice)
        run_id = await start_run(client, alice, ids)
        await pool.execute("DELETE FROM worker_heartbeats")
        status = (await client.get(f"/v1/runs/{run_id}", headers=alice.headers)).json()
        assert status["status"] == "waiting_for_documents"
        assert status["progress"]["parse"] == {"done": 0, "total": 3}
        assert status["waiting_for"] == ["parser worker", "retriever worker (planning)"]
        assert status["counts"] == {} and status["finished_at"] is None

        await pool.execute(
            "INSERT INTO worker_heartbeats (worker_id, service, version, capabilities, hostname,"
            " pid) VALUES ('p1', 'parser', 't', '{parse:pdf,parse:docx}', 'h', 1),"
            " ('r-old', 'retriever', 't', '{plan,retrieve}', 'h', 2),"
            " ('r-drain', 'retriever', 't', '{plan,retrieve}', 'h', 3)"
        )
        await pool.execute(
            "UPDATE worker_heartbeats SET last_seen = now() - interval '1 hour' "
            "WHERE worker_id = 'r-old'"
        )
        await pool.execute(
            "UPDATE worker_heartbeats SET draining = true WHERE worker_id = 'r-drain'"
        )
        status = (await client.get(f"/v1/runs/{run_id}", headers=alice.headers)).json()
        assert status["waiting_for"] == ["retriever worker (planning)"]

        await finish_parsing(pool, ids["thesis_job"])
        await finish_parsing(pool, ids["sources_job"])
        await pool.execute(
            "UPDATE runs SET status = 'judging', tasks_total = 4, retrieved = 4, judged = 1 "
            "WHERE id = $1",
            uuid.UUID(run_id),
        )
        status = (await client.get(f"/v1/runs/{run_id}", headers=alice.headers)).json()
        assert status["progress"] == {
            "parse": {"done": 3, "total": 3},
            "retrieve": {"done": 4, "total": 4},
            "judge": {"done": 1, "total": 4},
        }
        await pool.execute("DELETE FROM worker_heartbeats")


async def test_cancel_withdraws_queued_work_and_notifies(pool, db_settings):
    alice = await new_user(pool)
    async with api_client(db_settings) as client:
        ids = await thesis_with_sources(client, alice)
        run_id = await start_run(client, alice, ids)
        cancel = await client.post(f"/v1/runs/{run_id}/cancel", headers=alice.headers)
        assert cancel.status_code == 202
        assert cancel.json() == {"run_id": run_id, "status": "cancelled"}
        row = await pool.fetchrow(
            "SELECT status, state, finished_at FROM runs WHERE id = $1", uuid.UUID(run_id)
        )
        assert (row["status"], row["state"]) == ("cancelled", "cancelled")
        assert row["finished_at"] is not None
        again = await client.post(f"/v1/runs/{run_id}/cancel", headers=alice.headers)
        assert again.status_code == 202

        finished = await start_run(client, alice, ids)
        await seed_results(pool, finished, ids)
        late = await client.post(f"/v1/runs/{finished}/cancel", headers=alice.headers)
        assert_error(late, 409, "run_finished")


async def test_cancel_marks_queued_tasks_cancelled(pool, db_settings):
    alice = await new_user(pool)
    async with api_client(db_settings) as client:
        ids = await thesis_with_sources(client, alice)
        run_id = await start_run(client, alice, ids)
        await seed_results(pool, run_id, ids)
        await pool.execute(
            "UPDATE runs SET status = 'judging', state = 'succeeded', finished_at = NULL "
            "WHERE id = $1",
            uuid.UUID(run_id),
        )
        citations = await pool.fetch(
            "SELECT id FROM citations WHERE document_id = $1 ORDER BY ordinal",
            uuid.UUID(ids["thesis_id"]),
        )
        for n, citation in enumerate(citations):
            await pool.execute(
                "INSERT INTO judge_tasks (run_id, citation_id, user_id, state) "
                "VALUES ($1, $2, $3, $4)",
                uuid.UUID(run_id),
                citation["id"],
                alice.user_id,
                "succeeded" if n == 0 else "queued",
            )
        cancel = await client.post(f"/v1/runs/{run_id}/cancel", headers=alice.headers)
        assert cancel.status_code == 202
        states = await pool.fetch(
            "SELECT state FROM judge_tasks WHERE run_id = $1 ORDER BY id", uuid.UUID(run_id)
        )
        assert [s["state"] for s in states] == ["succeeded", "cancelled", "cancelled", "cancelled"]


def parse_sse(text: str) -> list[tuple[str, str]]:
    events = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        fields = dict(
            line.split(": ", 1) for line in block.split("\n") if ": " in line and line[0] != ":"
        )
        if "event" in fields:
            events.append((fields["event"], fields.get("data", "")))
    return events


async def test_event_stream_ends_with_done_for_a_finished_run(pool, db_settings):
    alice = await new_user(pool)
    async with api_client(db_settings) as client:
        ids = await thesis_with_sources(client, alice)
        run_id = await start_run(client, alice, ids)
        await seed_results(pool, run_id, ids)
        response = await client.get(f"/v1/runs/{run_id}/events?token={alice.token}")
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        events = parse_sse(response.text)
        assert [e for e, _ in events] == ["progress", "done"]
        assert json.loads(events[-1][1])["status"] == "completed"
        assert json.loads(events[-1][1])["counts"]["supported"] == 1


async def test_event_stream_wakes_on_notification(pool, db_settings):
    alice = await new_user(pool)
    # A slow path of a minute: only the notification can end the stream in time.
    settings = ApiSettings(sse_slow_poll_s=60)
    async with api_client(db_settings, settings) as client:
        ids = await thesis_with_sources(client, alice)
        run_id = await start_run(client, alice, ids)

        # The test client serves the app on its own thread and blocks this loop while a
        # request is open, so the "worker" finishing the run is another thread.
        def finish_later() -> None:
            async def work() -> None:
                conn = await asyncpg.connect(db_settings.url)
                try:
                    await asyncio.sleep(1.0)
                    await seed_results(conn, run_id, ids)
                    await conn.execute("SELECT pg_notify('citeproof_events', $1)", run_id)
                finally:
                    await conn.close()

            asyncio.run(work())

        finisher = threading.Thread(target=finish_later)
        finisher.start()
        started = time.monotonic()
        response = await client.get(f"/v1/runs/{run_id}/events", headers=alice.headers)
        finisher.join()
        assert response.status_code == 200
        # Well under the 60 s slow path: the notification woke the stream.
        assert time.monotonic() - started < 30
        events = parse_sse(response.text)
        assert events[0][0] == "progress"
        assert json.loads(events[0][1])["status"] == "waiting_for_documents"
        assert events[-1][0] == "done"
        assert json.loads(events[-1][1])["status"] == "completed"


async def test_json_report(pool, db_settings):
    alice = await new_user(pool)
    async with api_client(db_settings) as client:
        ids = await thesis_with_sources(client, alice)
        run_id = await start_run(client, alice, ids)
        await seed_results(pool, run_id, ids)
        response = await client.get(f"/v1/runs/{run_id}/report", headers=alice.headers)
        assert response.status_code == 200
        report = response.json()
        assert report["run"]["status"] == "completed"
        assert report["thesis"] == {
            "id": ids["thesis_id"],
            "title": "Cooling <b>cities</b>",
            "filename": "thesis.pdf",
        }
        assert report["summary"]["total"] == 4
        counts = report["summary"]["counts"]
        assert (counts["supported"], counts["contradicted"], counts["unsupported"]) == (1, 1, 1)
        assert counts["source_missing"] == 1 and counts["judge_error"] == 0
        first, _, missing, _ = report["citations"]
        assert first["marker"] == "[1]" and first["ordinal"] == 0
        assert first["reference"] == {
            "label": "1",
            "raw": "Smith, J. (2020). Heat & trees. <i>Nature</i>.",
            "title": "Heat & trees",
        }
        assert first["source"] == {
            "document_id": ids["smith_id"],
            "title": "Heat & trees",
            "filename": "smith2020.pdf",
            # How the reference was linked to the source, and how sure (seeded by the test).
            "link_method": "test",
            "link_score": 0.9,
            "shared_with": [],
        }
        assert first["verdict"]["label"] == "supported"
        assert first["verdict"]["quote_page"] == 3 and first["verdict"]["model"] == "m1"
        # A pipeline label that is a finding is reported once, as its rule's finding.
        assert missing["source"] is None and missing["verdict"] is None
        assert [f["slug"] for f in missing["findings"]] == ["source-missing"]


async def test_a_source_linked_to_several_references_is_flagged_in_every_format(pool, db_settings):
    alice = await new_user(pool)
    async with api_client(db_settings) as client:
        ids = await thesis_with_sources(client, alice)
        run_id = await start_run(client, alice, ids)
        await seed_results(pool, run_id, ids)
        # An override points reference 3 at Smith's source too (explicit links may share it).
        await pool.execute(
            "UPDATE run_reference_links SET document_id = $2, method = 'explicit' "
            'WHERE run_id = $1 AND reference_id = (SELECT id FROM "references" '
            "WHERE document_id = $3 AND label = '3')",
            uuid.UUID(run_id),
            uuid.UUID(ids["smith_id"]),
            uuid.UUID(ids["thesis_id"]),
        )
        report = (await client.get(f"/v1/runs/{run_id}/report", headers=alice.headers)).json()
        shared = {
            c["reference"]["label"]: c["source"]["shared_with"]
            for c in report["citations"]
            if c["source"]
        }
        assert shared == {"1": ["3"], "2": [], "3": ["1"]}
        base = f"/v1/runs/{run_id}/report"
        markdown = (await client.get(f"{base}?format=markdown", headers=alice.headers)).text
        assert "also linked to 3" in markdown and "also linked to 1" in markdown
        html = (await client.get(f"{base}?format=html", headers=alice.headers)).text
        assert "also linked to 3" in html and "also linked to 1" in html


# seed_results: supported, contradicted, source_missing and unsupported; no finding stored.
HEADLINE = (
    "No error or warning found; of 3 citations the judge read, 2 are likely problems and 1 "
    "likely fine; 1 of 4 could not be checked (1 without an uploaded source)."
)


async def test_markdown_and_html_reports_escape_everything(pool, db_settings):
    alice = await new_user(pool)
    async with api_client(db_settings) as client:
        ids = await thesis_with_sources(client, alice)
        run_id = await start_run(client, alice, ids)
        await seed_results(pool, run_id, ids)

        markdown = await client.get(
            f"/v1/runs/{run_id}/report?format=markdown", headers=alice.headers
        )
        assert markdown.status_code == 200
        assert markdown.headers["content-type"].startswith("text/markdown")
        text = markdown.text
        assert "| Supported | 1 |" in text and "| Contradicted | 1 |" in text
        assert "Shade \\| matters" in text  # a pipe cannot break the table
        assert "**Source:** Heat &amp; trees (linked by test, 0.90)" in text
        assert "<script>" not in text and "<img" not in text
        assert "&lt;script&gt;" in text
        assert HEADLINE in text

        page = await client.get(f"/v1/runs/{run_id}/report?format=html", headers=alice.headers)
        assert page.status_code == 200
        assert page.headers["content-type"].startswith("text/html")
        html = page.text
        assert html.startswith("<!doctype html>")
        assert "<script>x</script>" not in html and "<img src=x" not in html
        assert "&lt;script&gt;x&lt;/script&gt;" in html
        assert "Cooling &lt;b&gt;cities&lt;/b&gt;" in html
        assert "Heat &amp; trees" in html
        assert "Contradicted" in html and "confidence 0.87" in html
        assert HEADLINE in html
        assert "http://" not in html and "https://" not in html  # self-contained

        bad = await client.get(f"/v1/runs/{run_id}/report?format=pdf", headers=alice.headers)
        assert_error(bad, 400, "validation_error")
