"""Helpers for the API tests: an app on the test database, users with tokens, seeded rows."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass

import asyncpg
from litestar.testing import AsyncTestClient

from citeproof.api import create_app
from citeproof.api.settings import ApiSettings
from citeproof.auth import create_token, create_user
from citeproof.db.settings import DatabaseSettings


@dataclass
class ApiUser:
    user_id: uuid.UUID
    name: str
    token: str
    token_id: uuid.UUID

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


async def new_user(pool: asyncpg.Pool) -> ApiUser:
    name = f"api-{uuid.uuid4().hex[:10]}"
    user_id = await create_user(pool, name)
    token_id, token = await create_token(pool, user_id, "tests")
    return ApiUser(user_id=user_id, name=name, token=token, token_id=token_id)


@contextlib.asynccontextmanager
async def api_client(
    db_settings: DatabaseSettings, settings: ApiSettings | None = None
) -> AsyncIterator[AsyncTestClient]:
    # The test client serves the app from its own thread and event loop, so the app opens
    # its own pool there (a pool is bound to the loop that created it).
    app = create_app(settings or ApiSettings(), db_settings=db_settings)
    async with AsyncTestClient(app=app, raise_server_exceptions=False) as client:
        yield client


def multipart_files(
    files: list[tuple[str, bytes]], content_type: str = "application/pdf"
) -> list[tuple[str, tuple[str, bytes, str]]]:
    return [("files", (name, data, content_type)) for name, data in files]


async def upload(
    client: AsyncTestClient,
    user: ApiUser,
    session_id: str,
    files: list[tuple[str, bytes]],
    kind: str = "source",
):
    return await client.post(
        f"/v1/sessions/{session_id}/documents",
        files=multipart_files(files),
        data={"kind": kind},
        headers=user.headers,
    )


async def new_session(client: AsyncTestClient, user: ApiUser, name: str = "thesis") -> str:
    response = await client.post("/v1/sessions", json={"name": name}, headers=user.headers)
    assert response.status_code == 201, response.text
    return response.json()["id"]


async def finish_parsing(pool: asyncpg.Pool, job_id: str) -> None:
    """What a parser worker does at the end: items terminal with bytes NULLed, job done."""
    await pool.execute(
        """UPDATE documents SET state = 'parsed', parsed_at = now()
           WHERE id IN (SELECT document_id FROM parse_items WHERE job_id = $1)""",
        uuid.UUID(job_id),
    )
    await pool.execute(
        "UPDATE parse_items SET state = 'succeeded', file_bytes = NULL, finished_at = now() "
        "WHERE job_id = $1",
        uuid.UUID(job_id),
    )
    await pool.execute(
        "UPDATE parse_jobs SET state = 'succeeded', succeeded_items = total_items, "
        "finished_at = now() WHERE id = $1",
        uuid.UUID(job_id),
    )


def assert_error(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.text
    body = response.json()
    assert body["status"] == status
    assert body["code"] == code
    assert isinstance(body["detail"], str) and body["detail"]
    assert set(body) == {"type", "title", "status", "code", "detail"}  # RFC 9457 + code
    assert response.headers["content-type"].startswith("application/problem+json")
    return body


async def thesis_with_sources(client: AsyncTestClient, user: ApiUser) -> dict[str, str]:
    """A session with a thesis and two sources uploaded; returns their ids."""
    session_id = await new_session(client, user)
    tag = uuid.uuid4().hex.encode()
    thesis = await upload(
        client, user, session_id, [("thesis.pdf", b"%PDF thesis " + tag)], "thesis"
    )
    sources = await upload(
        client,
        user,
        session_id,
        [("smith2020.pdf", b"%PDF smith " + tag), ("doe2019.pdf", b"%PDF doe " + tag)],
    )
    return {
        "session_id": session_id,
        "thesis_id": thesis.json()["documents"][0]["id"],
        "smith_id": sources.json()["documents"][0]["id"],
        "doe_id": sources.json()["documents"][1]["id"],
        "thesis_job": thesis.json()["job_id"],
        "sources_job": sources.json()["job_id"],
    }


async def seed_results(pool: asyncpg.Pool, run_id: str, ids: dict[str, str]) -> None:
    """What parser, planner and judge would have written for a finished run."""
    thesis, smith, doe = (uuid.UUID(ids[k]) for k in ("thesis_id", "smith_id", "doe_id"))
    run = uuid.UUID(run_id)
    await pool.execute("UPDATE documents SET title = 'Cooling <b>cities</b>' WHERE id = $1", thesis)
    await pool.execute("UPDATE documents SET title = 'Heat & trees' WHERE id = $1", smith)
    refs = {}
    for ordinal, (label, raw, title) in enumerate(
        [
            ("1", "Smith, J. (2020). Heat & trees. <i>Nature</i>.", "Heat & trees"),
            ("2", "Doe, A. (2019). Asphalt albedo.", "Asphalt albedo"),
            ("3", "Roe, B. (2018). Missing paper.", "Missing paper"),
        ]
    ):
        refs[label] = await pool.fetchval(
            'INSERT INTO "references" (document_id, ordinal, label, raw, title) '
            "VALUES ($1, $2, $3, $4, $5) RETURNING id",
            thesis,
            ordinal,
            label,
            raw,
            title,
        )
    links = {"1": smith, "2": doe, "3": None}
    for label, document_id in links.items():
        await pool.execute(
            "INSERT INTO run_reference_links (run_id, reference_id, document_id, score, method) "
            "VALUES ($1, $2, $3, 0.9, 'test')",
            run,
            refs[label],
            document_id,
        )
    verdicts = [
        ("1", "Trees cool streets by 2 °C [1].", "supported", "Trees cooled streets by 2 °C.", 3),
        ("2", "Dark asphalt reflects more light [2].", "contradicted", "<script>x</script>", 5),
        ("3", "Parks reduce crime [3].", "source_missing", None, None),
        ("1", "Shade | matters <img src=x onerror=alert(1)> [1].", "unsupported", None, None),
    ]
    for ordinal, (label, claim, verdict, quote, page) in enumerate(verdicts):
        citation_id = await pool.fetchval(
            "INSERT INTO citations (document_id, ordinal, reference_id, reference_label, "
            "marker_text, marker_start, marker_end, claim_text, claim_start, claim_end, page) "
            "VALUES ($1, $2, $3, $4, $5, 0, 3, $6, 0, 10, $7) RETURNING id",
            thesis,
            ordinal,
            refs[label],
            label,
            f"[{label}]",
            claim,
            ordinal + 1,
        )
        await pool.execute(
            "INSERT INTO verdicts (run_id, citation_id, label, confidence, rationale, quote, "
            "quote_page, backend, model) "
            "VALUES ($1, $2, $3, 0.87, 'because', $4, $5, 'fake', 'm1')",
            run,
            citation_id,
            verdict,
            quote,
            page,
        )
    await pool.execute(
        "UPDATE runs SET status = 'completed', state = 'succeeded', finished_at = now(), "
        "citations_total = 4, tasks_total = 4, retrieved = 4, judged = 4 WHERE id = $1",
        run,
    )
