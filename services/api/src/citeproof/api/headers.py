"""Security headers on every response the API sends, errors and static files included.

The web UI keeps the bearer token in localStorage, so a script that runs on this origin can read
it. The Content-Security-Policy therefore allows scripts and styles from this origin only, plus
the HTML report's one inline script and style by their hashes — no CDN, no inline handler, no
eval. The other headers stop MIME sniffing (a stored file served as text/plain must not run as
HTML), framing (clickjacking) and the Referer that would carry a report's URL elsewhere.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterable

from litestar.types import ASGIApp, Message, Receive, Scope, Send

CONTENT_SECURITY_POLICY = "content-security-policy"
# Directives shared by the site policy and the policy a saved HTML report carries in a meta tag.
_LOCKED_DOWN = ("default-src 'none'", "base-uri 'none'", "object-src 'none'")
_STATIC_HEADERS = (
    ("x-content-type-options", "nosniff"),
    ("referrer-policy", "no-referrer"),
    # For browsers that predate frame-ancestors.
    ("x-frame-options", "DENY"),
    ("cross-origin-opener-policy", "same-origin"),
)


def csp_hash(text: str) -> str:
    """The CSP source expression that allows exactly this inline script or style element."""
    digest = base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")
    return f"'sha256-{digest}'"


def content_security_policy(
    *, inline_scripts: Iterable[str] = (), inline_styles: Iterable[str] = (), same_origin: bool
) -> str:
    """The policy: nothing by default; this origin's files when `same_origin`; listed inlines.

    `same_origin=False` is for a report saved to disk, which has no origin worth trusting and
    needs nothing but its own inline script and style.
    """
    own = ["'self'"] if same_origin else []
    scripts = " ".join([*own, *map(csp_hash, inline_scripts)]) or "'none'"
    styles = " ".join([*own, *map(csp_hash, inline_styles)]) or "'none'"
    directives = [*_LOCKED_DOWN, f"script-src {scripts}", f"style-src {styles}"]
    if same_origin:
        directives += [
            "img-src 'self' data:",
            "font-src 'self'",
            # fetch() and the progress EventSource go to this origin only.
            "connect-src 'self'",
            "manifest-src 'self'",
            "form-action 'self'",
            # Only as an HTTP header: browsers ignore frame-ancestors in a meta tag.
            "frame-ancestors 'none'",
        ]
    else:
        directives.append("form-action 'none'")
    return "; ".join(directives)


def security_headers(app: ASGIApp, policy: str) -> ASGIApp:
    """Wrap the ASGI app so every HTTP response start carries the headers (replacing any copy
    a handler set), whatever produced it: a handler, a static file, a 404 or an error."""
    added = [(name.encode(), value.encode()) for name, value in _STATIC_HEADERS]
    added.append((CONTENT_SECURITY_POLICY.encode(), policy.encode()))
    names = {name for name, _ in added}

    async def with_headers(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                kept = [(k, v) for k, v in message.get("headers", []) if k.lower() not in names]
                message = {**message, "headers": [*kept, *added]}
            await send(message)

        await app(scope, receive, send_with_headers)

    return with_headers
