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
    pool: asyncpg.Pool, db_settings: DatabaseSettings, settings: ApiSettings | None = None
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
    assert set(body) == {"status", "code", "detail"}
    return body
