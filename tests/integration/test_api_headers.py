"""Security headers on every response, and no third-party documentation pages.

The web UI keeps the bearer token in localStorage, so any script that runs on the API's origin
can read it: the Content-Security-Policy allows only our own scripts and the HTML report's one
inline script (by hash), and the OpenAPI viewers that load scripts from public CDNs are gone.
"""

from __future__ import annotations

import base64
import hashlib
import re

import pytest

from tests.integration.api_support import (
    api_client,
    new_user,
    seed_results,
    thesis_with_sources,
)
from tests.integration.test_api_runs import start_run

REQUIRED_HEADERS = {
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
}
# Directives that must hold in the policy of every response.
REQUIRED_DIRECTIVES = {
    "default-src": "'none'",
    "frame-ancestors": "'none'",
    "base-uri": "'none'",
    "object-src": "'none'",
}


def _policy(header: str) -> dict[str, list[str]]:
    directives = {}
    for part in header.split(";"):
        if words := part.split():
            directives[words[0]] = words[1:]
    return directives


def assert_secure_headers(response) -> dict[str, list[str]]:
    where = f"{response.request.method} {response.request.url.path} -> {response.status_code}"
    for name, value in REQUIRED_HEADERS.items():
        assert response.headers.get(name) == value, f"{where}: {name}"
    policy = _policy(response.headers.get("content-security-policy", ""))
    for directive, value in REQUIRED_DIRECTIVES.items():
        assert policy.get(directive) == [value], f"{where}: {directive} is {policy.get(directive)}"
    sources = " ".join(word for words in policy.values() for word in words)
    assert "unsafe-inline" not in sources and "unsafe-eval" not in sources, where
    assert "http:" not in sources and "https:" not in sources and "*" not in sources, where
    return policy


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/"),
        ("GET", "/static/app.js"),
        ("GET", "/static/app.css"),
        ("GET", "/healthz"),
        ("GET", "/labels"),
        ("GET", "/schema/openapi.json"),
        ("GET", "/v1/me"),  # 401
        ("GET", "/v1/sessions/not-a-uuid"),  # 401 before validation
        ("GET", "/no/such/route"),  # 404
        ("DELETE", "/healthz"),  # 405
        ("POST", "/v1/sessions"),  # 401, no body
    ],
)
async def test_every_response_carries_the_security_headers(db_settings, method, path):
    async with api_client(db_settings) as client:
        response = await client.request(method, path)
    assert_secure_headers(response)


async def test_authenticated_errors_and_json_carry_them_too(pool, db_settings):
    alice = await new_user(pool)
    async with api_client(db_settings) as client:
        for path in ("/v1/me", "/v1/sessions", "/v1/sessions/not-a-uuid"):
            assert_secure_headers(await client.get(path, headers=alice.headers))


@pytest.mark.parametrize(
    "path",
    [
        "/schema/swagger",
        "/schema/elements",
        "/schema/rapidoc",
        "/schema/redoc",
        "/schema/stoplight",
    ],
)
async def test_no_documentation_viewer_that_loads_cdn_scripts_is_served(db_settings, path):
    async with api_client(db_settings) as client:
        response = await client.get(path)
    assert response.status_code == 404
    assert "<script" not in response.text


async def test_the_openapi_document_is_still_served_as_json(db_settings):
    async with api_client(db_settings) as client:
        for path in ("/schema", "/schema/openapi.json"):
            response = await client.get(path)
            assert response.status_code == 200, path
            assert response.headers["content-type"].startswith("application/"), path
            assert response.json()["openapi"].startswith("3."), path


def _sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


async def test_the_html_report_runs_under_the_policy(pool, db_settings):
    """Its inline script and style are allowed by hash; it has no inline attributes a strict
    policy would block; a saved copy carries the same policy in a meta tag."""
    alice = await new_user(pool)
    async with api_client(db_settings) as client:
        ids = await thesis_with_sources(client, alice)
        run_id = await start_run(client, alice, ids)
        await seed_results(pool, run_id, ids)
        page = await client.get(f"/v1/runs/{run_id}/report?format=html", headers=alice.headers)
    assert page.status_code == 200
    policy = assert_secure_headers(page)
    html = page.text
    scripts = re.findall(r"<script>(.*?)</script>", html, re.S)
    styles = re.findall(r"<style>(.*?)</style>", html, re.S)
    assert scripts and styles
    for script in scripts:
        assert _sha256(script) in policy["script-src"]
    for style in styles:
        assert _sha256(style) in policy["style-src"]
    # Inside tags only: the seeded claim's escaped text holds " onerror=" as words.
    assert not re.search(r"<[^>]*\sstyle\s*=", html), "the policy blocks style attributes"
    assert not re.search(r"<[^>]*\son[a-z]+\s*=", html), "the policy blocks inline handlers"
    meta = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', html)
    assert meta is not None
    saved = _policy(meta.group(1))
    assert saved["default-src"] == ["'none'"]
    assert set(saved["script-src"]) == set(policy["script-src"]) - {"'self'"}
