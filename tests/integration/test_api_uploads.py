"""Uploads: staging, content addressing, parse jobs, admission caps and bad input."""

from __future__ import annotations

import asyncio
import uuid

from citeproof.api.settings import MIB, ApiSettings
from tests.integration.api_support import (
    api_client,
    assert_error,
    finish_parsing,
    new_session,
    new_user,
    upload,
)


async def test_upload_stages_bytes_links_documents_and_queues_one_job(pool, db_settings):
    alice = await new_user(pool)
    async with api_client(db_settings) as client:
        session_id = await new_session(client, alice)
        files = [("a.pdf", b"%PDF-1.4 first source"), ("b.pdf", b"%PDF-1.4 second source")]
        response = await upload(client, alice, session_id, files)
        assert response.status_code == 202, response.text
        body = response.json()
        assert [d["filename"] for d in body["documents"]] == ["a.pdf", "b.pdf"]
        assert all(d["kind"] == "source" and not d["duplicate"] for d in body["documents"])
        job_id = uuid.UUID(body["job_id"])

        items = await pool.fetch(
            "SELECT filename, file_bytes, size_bytes, state, user_id FROM parse_items "
            "WHERE job_id = $1 ORDER BY id",
            job_id,
        )
        assert [(i["filename"], i["file_bytes"]) for i in items] == files
        assert all(i["state"] == "queued" and i["user_id"] == alice.user_id for i in items)
        job = await pool.fetchrow("SELECT state, total_items FROM parse_jobs WHERE id = $1", job_id)
        assert (job["state"], job["total_items"]) == ("queued", 2)
        links = await pool.fetchval(
            "SELECT count(*) FROM session_sources WHERE session_id = $1", uuid.UUID(session_id)
        )
        assert links == 2

        status = await client.get(f"/v1/jobs/{job_id}", headers=alice.headers)
        assert status.status_code == 200
        assert status.json()["state"] == "queued" and status.json()["total"] == 2
        assert {i["filename"] for i in status.json()["items"]} == {"a.pdf", "b.pdf"}
        listed = await client.get(f"/v1/sessions/{session_id}/documents", headers=alice.headers)
        assert {d["state"] for d in listed.json()["items"]} == {"pending"}


async def test_notification_is_sent_with_the_upload(pool, db_settings):
    alice = await new_user(pool)
    received: list[str] = []
    listener = await pool.acquire()

    def on_notify(*args) -> None:
        received.append(args[2])

    await listener.add_listener("citeproof_parse", on_notify)
    try:
        async with api_client(db_settings) as client:
            session_id = await new_session(client, alice)
            response = await upload(client, alice, session_id, [("n.pdf", b"%PDF notify")])
            assert response.status_code == 202
            for _ in range(50):
                if received:
                    break
                await asyncio.sleep(0.05)
        assert received == ["citeproof_parse"]
    finally:
        await listener.remove_listener("citeproof_parse", on_notify)
        await pool.release(listener)


async def test_already_parsed_bytes_are_linked_not_reparsed(pool, db_settings):
    alice = await new_user(pool)
    async with api_client(db_settings) as client:
        first_session = await new_session(client, alice, "one")
        first = await upload(client, alice, first_session, [("paper.pdf", b"%PDF same bytes")])
        await finish_parsing(pool, first.json()["job_id"])

        second_session = await new_session(client, alice, "two")
        again = await upload(client, alice, second_session, [("renamed.pdf", b"%PDF same bytes")])
        assert again.status_code == 202
        document = again.json()["documents"][0]
        assert document["duplicate"] is True and document["state"] == "parsed"
        assert document["id"] == first.json()["documents"][0]["id"]
        job = await client.get(f"/v1/jobs/{again.json()['job_id']}", headers=alice.headers)
        assert job.json()["state"] == "succeeded" and job.json()["total"] == 0
        assert job.json()["items"] == []
        second = await client.get(f"/v1/sessions/{second_session}", headers=alice.headers)
        assert [d["id"] for d in second.json()["documents"]] == [document["id"]]


async def test_fourth_active_job_is_refused_with_retry_after(pool, db_settings):
    alice = await new_user(pool)
    async with api_client(db_settings) as client:
        session_id = await new_session(client, alice)
        for n in range(3):
            ok = await upload(client, alice, session_id, [(f"{n}.pdf", f"%PDF {n}".encode())])
            assert ok.status_code == 202
        refused = await upload(client, alice, session_id, [("4.pdf", b"%PDF 4")])
        body = assert_error(refused, 429, "too_many_active_jobs")
        assert "3" in body["detail"]
        assert int(refused.headers["Retry-After"]) > 0
        # Nothing of the refused upload was kept.
        assert (
            await pool.fetchval("SELECT count(*) FROM documents WHERE user_id = $1", alice.user_id)
            == 3
        )
        # Another user is not affected by Alice's jobs.
        bob = await new_user(pool)
        bob_session = await new_session(client, bob)
        assert (await upload(client, bob, bob_session, [("b.pdf", b"%PDF b")])).status_code == 202


