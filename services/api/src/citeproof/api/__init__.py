"""citeproof HTTP API: sessions, uploads, runs, reports, the web UI and /metrics."""

from citeproof.api.app import create_app

__all__ = ["create_app"]
