"""structlog configuration: JSON lines in production, console on a TTY.

Task context (`run_id`, `task_id`, `stage`, `worker_id`) is bound per asyncio task
(`bind_work`) so every line a handler logs carries it without passing a logger around.
The stdlib loggers (asyncpg, httpx, uvicorn) are routed through the same renderer.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Mapping
from contextvars import ContextVar, Token
from typing import Any

import structlog

from citeproof.obs.settings import ObservabilitySettings
from citeproof.settings import load

# Libraries that log bodies or URLs with secrets at DEBUG stay at WARNING.
_QUIET_LOGGERS = (
    "httpx",
    "httpcore",
    "asyncio",
    "urllib3",
    "sentence_transformers",
    "pdfminer",
    "unstructured",
    "filelock",
    "transformers",
)


# The log fields of the unit of work the current asyncio task runs (a queue task), as a
# function called only when a line is logged: binding them as context variables at the start
# of every task cost microseconds per task on the queue's hot path, for lines most tasks never
# write.
_WORK_FIELDS: ContextVar[Callable[[], Mapping[str, object]] | None] = ContextVar(
    "citeproof_work_fields", default=None
)


def bind_work(fields: Callable[[], Mapping[str, object]]) -> Token[Any]:
    """Lines logged from here on in this context carry `fields()` (bound values win)."""
    return _WORK_FIELDS.set(fields)


def unbind_work(token: Token[Any]) -> None:
    _WORK_FIELDS.reset(token)


def merge_work_fields(
    _logger: object, _method: str, event_dict: structlog.types.EventDict
) -> structlog.types.EventDict:
    fields = _WORK_FIELDS.get()
    if fields is not None:
        for key, value in fields().items():
            event_dict.setdefault(key, value)
    return event_dict


def configure_logging(service: str, settings: ObservabilitySettings | None = None) -> None:
    settings = settings or load(ObservabilitySettings)
    use_json = settings.log_format == "json" or (
        settings.log_format == "auto" and not sys.stderr.isatty()
    )
    level = logging.getLevelName(settings.log_level.upper())
    if not isinstance(level, int):
        level = logging.INFO
    shared: list[structlog.types.Processor] = [
        structlog.contextvars.merge_contextvars,
        merge_work_fields,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    renderer = (
        structlog.processors.JSONRenderer()
        if use_json
        else structlog.dev.ConsoleRenderer(colors=sys.stderr.isatty())
    )
    structlog.configure(
        processors=[
            *shared,
            structlog.processors.StackInfoRenderer(),
            structlog.processors.format_exc_info,
            structlog.stdlib.ProcessorFormatter.wrap_for_formatter,
        ],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.make_filtering_bound_logger(level),
        cache_logger_on_first_use=True,
    )
    formatter = structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=shared,
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, renderer],
    )
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(formatter)
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    for name in _QUIET_LOGGERS:
        logging.getLogger(name).setLevel(max(level, logging.WARNING))
    structlog.contextvars.clear_contextvars()
    structlog.contextvars.bind_contextvars(service=service)
