"""Exceptions a handler raises to steer the runtime."""

from __future__ import annotations


class PermanentError(Exception):
    """The task can never succeed (bad input): end it `failed` at once, no retry.

    `code` is a stable machine-readable code, `detail` a sentence a person understands.
    """

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(f"{code}: {detail}")
        self.code = code
        self.detail = detail


class LeaseLost(Exception):
    """The fence rejected a write: another worker owns the row now (or it was cancelled)."""
