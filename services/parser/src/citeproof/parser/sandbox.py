"""Parsing in persistent child processes that are killed and replaced when a file misbehaves.

A pathological file (a PDF whose content stream loops, a decompression bomb that slipped past the
checks, a segfault in a C library) must not wedge or kill the worker. Each parse runs in a child
process that stays alive between items (spawning one costs 4-6 s of imports; a round trip to a
warm child adds a few milliseconds, see ADR 0003). On timeout the child is
SIGKILLed and the next item gets a fresh one; a child that dies on its own is reported as a
crash. The child's address space is capped so a memory bomb ends in MemoryError, not in the
kernel's OOM killer choosing the worker; the cap is the container's memory shared among the
concurrent children unless set. The child isolates itself before it reads a file (its own
network namespace, another uid, see `isolation`), gets no secret in its environment, and has
no database access: it answers over its socket pair, the worker stores.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import resource
import socket
import subprocess
import sys
import time
from collections.abc import Mapping
from multiprocessing.connection import Connection
from typing import Any

import msgspec
import structlog

from citeproof.parser.errors import PARSER_CRASHED, TIMEOUT, ParseFailure
from citeproof.parser.isolation import (
    Isolation,
    container_memory_limit,
    derive_child_memory_mb,
    isolate,
    probe_for,
    protect_worker,
)
from citeproof.parser.settings import DEFAULT_CHILD_MEMORY_MB, ParserSettings
from citeproof.pipeline import PARSE_STAGE
from citeproof.settings import load

log = structlog.get_logger("citeproof.parser")

# A child is replaced after this many items so slow leaks in C libraries cannot accumulate.
CHILD_MAX_ITEMS = 500
# How long a child may take to import its libraries and answer the first ping.
CHILD_START_TIMEOUT_S = 120.0


# What the child may inherit: the interpreter's and the libraries' own configuration. Nothing
# else — above all not DATABASE_URL, API keys or any other secret of the worker: a code
# execution bug in a parser library must find nothing to reach the database or the LLM with.
_CHILD_ENV_NAMES = frozenset(
    {
        "PATH", "HOME", "LANG", "LANGUAGE", "TZ", "TMPDIR", "TEMP", "TMP",
        "PYTHONPATH", "PYTHONHASHSEED", "PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED",
        "VIRTUAL_ENV", "XDG_CACHE_HOME", "NLTK_DATA", "DO_NOT_TRACK", "SCARF_NO_ANALYTICS",
        "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "TOKENIZERS_PARALLELISM",
        "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
        "COVERAGE_PROCESS_START",
    }
)  # fmt: skip
_CHILD_ENV_PREFIXES = ("LC_", "UNSTRUCTURED_")
# Even under an allowed prefix, a name like these is a credential.
_SECRET_MARKERS = ("KEY", "SECRET", "TOKEN", "PASSWORD", "CREDENTIAL", "URL")


def child_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """The environment of a parsing child: an allowlist, never the worker's whole one."""
    return {
        name: value
        for name, value in environ.items()
        if (name in _CHILD_ENV_NAMES or name.startswith(_CHILD_ENV_PREFIXES))
        and not any(marker in name.upper() for marker in _SECRET_MARKERS)
    }


def _limit_memory(megabytes: int) -> None:
    if megabytes <= 0:
        return
    limit = megabytes * 1024 * 1024
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def child_memory_mb(
    settings: ParserSettings, concurrency: int, limit_bytes: int | None
) -> tuple[int, str]:
    """(the child's address-space cap in MiB, where it comes from)."""
    if settings.child_memory_mb is not None:
        return settings.child_memory_mb, "setting"
    if limit_bytes is None:
        return DEFAULT_CHILD_MEMORY_MB, "default (no container memory limit)"
    return derive_child_memory_mb(limit_bytes, concurrency), (
        f"container limit {limit_bytes // (1024 * 1024)} MiB / {concurrency} children"
    )


