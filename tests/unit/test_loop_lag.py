"""The event-loop lag watch records a stall of the loop it runs on."""

from __future__ import annotations

import asyncio
import time

from prometheus_client import CollectorRegistry

from citeproof.obs.loop_lag import LoopLagWatch


async def test_a_blocked_loop_shows_as_lag() -> None:
    registry = CollectorRegistry()
    watch = LoopLagWatch(registry=registry, interval_s=0.02)
    watch.start()
    await asyncio.sleep(0.1)
    time.sleep(0.3)  # noqa: ASYNC251 - the point: work that blocks the loop
    await asyncio.sleep(0.1)
    await watch.stop()
    worst = registry.get_sample_value("citeproof_event_loop_lag_max_seconds")
    samples = registry.get_sample_value("citeproof_event_loop_lag_seconds_count")
    late = registry.get_sample_value("citeproof_event_loop_lag_seconds_bucket", {"le": "0.1"})
    assert worst is not None and worst >= 0.25
    assert samples is not None and samples >= 3
    # The stall is in the tail, not in every sample.
    assert late is not None and samples - late >= 1
