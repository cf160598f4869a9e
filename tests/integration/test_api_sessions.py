"""Sessions, identity, authentication and the error shape."""

from __future__ import annotations

import uuid

from citeproof.api.settings import ApiSettings
from citeproof.auth import revoke_token
from tests.integration.api_support import api_client, assert_error, new_session, new_user, upload


async def test_me_and_session_lifecycle(pool, db_settings):
    alice = await new_user(pool)
    async with api_client(db_settings) as client:
        me = await client.get("/v1/me", headers=alice.headers)
        assert me.status_code == 200
        assert me.json() == {
            "user_id": str(alice.user_id),
            "name": alice.name,
            "token_expires_at": None,
        }

        created = await client.post(
            "/v1/sessions", json={"name": "Chapter 2"}, headers=alice.headers
        )
        assert created.status_code == 201
        session = created.json()
        assert set(session) == {"id", "name", "created_at"}
        assert session["name"] == "Chapter 2"

        listed = await client.get("/v1/sessions", headers=alice.headers)
        assert [s["id"] for s in listed.json()["items"]] == [session["id"]]

        detail = await client.get(f"/v1/sessions/{session['id']}", headers=alice.headers)
        assert detail.status_code == 200
        assert detail.json()["documents"] == []

        deleted = await client.delete(f"/v1/sessions/{session['id']}", headers=alice.headers)
        assert deleted.status_code == 204
        gone = await client.get(f"/v1/sessions/{session['id']}", headers=alice.headers)
        assert_error(gone, 404, "session_not_found")


async def test_authentication_is_required_and_revocation_is_immediate(pool, db_settings):
    alice = await new_user(pool)
    async with api_client(db_settings) as client:
        anonymous = await client.get("/v1/sessions")
        assert_error(anonymous, 401, "unauthorized")
        assert anonymous.headers["WWW-Authenticate"].startswith("Bearer")
        bad = {"Authorization": "Bearer cpt_not-a-real-token"}
        assert_error(await client.get("/v1/sessions", headers=bad), 401, "invalid_token")
        assert (await client.get("/v1/me", headers=alice.headers)).status_code == 200
        assert await revoke_token(pool, alice.token_id)
        assert_error(await client.get("/v1/me", headers=alice.headers), 401, "invalid_token")
        # The query-string token is accepted only by the event stream.
        query = await client.get(f"/v1/me?token={alice.token}")
        assert_error(query, 401, "unauthorized")


async def test_every_error_has_the_one_shape(pool, db_settings):
    alice = await new_user(pool)
    async with api_client(db_settings, ApiSettings(max_json_body_bytes=1024)) as client:
        assert_error(await client.get("/v1/nowhere", headers=alice.headers), 404, "not_found")
        assert_error(await client.put("/v1/sessions", headers=alice.headers), 405,
                     "method_not_allowed")  # fmt: skip
        missing = await client.post("/v1/sessions", json={}, headers=alice.headers)
        body = assert_error(missing, 400, "validation_error")
        assert "name" in body["detail"]
        wrong_type = await client.post("/v1/sessions", json={"name": 7}, headers=alice.headers)
        assert_error(wrong_type, 400, "validation_error")
        not_json = await client.post(
            "/v1/sessions",
            content=b"{not json",
            headers={**alice.headers, "Content-Type": "application/json"},
        )
        assert not_json.status_code == 400 and not_json.json()["code"] == "malformed_json"
        as_form = await client.post("/v1/sessions", data={"name": "x"}, headers=alice.headers)
        assert_error(as_form, 415, "unsupported_media_type")
        as_text = await client.post(
            "/v1/sessions",
            content=b'{"name": "x"}',
            headers={**alice.headers, "Content-Type": "text/plain"},
        )
        assert_error(as_text, 415, "unsupported_media_type")
        huge = await client.post("/v1/sessions", json={"name": "x" * 5000}, headers=alice.headers)
        assert_error(huge, 413, "body_too_large")
        bad_id = await client.get("/v1/sessions/not-a-uuid", headers=alice.headers)
        assert bad_id.status_code in (400, 404)
        assert set(bad_id.json()) == {"type", "title", "status", "code", "detail"}
        unknown = await client.get(f"/v1/sessions/{uuid.uuid4()}", headers=alice.headers)
        assert_error(unknown, 404, "session_not_found")


async def test_unexpected_errors_are_500_internal_error_without_details(pool, db_settings):
    alice = await new_user(pool)
    async with api_client(db_settings) as client:
        await pool.execute("ALTER TABLE sessions RENAME TO sessions_away")
        try:
            response = await client.get("/v1/sessions", headers=alice.headers)
        finally:
            await pool.execute("ALTER TABLE sessions_away RENAME TO sessions")
        body = assert_error(response, 500, "internal_error")
        assert "sessions_away" not in body["detail"] and "relation" not in body["detail"]


