"""The queue benchmark's harness: the same phases, in the same order, for every system.

All systems share one embedded PostgreSQL (each in its own schema) and one Python process
(one asyncio loop); only one system's worker runs at a time.
1. install every system's schema;
2. per system - start its worker, warm up (a small drained batch: connections, prepared
   statements, caches), let it go idle, then measure latency: enqueue tasks one at a time at
   a fixed rate; a task's latency is the time from just before its enqueue call (producer
   side, so the enqueue's own commit counts) to the start of its handler, on one monotonic
   clock; stop the worker;
3. throughput, in rounds that interleave the systems: enqueue the round's tasks in one
   statement with the worker stopped, start the worker, and take tasks / (time from the
   first handler start to the moment the database shows every task finished - completions
   a system buffers in memory count only once written); stop the worker. The median round
   is reported.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

import common
from _queue_citeproof import CiteproofSystem
from _queue_pgqueuer import PgqueuerSystem, UnboundedPgqueuerSystem
from _queue_procrastinate import ProcrastinateSystem
from _queue_proposal import (
    GroupCommitOnlySystem,
    NoPoolResetOnlySystem,
    ProposedCiteproofSystem,
)
from _queue_raw import RawSqlSystem

from citeproof.obs.logs import configure_logging
from citeproof.obs.settings import ObservabilitySettings

RESULT_NAME = "queue"
BASELINE = "citeproof"
DEFAULT_TASKS = 5_000
DEFAULT_ROUNDS = 3
DEFAULT_LATENCY_TASKS = 1_000
DEFAULT_RATE = 200.0
DEFAULT_CONCURRENCY = 20
DEFAULT_BATCH = 10
WARMUP_TASKS = 500
# Workers count as idle-waiting after this long without work (past any post-batch re-claim).
IDLE_SETTLE_S = 0.5
DRAIN_POLL_S = 0.01
PHASE_TIMEOUT_S = 300.0
# Sequence-number ranges per phase keep every task's payload unique within a run.
LATENCY_BASE = 1_000_000
THROUGHPUT_BASE = 2_000_000


class QueueSystem(Protocol):
    name: str

    def describe(self) -> str: ...
    async def install(self) -> None: ...
    async def start(self, on_start: Callable[[int], None]) -> None: ...
    async def stop(self) -> None: ...
    async def enqueue_one(self, seq: int) -> None: ...
    async def enqueue_many(self, seqs: range) -> None: ...
    async def unfinished(self) -> int: ...
    async def close(self) -> None: ...


SYSTEMS: dict[str, Callable[[str, int, int], QueueSystem]] = {
    "citeproof": CiteproofSystem,
    "pgqueuer": PgqueuerSystem,
    "procrastinate": ProcrastinateSystem,
    "raw_sql": RawSqlSystem,
}
# Measured only on request (--systems): prototypes of proposed runtime changes, and pgqueuer
# without the in-flight cap the comparison imposes on it.
EXTRA_SYSTEMS: dict[str, Callable[[str, int, int], QueueSystem]] = {
    "citeproof_proposed": ProposedCiteproofSystem,
    "citeproof_group_commit": GroupCommitOnlySystem,
    "citeproof_no_reset": NoPoolResetOnlySystem,
    "pgqueuer_unbounded": UnboundedPgqueuerSystem,
}


@dataclass
class Recorder:
    """Handler-start times by sequence number; duplicates would mean a double delivery."""

    started: dict[int, float] = field(default_factory=dict)
    duplicates: int = 0
    _expected: set[int] = field(default_factory=set)
    _done: asyncio.Event = field(default_factory=asyncio.Event)

    def expect(self, seqs: range) -> None:
        self._expected = set(seqs) - self.started.keys()
        self._done.clear()
        if not self._expected:
            self._done.set()

    def __call__(self, seq: int) -> None:
        now = time.perf_counter()
        if seq in self.started:
            self.duplicates += 1
            return
        self.started[seq] = now
        self._expected.discard(seq)
        if not self._expected:
            self._done.set()

    async def wait(self, what: str) -> None:
        try:
            await asyncio.wait_for(self._done.wait(), timeout=PHASE_TIMEOUT_S)
        except TimeoutError:
            raise RuntimeError(f"{what}: {len(self._expected)} tasks never started") from None


@dataclass
class Options:
    tasks: int
    rounds: int
    latency_tasks: int
    rate: float
    concurrency: int
    batch_size: int


async def wait_drained(system: QueueSystem) -> None:
    deadline = time.perf_counter() + PHASE_TIMEOUT_S
    while await system.unfinished():
        if time.perf_counter() > deadline:
            raise RuntimeError(f"{system.name}: tasks never finished")
        await asyncio.sleep(DRAIN_POLL_S)


async def measure_latency(system: QueueSystem, recorder: Recorder, opts: Options) -> list[float]:
    seqs = range(LATENCY_BASE, LATENCY_BASE + opts.latency_tasks)
    recorder.expect(seqs)
    enqueued: dict[int, float] = {}
    begin = time.perf_counter()
    for i, seq in enumerate(seqs):
        # A fixed schedule rather than a fixed gap, so slow enqueues do not lower the rate.
        delay = begin + i / opts.rate - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        enqueued[seq] = time.perf_counter()
        await system.enqueue_one(seq)
    await recorder.wait(f"{system.name} latency")
    await wait_drained(system)
    return [(recorder.started[s] - enqueued[s]) * 1000 for s in seqs]


async def measure_throughput(
    system: QueueSystem, recorder: Recorder, opts: Options, round_no: int
) -> float:
    base = THROUGHPUT_BASE + round_no * opts.tasks
    seqs = range(base, base + opts.tasks)
    await system.enqueue_many(seqs)
    recorder.expect(seqs)
    await system.start(recorder)
    await recorder.wait(f"{system.name} throughput")
    await wait_drained(system)
    finished = time.perf_counter()
    await system.stop()
    first = min(recorder.started[s] for s in seqs)
    return opts.tasks / (finished - first)


async def warm_up(system: QueueSystem, recorder: Recorder) -> None:
    warmup = range(WARMUP_TASKS)
    await system.enqueue_many(warmup)
    recorder.expect(warmup)
    await recorder.wait(f"{system.name} warm-up")
    await wait_drained(system)


async def run_all(url: str, names: list[str], opts: Options) -> dict[str, dict[str, float]]:
    factories = {**SYSTEMS, **EXTRA_SYSTEMS}
    systems = [factories[name](url, opts.concurrency, opts.batch_size) for name in names]
    recorders = {system.name: Recorder() for system in systems}
    latencies: dict[str, list[float]] = {}
    rates: dict[str, list[float]] = {system.name: [] for system in systems}
    try:
        for system in systems:
            print(f"{system.name}: {system.describe()}", flush=True)
            await system.install()
        for system in systems:
            recorder = recorders[system.name]
            await system.start(recorder)
            await warm_up(system, recorder)
            await asyncio.sleep(IDLE_SETTLE_S)
            latencies[system.name] = await measure_latency(system, recorder, opts)
            await system.stop()
        # Rounds interleave the systems, so a burst of load from elsewhere on the machine
        # hits one round of each rather than every round of one; the median is reported.
        for round_no in range(opts.rounds):
            for system in systems:
                rate = await measure_throughput(system, recorders[system.name], opts, round_no)
                rates[system.name].append(rate)
            print(
                f"round {round_no + 1}: "
                + ", ".join(f"{name} {r[-1]:,.0f}/s" for name, r in rates.items()),
                flush=True,
            )
    finally:
        for system in systems:
            await system.close()
    for name, recorder in recorders.items():
        if recorder.duplicates:
            raise RuntimeError(f"{name}: {recorder.duplicates} tasks started twice")
    return {
        name: {
            "tasks_per_s": round(statistics.median(rates[name]), 1),
            "p50_ms": round(common.percentile(latencies[name], 50), 2),
            "p99_ms": round(common.percentile(latencies[name], 99), 2),
        }
        for name in rates
    }


def parse_args(argv: list[str] | None) -> tuple[list[str], Options]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--tasks", type=int, default=DEFAULT_TASKS, help="tasks per throughput round"
    )
    parser.add_argument("--rounds", type=int, default=DEFAULT_ROUNDS, help="throughput rounds")
    parser.add_argument(
        "--latency-tasks", type=int, default=DEFAULT_LATENCY_TASKS, help="latency samples"
    )
    parser.add_argument("--rate", type=float, default=DEFAULT_RATE, help="latency enqueues/s")
    parser.add_argument("--concurrency", type=int, default=DEFAULT_CONCURRENCY)
    parser.add_argument("--batch-size", type=int, default=DEFAULT_BATCH)
    parser.add_argument("--systems", default=",".join(SYSTEMS), help="comma-separated")
    args = parser.parse_args(argv)
    names = [n.strip() for n in args.systems.split(",") if n.strip()]
    unknown = set(names) - SYSTEMS.keys() - EXTRA_SYSTEMS.keys()
    if unknown:
        parser.error(f"unknown systems: {', '.join(sorted(unknown))}")
    return names, Options(
        tasks=args.tasks,
        rounds=args.rounds,
        latency_tasks=args.latency_tasks,
        rate=args.rate,
        concurrency=args.concurrency,
        batch_size=args.batch_size,
    )


def main(argv: list[str] | None = None) -> int:
    names, opts = parse_args(argv)
    configure_logging("bench", ObservabilitySettings(log_level="warning"))
    print(
        f"queue benchmark: throughput = median of {opts.rounds} rounds of {opts.tasks} no-op "
        f"tasks (queued first, then drained); latency = {opts.latency_tasks} tasks enqueued one "
        f"at a time at {opts.rate:g}/s; concurrency {opts.concurrency} per system, batch "
        f"{opts.batch_size}; {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    with common.fresh_postgres() as url:
        results = asyncio.run(run_all(url, names, opts))
    common.print_table(
        results,
        [
            common.Column("tasks_per_s", "tasks/s", 0),
            common.Column("p50_ms", "p50 ms", 2),
            common.Column("p99_ms", "p99 ms", 2),
        ],
        baseline=BASELINE,
    )
    if SYSTEMS.keys() <= set(names):
        path = common.write_results(RESULT_NAME, {name: results[name] for name in SYSTEMS})
        print(f"wrote {path}")
    else:
        print("(not every system ran: bench/results/queue.json not written)")
    return 0
