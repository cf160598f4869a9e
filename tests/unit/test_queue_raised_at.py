"""A retried task's log line names where its error was raised (the innermost frame)."""

from __future__ import annotations

import inspect

from citeproof.queue._executor import raised_at


def _inner() -> None:
    raise IndexError("string index out of range")


def _outer() -> None:
    _inner()


def test_the_innermost_frame_is_named() -> None:
    try:
        _outer()
    except IndexError as exc:
        line = inspect.getsourcelines(_inner)[1] + 1
        assert raised_at(exc) == f"test_queue_raised_at.py:{line} in _inner"


def test_an_exception_never_raised_has_no_place() -> None:
    assert raised_at(RuntimeError("built, not raised")) == "?"
