"""The queue benchmark's harness: the same phases, in the same order, for every system.

Per system, in one embedded PostgreSQL and one Python process (one asyncio loop):
1. install its schema; start its worker; warm up (a small drained batch: connections,
   prepared statements, caches);
2. latency: with the worker idle-waiting, enqueue tasks one at a time at a fixed rate; a
   task's latency is the time from just before its enqueue call (producer side, so the
   enqueue's own commit counts) to the start of its handler, on one monotonic clock;
3. stop the worker; enqueue the throughput batch in one statement; start the worker;
   throughput = tasks / (time from the first handler start to the moment the database shows
   every task finished). Completions a system buffers in memory only count once written.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

import common
from _queue_citeproof import CiteproofSystem
from _queue_pgqueuer import PgqueuerSystem
from _queue_procrastinate import ProcrastinateSystem
from _queue_raw import RawSqlSystem

from citeproof.obs.logs import configure_logging
from citeproof.obs.settings import ObservabilitySettings

RESULT_NAME = "queue"
BASELINE = "citeproof"
DEFAULT_TASKS = 10_000
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


async def measure_throughput(system: QueueSystem, recorder: Recorder, opts: Options) -> float:
    seqs = range(THROUGHPUT_BASE, THROUGHPUT_BASE + opts.tasks)
    await system.stop()
    await system.enqueue_many(seqs)
    recorder.expect(seqs)
    await system.start(recorder)
    await recorder.wait(f"{system.name} throughput")
    await wait_drained(system)
    finished = time.perf_counter()
    first = min(recorder.started[s] for s in seqs)
    return opts.tasks / (finished - first)


async def run_system(system: QueueSystem, opts: Options) -> dict[str, float]:
    recorder = Recorder()
    await system.install()
    try:
        await system.start(recorder)
        warmup = range(WARMUP_TASKS)
        await system.enqueue_many(warmup)
        recorder.expect(warmup)
        await recorder.wait(f"{system.name} warm-up")
        await wait_drained(system)
        await asyncio.sleep(IDLE_SETTLE_S)
        latencies = await measure_latency(system, recorder, opts)
        tasks_per_s = await measure_throughput(system, recorder, opts)
    finally:
        await system.close()
    if recorder.duplicates:
        raise RuntimeError(f"{system.name}: {recorder.duplicates} tasks started twice")
    return {
        "tasks_per_s": round(tasks_per_s, 1),
        "p50_ms": round(common.percentile(latencies, 50), 2),
        "p99_ms": round(common.percentile(latencies, 99), 2),
    }


async def run_all(url: str, names: list[str], opts: Options) -> dict[str, dict[str, float]]:
    results: dict[str, dict[str, float]] = {}
    for name in names:
        system = SYSTEMS[name](url, opts.concurrency, opts.batch_size)
        print(f"{name}: {system.describe()}", flush=True)
        started = time.perf_counter()
        results[name] = await run_system(system, opts)
        print(f"  {results[name]}  ({time.perf_counter() - started:.1f} s)", flush=True)
    return results


def parse_args(argv: list[str] | None) -> tuple[list[str], Options]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=DEFAULT_TASKS, help="throughput batch")
    parser.add_argument(
        "--latency-tasks", type=int, default=DEFAULT_LATENCY_TASKS, help="latency samples"
    )
    parser.add_argument("--rate", type=float, default=DEFAULT_RATE, help="latency enqueues/s")
    parser.add_argument("--concurrency", type=int, default=DEFAULT_CONCURRENCY)
    parser.add_argument("--batch-size", type=int, default=DEFAULT_BATCH)
    parser.add_argument("--systems", default=",".join(SYSTEMS), help="comma-separated")
    args = parser.parse_args(argv)
    names = [n.strip() for n in args.systems.split(",") if n.strip()]
    unknown = set(names) - SYSTEMS.keys()
    if unknown:
        parser.error(f"unknown systems: {', '.join(sorted(unknown))}")
    return names, Options(
        tasks=args.tasks,
        latency_tasks=args.latency_tasks,
        rate=args.rate,
        concurrency=args.concurrency,
        batch_size=args.batch_size,
    )


def main(argv: list[str] | None = None) -> int:
    names, opts = parse_args(argv)
    configure_logging("bench", ObservabilitySettings(log_level="warning"))
    print(
        f"queue benchmark: {opts.tasks} no-op tasks for throughput (queued first, then "
        f"drained), {opts.latency_tasks} for latency at {opts.rate:g}/s; concurrency "
        f"{opts.concurrency} per system, batch {opts.batch_size}; {os.cpu_count()} CPUs",
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
    if set(names) == set(SYSTEMS):
        path = common.write_results(RESULT_NAME, results)
        print(f"wrote {path}")
    else:
        print("(a subset of systems: bench/results/queue.json not written)")
    return 0