def parse_concurrency() -> int:
    """How many children this worker runs at once (the parse stage's concurrency)."""
    # Imported here: the child imports this module and needs none of the queue runtime.
    from citeproof.queue import QueueSettings

    return load(QueueSettings, prefixes=(f"CITEPROOF_{PARSE_STAGE.upper()}_",)).concurrency


def child_main(conn: Connection, settings_raw: bytes) -> None:
    """Loop of a parsing child: receive (bytes, filename, declared type, kind), send a result."""
    settings = msgspec.json.decode(settings_raw, type=ParserSettings)
    # First, while this process is one thread and has read nothing: leave the network and,
    # when root, the root user.
    isolation = isolate(settings.child_user, settings.child_isolation)
    os.environ["DO_NOT_TRACK"] = "1"
    # The child shares the worker's stderr: only real problems, never per-file chatter
    # ("No languages specified, defaulting to English.") from the libraries.
    logging.basicConfig(level=logging.ERROR)
    # Imports happen before the memory cap so the cap only has to fit the parsing itself.
    from citeproof.parser import extract
    from citeproof.parser.unstructured_io import configure_unstructured
    from citeproof.parser.wordpieces import default_counter

    configure_unstructured()
    default_counter()
    _limit_memory(settings.child_memory_mb or 0)
    conn.send(("ready", msgspec.to_builtins(isolation)))
    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError):
            return
        if request is None:
            return
        data, filename, declared_type, kind = request
        try:
            parsed = extract.parse_bytes(data, filename, declared_type, settings, kind=kind)
            conn.send(("ok", msgspec.msgpack.encode(parsed)))
        except ParseFailure as exc:
            conn.send(("failure", (exc.code, exc.detail)))
        except MemoryError:
            conn.send(
                (
                    "failure",
                    (
                        "too_large",
                        "Parsing the file needed more memory than allowed; it is too large or "
                        "malformed.",
                    ),
                )
            )
        except Exception as exc:  # reported to the worker, which retries the item
            conn.send(("error", f"{type(exc).__name__}: {exc}"))


class _Child:
    """A `python -m citeproof.parser.child` process talking over a socket pair.

    A plain subprocess rather than multiprocessing's spawn: it never re-imports the parent's
    __main__ (a console script, pytest, a bench script) and its lifetime is ours alone.
    """

    def __init__(self, settings: ParserSettings) -> None:
        parent_sock, child_sock = socket.socketpair()
        env = dict(
            child_environment(os.environ),
            DO_NOT_TRACK="1",
            CITEPROOF_PARSER_CHILD_SETTINGS=msgspec.json.encode(settings).decode(),
        )
        self.process = subprocess.Popen(
            [sys.executable, "-m", "citeproof.parser.child", str(child_sock.fileno())],
            pass_fds=(child_sock.fileno(),),
            env=env,
            stdin=subprocess.DEVNULL,
        )
        child_sock.close()
        self.conn = Connection(parent_sock.detach())
        self.items = 0

    def kill(self) -> None:
        with contextlib.suppress(Exception):
            self.process.kill()
        with contextlib.suppress(Exception):
            self.process.wait(timeout=5)
        with contextlib.suppress(Exception):
            self.conn.close()

    def alive(self) -> bool:
        return self.process.poll() is None


class ChildCrashed(RuntimeError):
    """The parsing child died (signal, segfault) without answering; the item is retried."""


