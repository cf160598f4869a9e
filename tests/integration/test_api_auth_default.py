"""Authentication is the default on /v1: a route is private unless it is marked public.

A handler that forgets to ask for the caller (and so would have served anyone) is still
authenticated by the app-wide guard; only `opt={"public": True}` opens a /v1 route.
"""

from __future__ import annotations

from litestar import get
from litestar.testing import AsyncTestClient

from citeproof.api import create_app
from citeproof.api.security import OPT_PUBLIC
from citeproof.api.settings import ApiSettings
from tests.integration.api_support import new_user


@get("/v1/forgot-the-caller")
async def forgot_the_caller() -> dict[str, str]:
    return {"secret": "every tenant's data"}


@get("/v1/deliberately-public", opt={OPT_PUBLIC: True})
async def deliberately_public() -> dict[str, str]:
    return {"hello": "world"}


async def test_a_v1_route_without_the_caller_still_needs_a_token(pool, db_settings):
    alice = await new_user(pool)
    app = create_app(ApiSettings(), db_settings=db_settings)
    app.register(forgot_the_caller)
    app.register(deliberately_public)
    async with AsyncTestClient(app=app, raise_server_exceptions=False) as client:
        anonymous = await client.get("/v1/forgot-the-caller")
        assert anonymous.status_code == 401
        assert anonymous.json()["code"] == "unauthorized"
        bad = await client.get("/v1/forgot-the-caller", headers={"Authorization": "Bearer cpt_x"})
        assert bad.status_code == 401 and bad.json()["code"] == "invalid_token"
        allowed = await client.get("/v1/forgot-the-caller", headers=alice.headers)
        assert allowed.status_code == 200
        public = await client.get("/v1/deliberately-public")
        assert public.status_code == 200 and public.json() == {"hello": "world"}
