"""Headless Chromium through Playwright, using Debian's `chromium` package.

`playwright install` downloads its own browser builds, which fails without internet, so we drive
the system browser (installed by `make browser-deps`) and give every launch a fresh profile
directory: no state leaks between tests and nothing is read from the user's home.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

# Overridable for machines where Chromium lives elsewhere (e.g. /usr/bin/chromium-browser).
CHROMIUM_ENV = "CITEPROOF_CHROMIUM"
DEFAULT_CHROMIUM = "/usr/bin/chromium"

# Headless, and quiet: no sandbox (containers run as root), no GPU, and none of the background
# traffic (updates, sync, QUIC probes) that would try to reach the internet.
CHROMIUM_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
DEFAULT_VIEWPORT = {"width": 1280, "height": 900}


def chromium_path() -> Path | None:
    """The Chromium executable, or None when it is not installed."""
    path = Path(os.environ.get(CHROMIUM_ENV, DEFAULT_CHROMIUM))
    return path if path.is_file() and os.access(path, os.X_OK) else None


def missing_requirement() -> str | None:
    """Why a browser cannot be launched here, or None when it can."""
    if chromium_path() is None:
        return (
            f"Chromium not found at ${CHROMIUM_ENV} or {DEFAULT_CHROMIUM}; run `make browser-deps`"
        )
    try:
        import playwright  # noqa: F401
    except ImportError:
        return "the playwright package is not installed; run `make browser-deps`"
    return None


@contextmanager
def browser_context(viewport: dict[str, int] | None = None, **options) -> Iterator:
    """A Playwright BrowserContext on a fresh, throwaway Chromium profile."""
    from playwright.sync_api import sync_playwright

    executable = chromium_path()
    if executable is None:
        raise RuntimeError(missing_requirement())
    profile = tempfile.mkdtemp(prefix="citeproof-chromium-")
    try:
        with sync_playwright() as playwright:
            context = playwright.chromium.launch_persistent_context(
                profile,
                executable_path=str(executable),
                headless=True,
                args=list(CHROMIUM_ARGS),
                viewport=viewport or DEFAULT_VIEWPORT,
                **options,
            )
            try:
                yield context
            finally:
                context.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)