async def test_reference_overrides_and_reset_sources(pool, db_settings):
    alice = await new_user(pool)
    async with api_client(db_settings) as client:
        session_id = await new_session(client, alice)
        thesis = await upload(client, alice, session_id, [("t.pdf", b"%PDF thesis")], "thesis")
        thesis_id = thesis.json()["documents"][0]["id"]
        sources = await upload(
            client, alice, session_id, [("a.pdf", b"%PDF a"), ("b.pdf", b"%PDF b")]
        )
        source_id = sources.json()["documents"][0]["id"]

        url = f"/v1/sessions/{session_id}/reference-overrides"
        body = {"thesis_document_id": thesis_id, "label": "12", "document_id": source_id}
        put = await client.put(url, json=body, headers=alice.headers)
        assert put.status_code == 200, put.text
        assert put.json()["document_id"] == source_id
        none = await client.put(url, json={**body, "document_id": None}, headers=alice.headers)
        assert none.json()["document_id"] is None
        rows = await pool.fetch(
            "SELECT label, document_id FROM reference_overrides WHERE session_id = $1",
            uuid.UUID(session_id),
        )
        assert [(r["label"], r["document_id"]) for r in rows] == [("12", None)]
        not_thesis = await client.put(
            url, json={**body, "thesis_document_id": source_id}, headers=alice.headers
        )
        assert_error(not_thesis, 422, "not_a_thesis")
        foreign = await client.put(
            url, json={**body, "document_id": str(uuid.uuid4())}, headers=alice.headers
        )
        assert_error(foreign, 404, "document_not_found")

        reset = await client.post(f"/v1/sessions/{session_id}/reset-sources", headers=alice.headers)
        assert reset.status_code == 200 and reset.json() == {"unlinked": 2}
        left = (await client.get(f"/v1/sessions/{session_id}", headers=alice.headers)).json()
        assert [d["id"] for d in left["documents"]] == [thesis_id]
        # The documents themselves survive an unlink (they are the user's, not the session's).
        assert (
            await pool.fetchval("SELECT count(*) FROM documents WHERE user_id = $1", alice.user_id)
            == 3
        )


async def test_errors_are_rfc9457_problem_details_keeping_the_code(pool, db_settings):
    async with api_client(db_settings) as client:
        response = await client.get("/v1/sessions")  # no token
    assert response.status_code == 401
    assert response.headers["content-type"].startswith("application/problem+json")
    body = response.json()
    assert body["type"] == "about:blank" and body["title"] == "Unauthorized"
    assert body["status"] == 401 and body["code"] and body["detail"]


async def test_authenticated_responses_carry_ratelimit_headers(pool, db_settings):
    alice = await new_user(pool)
    settings = ApiSettings(rate_limit_requests=5, rate_limit_window_s=60)
    async with api_client(db_settings, settings) as client:
        first = await client.get("/v1/me", headers=alice.headers)
        second = await client.get("/v1/sessions", headers=alice.headers)
        anonymous = await client.get("/healthz")
    assert first.headers["RateLimit-Limit"] == "5"
    assert first.headers["RateLimit-Remaining"] == "4"
    assert second.headers["RateLimit-Remaining"] == "3"
    assert 0 <= int(second.headers["RateLimit-Reset"]) <= 60
    assert "RateLimit-Limit" not in anonymous.headers  # no caller, no bucket


async def test_session_lists_are_cursor_paginated_newest_first(pool, db_settings):
    alice = await new_user(pool)
    async with api_client(db_settings) as client:
        created = []
        for n in range(5):
            response = await client.post(
                "/v1/sessions", json={"name": f"s{n}"}, headers=alice.headers
            )
            created.append(response.json()["id"])
        seen, cursor, pages = [], None, 0
        while True:
            params = {"limit": 2} | ({"cursor": cursor} if cursor else {})
            page = (await client.get("/v1/sessions", params=params, headers=alice.headers)).json()
            seen += [s["id"] for s in page["items"]]
            pages += 1
            cursor = page["next_cursor"]
            if cursor is None:
                break
        everything = (await client.get("/v1/sessions", headers=alice.headers)).json()
        bad = await client.get("/v1/sessions", params={"cursor": "x!"}, headers=alice.headers)
        too_big = await client.get("/v1/sessions", params={"limit": 0}, headers=alice.headers)
    assert pages == 3 and seen == created[::-1]  # every session once, newest first
    assert [s["id"] for s in everything["items"]] == seen and everything["next_cursor"] is None
    assert_error(bad, 400, "invalid_cursor")
    assert too_big.status_code == 400


async def test_a_sessions_document_list_is_cursor_paginated_newest_first(pool, db_settings):
    alice = await new_user(pool)
    async with api_client(db_settings) as client:
        session = (
            await client.post("/v1/sessions", json={"name": "docs"}, headers=alice.headers)
        ).json()["id"]
        linked = []
        for n in range(5):
            document = await pool.fetchval(
                "INSERT INTO documents (user_id, sha256, kind, filename, size_bytes) "
                "VALUES ($1, $2, 'source', $3, 1) RETURNING id",
                alice.user_id, bytes([n]) * 32, f"source-{n}.pdf",
            )  # fmt: skip
            # Distinct link times, in creation order (one statement each: now() differs).
            await pool.execute(
                "INSERT INTO session_sources (session_id, document_id, kind, created_at) "
                "VALUES ($1, $2, 'source', now() + make_interval(secs => $3))",
                uuid.UUID(session), document, float(n),
            )  # fmt: skip
            linked.append(str(document))
        seen, cursor, pages = [], None, 0
        while True:
            params = {"limit": 2} | ({"cursor": cursor} if cursor else {})
            page = (
                await client.get(
                    f"/v1/sessions/{session}/documents", params=params, headers=alice.headers
                )
            ).json()
            seen += [d["id"] for d in page["items"]]
            pages += 1
            cursor = page["next_cursor"]
            if cursor is None:
                break
        bad = await client.get(
            f"/v1/sessions/{session}/documents", params={"cursor": "x!"}, headers=alice.headers
        )
    assert pages == 3 and seen == linked[::-1]  # every document once, newest link first
    assert_error(bad, 400, "invalid_cursor")
