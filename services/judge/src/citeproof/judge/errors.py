"""Errors a judge backend raises instead of returning a verdict.

``retryable`` tells the stage whether trying the task again later can help (the endpoint was down
or rate-limited) or not (the request or the model's replies are wrong and will stay wrong).
"""

from __future__ import annotations


class JudgeBackendError(Exception):
    retryable: bool = False


class LlmUnavailableError(JudgeBackendError):
    """Timeouts, connection errors, 429 or 5xx that outlasted the retries."""

    retryable = True


class LlmRequestError(JudgeBackendError):
    """The API refused the request (4xx other than 429): configuration, not luck."""


class LlmReplyError(JudgeBackendError):
    """The model's reply did not match the verdict schema, even after one repair request."""
