"""Event-loop lag: how late a timer fires on this process's asyncio loop.

CPU-bound work run on the loop (a parse, an index build, a model call without a thread) delays
everything else the process does on it - heartbeats, /healthz, LISTEN keepalives. A watcher
sleeps `interval_s` over and over and records how much later than asked it woke up; the
histogram's p99 and the worst lag seen are exported with the process's other metrics.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Final

from prometheus_client import REGISTRY, CollectorRegistry, Gauge, Histogram

# Often enough to catch a 50 ms stall, rarely enough to cost nothing (4 wake-ups a second).
DEFAULT_INTERVAL_S: Final = 0.25
LAG_BUCKETS: Final = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)


class LoopLagWatch:
    def __init__(
        self, registry: CollectorRegistry = REGISTRY, interval_s: float = DEFAULT_INTERVAL_S
    ) -> None:
        if interval_s <= 0:
            raise ValueError("interval_s must be positive")
        self.interval_s = interval_s
        self.lag = Histogram(
            "citeproof_event_loop_lag_seconds",
            "How much later than scheduled a timer fired on this process's event loop.",
            buckets=LAG_BUCKETS,
            registry=registry,
        )
        self.worst = Gauge(
            "citeproof_event_loop_lag_max_seconds",
            "The worst event-loop lag seen since the process started.",
            registry=registry,
        )
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._watch(), name="loop-lag")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _watch(self) -> None:
        loop = asyncio.get_running_loop()
        worst = 0.0
        while True:
            asked = loop.time()
            await asyncio.sleep(self.interval_s)
            late = max(0.0, loop.time() - asked - self.interval_s)
            self.lag.observe(late)
            if late > worst:
                worst = late
                self.worst.set(worst)


_process_watch: LoopLagWatch | None = None


def process_loop_lag() -> LoopLagWatch:
    """The watch whose metrics go to the process's default registry (created once)."""
    global _process_watch
    if _process_watch is None:
        _process_watch = LoopLagWatch()
    return _process_watch