async def test_concurrent_uploads_cannot_overshoot_the_job_cap(pool, db_settings):
    alice = await new_user(pool)
    async with api_client(db_settings) as client:
        session_id = await new_session(client, alice)
        responses = await asyncio.gather(
            *[
                upload(client, alice, session_id, [(f"{n}.pdf", f"%PDF c{n}".encode())])
                for n in range(6)
            ]
        )
        codes = sorted(r.status_code for r in responses)
        assert codes == [202, 202, 202, 429, 429, 429]
        assert (
            await pool.fetchval("SELECT count(*) FROM parse_jobs WHERE user_id = $1", alice.user_id)
            == 3
        )


async def test_staged_bytes_over_120_mb_are_refused(pool, db_settings):
    alice = await new_user(pool)
    settings = ApiSettings()
    assert settings.max_staged_bytes == 120 * MIB
    async with api_client(db_settings, settings) as client:
        session_id = await new_session(client, alice)
        first = await upload(client, alice, session_id, [("big.pdf", b"%PDF big")])
        # Pretend the staged item is 119.5 MiB (the cap counts size_bytes of staged items).
        await pool.execute(
            "UPDATE parse_items SET size_bytes = $2 WHERE job_id = $1",
            uuid.UUID(first.json()["job_id"]),
            int(119.5 * MIB),
        )
        refused = await upload(client, alice, session_id, [("more.pdf", b"x" * MIB)])
        body = assert_error(refused, 413, "staged_bytes_limit")
        assert "120 MiB" in body["detail"]
        small = await upload(client, alice, session_id, [("small.pdf", b"x" * 1000)])
        assert small.status_code == 202
        # Once parsed (bytes NULLed), the staged bytes no longer count.
        await finish_parsing(pool, first.json()["job_id"])
        again = await upload(client, alice, session_id, [("more.pdf", b"x" * MIB)])
        assert again.status_code == 202


async def test_per_file_cap_and_single_upload_cap(pool, db_settings):
    alice = await new_user(pool)
    settings = ApiSettings(max_file_bytes=10_000, max_staged_bytes=25_000)
    async with api_client(db_settings, settings) as client:
        session_id = await new_session(client, alice)
        too_big = await upload(client, alice, session_id, [("huge.pdf", b"x" * 10_001)])
        body = assert_error(too_big, 413, "file_too_large")
        assert "huge.pdf" in body["detail"]
        together = await upload(
            client, alice, session_id, [(f"{n}.pdf", bytes([n]) * 9_000) for n in range(3)]
        )
        assert_error(together, 413, "staged_bytes_limit")
        assert (
            await pool.fetchval(
                "SELECT count(*) FROM parse_items WHERE user_id = $1", alice.user_id
            )
            == 0
        )


async def test_bad_requests_get_their_own_codes(pool, db_settings):
    alice = await new_user(pool)
    async with api_client(db_settings) as client:
        session_id = await new_session(client, alice)
        url = f"/v1/sessions/{session_id}/documents"
        as_json = await client.post(url, json={"files": []}, headers=alice.headers)
        assert_error(as_json, 415, "unsupported_media_type")
        no_boundary = await client.post(
            url, content=b"x", headers={**alice.headers, "Content-Type": "multipart/form-data"}
        )
        assert_error(no_boundary, 400, "malformed_multipart")
        truncated = await client.post(
            url,
            content=b'--XX\r\nContent-Disposition: form-data; name="files"; filename="a.pdf"\r\n'
            b"\r\n%PDF never ends",
            headers={**alice.headers, "Content-Type": "multipart/form-data; boundary=XX"},
        )
        assert_error(truncated, 400, "malformed_multipart")
        garbage = await client.post(
            url,
            content=b"this is not multipart at all",
            headers={**alice.headers, "Content-Type": "multipart/form-data; boundary=XX"},
        )
        assert_error(garbage, 400, "malformed_multipart")
        no_kind = await client.post(
            url, files=[("files", ("a.pdf", b"%PDF", "application/pdf"))], headers=alice.headers
        )
        assert_error(no_kind, 422, "invalid_kind")
        bad_kind = await upload(client, alice, session_id, [("a.pdf", b"%PDF")], kind="paper")
        assert_error(bad_kind, 422, "invalid_kind")
        form_only = await client.post(url, data={"kind": "source"}, headers=alice.headers)
        assert_error(form_only, 415, "unsupported_media_type")
        no_files = await client.post(
            url, files=[("kind", (None, b"source"))], headers=alice.headers
        )
        assert_error(no_files, 422, "no_files")
        empty_input = await client.post(
            url,
            files=[("kind", (None, b"source")), ("files", ("", b"", "application/octet-stream"))],
            headers=alice.headers,
        )
        assert_error(empty_input, 422, "no_files")
        assert (
            await pool.fetchval("SELECT count(*) FROM documents WHERE user_id = $1", alice.user_id)
            == 0
        )


