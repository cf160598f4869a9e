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


class DependencyDown(Exception):
    """A backend the stage needs (the judge's LLM, an embeddings API) cannot be reached.

    The task is not at fault: the runtime hands it back with no attempt charged, stops
    claiming the stage (circuit breaker) and probes with one task at a time until the backend
    answers again. `dependency` names it for people ("judge backend").
    """

    def __init__(self, dependency: str, detail: str) -> None:
        super().__init__(f"{dependency} unreachable: {detail}")
        self.dependency = dependency
        self.detail = detail


class LeaseLost(Exception):
    """The fence rejected a write: another worker owns the row now (or it was cancelled)."""
