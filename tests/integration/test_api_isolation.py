"""Tenant isolation: every endpoint answers 404 for another user's ids, and changes nothing."""

from __future__ import annotations

import uuid

from tests.integration.api_support import (
    api_client,
    multipart_files,
    new_session,
    new_user,
    seed_results,
    thesis_with_sources,
)


async def snapshot(pool, user_id) -> dict:
    tables = {
        "sessions": "SELECT count(*) FROM sessions WHERE user_id = $1",
        "documents": "SELECT count(*) FROM documents WHERE user_id = $1",
        "links": "SELECT count(*) FROM session_sources s JOIN sessions x ON x.id = s.session_id "
        "WHERE x.user_id = $1",
        "runs": "SELECT count(*) FROM runs WHERE user_id = $1 AND status = 'completed'",
        "overrides": "SELECT count(*) FROM reference_overrides o JOIN sessions x "
        "ON x.id = o.session_id WHERE x.user_id = $1",
        "items": "SELECT count(*) FROM parse_items WHERE user_id = $1",
    }
    return {name: await pool.fetchval(sql, user_id) for name, sql in tables.items()}


async def test_another_users_ids_are_404_on_every_endpoint(pool, db_settings):
    alice, bob = await new_user(pool), await new_user(pool)
    async with api_client(db_settings) as client:
        ids = await thesis_with_sources(client, alice)
        run = await client.post(
            f"/v1/sessions/{ids['session_id']}/runs",
            json={"thesis_document_id": ids["thesis_id"]},
            headers=alice.headers,
        )
        run_id = run.json()["run_id"]
        await seed_results(pool, run_id, ids)
        await client.put(
            f"/v1/sessions/{ids['session_id']}/reference-overrides",
            json={"thesis_document_id": ids["thesis_id"], "label": "1", "document_id": None},
            headers=alice.headers,
        )
        before = await snapshot(pool, alice.user_id)
        bob_session = await new_session(client, bob, "bob's")

        s, t, d = ids["session_id"], ids["thesis_id"], ids["smith_id"]
        override = {"thesis_document_id": t, "label": "1", "document_id": d}
        upload = {"files": multipart_files([("x.pdf", b"%PDF bob")]), "data": {"kind": "source"}}
        attempts = [
            ("GET", f"/v1/sessions/{s}", {}),
            ("DELETE", f"/v1/sessions/{s}", {}),
            ("GET", f"/v1/sessions/{s}/documents", {}),
            ("POST", f"/v1/sessions/{s}/documents", upload),
            ("GET", f"/v1/jobs/{ids['thesis_job']}", {}),
            ("DELETE", f"/v1/documents/{d}", {}),
            ("DELETE", f"/v1/documents/{t}", {}),
            ("POST", f"/v1/sessions/{s}/runs", {"json": {"thesis_document_id": t}}),
            ("GET", f"/v1/sessions/{s}/runs", {}),
            # Bob's own session with Alice's thesis: still not found.
            ("POST", f"/v1/sessions/{bob_session}/runs", {"json": {"thesis_document_id": t}}),
            ("GET", f"/v1/runs/{run_id}", {}),
            ("GET", f"/v1/runs/{run_id}/events", {}),
            ("POST", f"/v1/runs/{run_id}/cancel", {}),
            ("GET", f"/v1/runs/{run_id}/report", {}),
            ("GET", f"/v1/runs/{run_id}/report?format=markdown", {}),
            ("GET", f"/v1/runs/{run_id}/report?format=html", {}),
            ("PUT", f"/v1/sessions/{s}/reference-overrides", {"json": override}),
            ("PUT", f"/v1/sessions/{bob_session}/reference-overrides", {"json": override}),
            ("POST", f"/v1/sessions/{s}/reset-sources", {}),
        ]
        for method, url, kwargs in attempts:
            response = await client.request(method, url, headers=bob.headers, **kwargs)
            assert response.status_code == 404, (method, url, response.text)
            body = response.json()
            assert body["code"].endswith("not_found"), (method, url, body)
            # The answer for a foreign id is the answer for an id that never existed.
            fake = url
            for real in (s, t, d, run_id, ids["thesis_job"]):
                fake = fake.replace(real, str(uuid.uuid4()))
            if fake != url and "bob" not in url:
                twin = await client.request(method, fake, headers=bob.headers, **kwargs)
                assert twin.status_code == 404 and twin.json() == body, (method, url)

        # Bob's listings never show Alice's rows.
        listed = await client.get("/v1/sessions", headers=bob.headers)
        assert [x["id"] for x in listed.json()["items"]] == [bob_session]
        events = await client.get(f"/v1/runs/{run_id}/events?token={bob.token}")
        assert events.status_code == 404

        assert await snapshot(pool, alice.user_id) == before
        mine = await client.get(f"/v1/runs/{run_id}/report", headers=alice.headers)
        assert mine.status_code == 200 and mine.json()["summary"]["total"] == 4


async def test_identical_bytes_of_two_users_are_two_documents(pool, db_settings):
    """Content addressing is per user: `duplicate` must not reveal another user's upload."""
    alice, bob = await new_user(pool), await new_user(pool)
    same = b"%PDF the very same paper " + uuid.uuid4().bytes
    async with api_client(db_settings) as client:
        alice_session = await new_session(client, alice)
        bob_session = await new_session(client, bob)
        first = await client.post(
            f"/v1/sessions/{alice_session}/documents",
            files=multipart_files([("paper.pdf", same)]),
            data={"kind": "source"},
            headers=alice.headers,
        )
        second = await client.post(
            f"/v1/sessions/{bob_session}/documents",
            files=multipart_files([("paper.pdf", same)]),
            data={"kind": "source"},
            headers=bob.headers,
        )
    a, b = first.json()["documents"][0], second.json()["documents"][0]
    assert a["duplicate"] is False and b["duplicate"] is False
    assert a["id"] != b["id"]
    owners = await pool.fetch(
        "SELECT user_id FROM documents WHERE id = ANY($1::uuid[])", [a["id"], b["id"]]
    )
    assert {r["user_id"] for r in owners} == {alice.user_id, bob.user_id}
