"""Builds the judge backend chosen by settings (kept for ``__main__``; one implementation)."""

from __future__ import annotations

from citeproof.judge.backend import build_backend

__all__ = ["build_backend"]