async def test_filenames_are_sanitised_but_readable(pool, db_settings):
    alice = await new_user(pool)
    names = {
        "../../etc/passwd": "passwd",
        "..\\..\\windows\\system32.pdf": "system32.pdf",
        "bidi\u202eFDP.exe\u200b.pdf": "bidiFDP.exe.pdf",
        "Тезис 论文 دراسة.pdf": "Тезис 论文 دراسة.pdf",
        "...": "upload",
    }
    async with api_client(db_settings) as client:
        session_id = await new_session(client, alice)
        files = [(raw, f"%PDF {n}".encode()) for n, raw in enumerate(names)]
        files.append(("a" * 1000 + ".pdf", b"%PDF long"))
        response = await upload(client, alice, session_id, files)
        assert response.status_code == 202, response.text
        got = [d["filename"] for d in response.json()["documents"]]
        assert got[:-1] == list(names.values())
        assert len(got[-1]) <= 180 and got[-1].endswith(".pdf") and got[-1].startswith("aaaa")
        # Control characters arrive only in hand-made bodies (clients escape them).
        raw = await client.post(
            f"/v1/sessions/{session_id}/documents",
            content=(
                b'--XX\r\nContent-Disposition: form-data; name="kind"\r\n\r\nsource\r\n'
                b'--XX\r\nContent-Disposition: form-data; name="files"; '
                b'filename="ctl\x01na\x1bme\x7f.pdf"\r\n\r\n%PDF ctl\r\n--XX--\r\n'
            ),
            headers={**alice.headers, "Content-Type": "multipart/form-data; boundary=XX"},
        )
        assert raw.status_code == 202, raw.text
        assert raw.json()["documents"][0]["filename"] == "ctlname.pdf"
        got.append("ctlname.pdf")
        stored = await pool.fetch(
            "SELECT filename FROM parse_items WHERE user_id = $1 ORDER BY id", alice.user_id
        )
        assert [r["filename"] for r in stored] == got


async def test_delete_document_refuses_while_a_run_uses_it(pool, db_settings):
    alice = await new_user(pool)
    async with api_client(db_settings) as client:
        session_id = await new_session(client, alice)
        thesis = await upload(client, alice, session_id, [("t.pdf", b"%PDF t")], "thesis")
        source = await upload(client, alice, session_id, [("s.pdf", b"%PDF s")])
        thesis_id = thesis.json()["documents"][0]["id"]
        source_id = source.json()["documents"][0]["id"]
        run = await client.post(
            f"/v1/sessions/{session_id}/runs",
            json={"thesis_document_id": thesis_id},
            headers=alice.headers,
        )
        assert run.status_code == 202
        busy = await client.delete(f"/v1/documents/{source_id}", headers=alice.headers)
        assert_error(busy, 409, "document_in_use")
        cancel = await client.post(f"/v1/runs/{run.json()['run_id']}/cancel", headers=alice.headers)
        assert cancel.status_code == 202
        gone = await client.delete(f"/v1/documents/{source_id}", headers=alice.headers)
        assert gone.status_code == 204
        assert (
            await pool.fetchval(
                "SELECT count(*) FROM documents WHERE id = $1", uuid.UUID(source_id)
            )
            == 0
        )
        again = await client.delete(f"/v1/documents/{source_id}", headers=alice.headers)
        assert_error(again, 404, "document_not_found")


async def test_deleting_a_queued_document_releases_its_job(pool, db_settings):
    alice = await new_user(pool)
    async with api_client(db_settings) as client:
        session_id = await new_session(client, alice)
        jobs = []
        for n in range(3):
            files = [(f"{n}a.pdf", f"%PDF {n}a".encode()), (f"{n}b.pdf", f"%PDF {n}b".encode())]
            jobs.append((await upload(client, alice, session_id, files)).json())
        assert_error(await upload(client, alice, session_id, [("x", b"x")]), 429,
                     "too_many_active_jobs")  # fmt: skip

        # One item of the first job was parsed; deleting the other (queued) finishes the job.
        first = jobs[0]
        parsed, queued = (d["id"] for d in first["documents"])
        await pool.execute(
            "UPDATE parse_items SET state = 'succeeded', file_bytes = NULL WHERE document_id = $1",
            uuid.UUID(parsed),
        )
        await pool.execute(
            "UPDATE parse_jobs SET succeeded_items = 1, state = 'running' WHERE id = $1",
            uuid.UUID(first["job_id"]),
        )
        deleted = await client.delete(f"/v1/documents/{queued}", headers=alice.headers)
        assert deleted.status_code == 204
        job = (await client.get(f"/v1/jobs/{first['job_id']}", headers=alice.headers)).json()
        assert (job["state"], job["total"], job["succeeded"]) == ("succeeded", 1, 1)

        # A document a parser is working on right now cannot be deleted under its feet.
        busy = jobs[1]["documents"][0]["id"]
        await pool.execute(
            "UPDATE parse_items SET state = 'running' WHERE document_id = $1", uuid.UUID(busy)
        )
        refused = await client.delete(f"/v1/documents/{busy}", headers=alice.headers)
        assert_error(refused, 409, "document_being_parsed")
        assert int(refused.headers["Retry-After"]) > 0

        # The released job slot admits a new upload.
        assert (await upload(client, alice, session_id, [("y", b"y")])).status_code == 202