class ParseSandbox:
    """A set of warm parsing children, one per concurrent parse."""

    def __init__(self, settings: ParserSettings, concurrency: int | None = None) -> None:
        self._settings = settings
        self._concurrency = concurrency
        self._child_settings: ParserSettings | None = None
        self.memory_source = ""
        self._idle: list[_Child] = []
        self._busy: set[_Child] = set()
        self.children_started = 0
        self.children_killed = 0
        # What the last child reported it achieved (None before the first one started).
        self.isolation: Isolation | None = None

    def expected_isolation(self) -> Isolation:
        """The isolation children will get (a probe at boot; no child is started)."""
        return probe_for(
            self._settings.child_user,
            self._settings.child_isolation,
            child_environment(os.environ),
        )

    @property
    def child_settings(self) -> ParserSettings:
        """The settings children get: the memory cap resolved (at the first spawn, when the
        stage's concurrency is known)."""
        if self._child_settings is None:
            concurrency = self._concurrency or parse_concurrency()
            cap, self.memory_source = child_memory_mb(
                self._settings, concurrency, container_memory_limit()
            )
            self._child_settings = msgspec.structs.replace(self._settings, child_memory_mb=cap)
        return self._child_settings

    def _spawn(self) -> _Child:
        # A child that keeps the worker's uid must not read the worker's memory or environ.
        protect_worker()
        self.children_started += 1
        return _Child(self.child_settings)

    async def _receive(self, child: _Child, timeout: float) -> Any:
        def wait() -> Any:
            if not child.conn.poll(timeout):
                raise TimeoutError
            return child.conn.recv()

        return await asyncio.to_thread(wait)

    async def _checkout(self) -> _Child:
        while self._idle:
            child = self._idle.pop()
            if child.alive():
                return child
            child.kill()
        child = self._spawn()
        try:
            status, payload = await self._receive(child, CHILD_START_TIMEOUT_S)
        except (TimeoutError, EOFError, OSError) as exc:
            child.kill()
            raise ChildCrashed("the parsing child failed to start") from exc
        if status != "ready":  # pragma: no cover - protocol guard
            child.kill()
            raise ChildCrashed(f"unexpected child greeting {status!r}")
        self.isolation = msgspec.convert(payload, Isolation)
        return child

    def _release(self, child: _Child) -> None:
        if child.items >= CHILD_MAX_ITEMS or not child.alive():
            child.kill()
        else:
            self._idle.append(child)

    async def warm_up(self) -> None:
        """Start one child ahead of the first item (called at worker start) and log the
        isolation it runs under."""
        self._release(await self._checkout())
        isolation = self.isolation
        assert isolation is not None  # set by the child's greeting
        log.info(
            "parser.isolation",
            mode=isolation.mode,
            network=isolation.network,
            user=isolation.user,
            child_uid=isolation.uid,
            notes=isolation.notes,
            child_memory_mb=self.child_settings.child_memory_mb,
            child_memory_from=self.memory_source,
        )

    async def parse(self, data: bytes, filename: str, declared_type: str | None, kind: str):
        from citeproof.parser.parsed import ParsedDocument

        child = await self._checkout()
        started = time.monotonic()
        self._busy.add(child)
        try:
            child.conn.send((data, filename, declared_type, kind))
            status, payload = await self._receive(child, self._settings.item_timeout_s)
        except TimeoutError:
            self.children_killed += 1
            child.kill()
            raise ParseFailure(
                TIMEOUT,
                f"Parsing did not finish within {self._settings.item_timeout_s:.0f} s; the file "
                "is too complex or malformed.",
            ) from None
        except (EOFError, OSError, BrokenPipeError) as exc:
            self.children_killed += 1
            child.kill()
            raise ChildCrashed(
                f"the parsing child died after {time.monotonic() - started:.1f} s"
            ) from exc
        except BaseException:
            # Cancelled (drain) mid-parse: the child's answer would arrive out of turn.
            child.kill()
            raise
        finally:
            self._busy.discard(child)
        child.items += 1
        self._release(child)
        if status == "ok":
            return msgspec.msgpack.decode(payload, type=ParsedDocument)
        if status == "failure":
            raise ParseFailure(*payload)
        raise RuntimeError(f"parsing failed: {payload}")

    def busy_pids(self) -> list[int]:
        """Process ids of the children parsing right now (for operators and tests)."""
        return [child.process.pid for child in self._busy]

    def close(self) -> None:
        for child in self._idle:
            with contextlib.suppress(Exception):
                child.conn.send(None)
            child.kill()
        self._idle.clear()


def crash_failure() -> ParseFailure:
    return ParseFailure(
        PARSER_CRASHED,
        "The parser crashed on this file repeatedly; it is probably malformed.",
    )
