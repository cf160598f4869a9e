"""A stage's circuit breaker: what a worker claims while a backend the stage needs is down.

Closed: claim as usual. A task that raises `DependencyDown` opens it: the task is handed back
uncharged and the worker claims nothing of the stage. Every `dependency_probe_s` one task is
let through (half-open); if its backend answers in any way the breaker closes, if not it stays
open. An outage longer than `dependency_outage_max_s` stops the holding: tasks run again and
fail with their attempts charged, so a backend that never returns cannot keep runs waiting.
Per process and per stage; other workers learn about the outage from their own first failure.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime

import structlog

log = structlog.get_logger("citeproof.queue.breaker")


class Breaker:
    def __init__(
        self,
        stage: str,
        probe_s: float,
        outage_max_s: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._stage = stage
        self._probe_s = probe_s
        self._outage_max_s = outage_max_s
        self._clock = clock
        self._opened_at: float | None = None
        self.since: datetime | None = None  # wall clock, for people
        self.dependency = ""
        self.detail = ""
        self._next_probe = 0.0
        self._probing = False

    @property
    def is_open(self) -> bool:
        """Open and still holding tasks (an outage past its limit no longer holds them)."""
        return self._opened_at is not None and not self.outage_too_long

    @property
    def outage_too_long(self) -> bool:
        opened = self._opened_at
        return opened is not None and self._clock() - opened > self._outage_max_s

    def trip(self, dependency: str, detail: str) -> bool:
        """A task found the backend down; True when this opened the breaker."""
        now = self._clock()
        self._probing = False
        self._next_probe = now + self._probe_s
        self.dependency, self.detail = dependency, detail
        if self._opened_at is not None:
            return False
        self._opened_at = now
        self.since = datetime.now(UTC)
        log.warning("breaker.opened", stage=self._stage, dependency=dependency, detail=detail)
        return True

    def answered(self) -> bool:
        """A task ran without meeting the outage; True when this closed the breaker."""
        self._probing = False
        if self._opened_at is None:
            return False
        log.info("breaker.closed", stage=self._stage, dependency=self.dependency,
                 outage_s=round(self._clock() - self._opened_at, 1))  # fmt: skip
        self._opened_at = None
        self.since = None
        return True

    def claim_limit(self) -> int | None:
        """How many rows the claim loop may take now: None for no limit (closed, or an outage
        past its limit), 1 for the probe, 0 while open between probes."""
        if not self.is_open:
            return None
        if self._probing or self._clock() < self._next_probe:
            return 0
        self._probing = True
        return 1

    def seconds_to_probe(self) -> float:
        return max(0.0, self._next_probe - self._clock())
