"""Error logs name the route template, never the raw path: a path can carry an id or a secret
(a token pasted into a URL), and logs outlive requests."""

from __future__ import annotations

import logging

from litestar import get
from litestar.exceptions import HTTPException
from litestar.testing import AsyncTestClient

from citeproof.api import create_app
from citeproof.api.security import OPT_PUBLIC
from citeproof.api.settings import ApiSettings
from citeproof.obs.logs import configure_logging

SECRET = "cpt_pasted-into-the-url-by-mistake"


@get("/v1/upstream/{name:str}", opt={OPT_PUBLIC: True})
async def upstream_fails(name: str) -> None:
    raise HTTPException(status_code=502, detail="upstream failed")


async def test_a_5xx_is_logged_with_the_route_template_not_the_path(db_settings, capfd):
    configure_logging("api")
    logging.getLogger().setLevel(logging.INFO)
    try:
        app = create_app(ApiSettings(), db_settings=db_settings)
        app.register(upstream_fails)
        async with AsyncTestClient(app=app, raise_server_exceptions=False) as client:
            response = await client.get(f"/v1/upstream/{SECRET}")
        assert response.status_code == 502
    finally:
        logging.getLogger().setLevel(logging.WARNING)
    out, err = capfd.readouterr()
    logs = out + err
    assert "http.error" in logs  # the error was logged...
    assert "/v1/upstream/{name}" in logs  # ...under its template...
    assert SECRET not in logs  # ...and not its path
