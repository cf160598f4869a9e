"""The stage circuit breaker's states, on a clock the test moves."""

from __future__ import annotations

from citeproof.queue._breaker import Breaker

PROBE_S = 5.0
OUTAGE_MAX_S = 60.0


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_closed_open_probe_and_close_again() -> None:
    clock = Clock()
    breaker = Breaker("judge", PROBE_S, OUTAGE_MAX_S, clock=clock)
    assert breaker.claim_limit() is None and not breaker.is_open
    assert breaker.trip("judge backend", "connection refused")
    assert not breaker.trip("judge backend", "connection refused")  # already open
    assert breaker.is_open and breaker.since is not None
    assert breaker.claim_limit() == 0  # nothing between probes
    clock.now += PROBE_S
    assert breaker.claim_limit() == 1  # one probe task ...
    assert breaker.claim_limit() == 0  # ... and only one while it runs
    breaker.trip("judge backend", "still refused")  # the probe met the outage
    assert breaker.claim_limit() == 0
    clock.now += PROBE_S
    assert breaker.claim_limit() == 1
    assert breaker.answered()  # the probe got an answer: closed
    assert not breaker.is_open and breaker.claim_limit() is None and breaker.since is None


def test_an_outage_longer_than_the_limit_stops_holding_the_tasks() -> None:
    clock = Clock()
    breaker = Breaker("judge", PROBE_S, OUTAGE_MAX_S, clock=clock)
    breaker.trip("judge backend", "connection refused")
    clock.now += OUTAGE_MAX_S + 1
    # Claims resume and DependencyDown is an ordinary failure again (the executor charges it).
    assert breaker.outage_too_long and not breaker.is_open
    assert breaker.claim_limit() is None
