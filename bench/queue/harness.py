"""The queue benchmark's harness: the same phases, in the same order, for every system.

All systems share one embedded PostgreSQL (each in its own schema) and one Python process
(one asyncio loop); only one system's worker runs at a time.
1. install every system's schema; per system, start its worker, warm up (a small drained
   batch: connections, prepared statements, caches) and stop it;
2. rounds that interleave the systems (so a burst of load from elsewhere on a shared machine
   hits one round of each rather than every round of one), first for latency, then for
   throughput, each round per system:
   - latency: start the worker, let it go idle, enqueue tasks one at a time at a fixed rate;
     a task's latency is the time from just before its enqueue call (producer side, so the
     enqueue's own commit counts) to the start of its handler, on one monotonic clock;
     p50/p99 are taken over the samples of all rounds;
   - throughput: enqueue the round's tasks in one statement with the worker stopped, vacuum
     and analyse the database (autovacuum is off for the whole run, so no vacuum of one
     system's tables runs during another's round), start the worker, and take tasks / (time
     from the first handler start to the moment the database shows every task finished -
     completions a system buffers in memory count only once written); the median round is
     reported, with the CPU the round cost (this process plus the PostgreSQL server) per task.
3. a system's ratio to its floor is the median of the per-round ratios (round i of the system
   over round i of the floor, run within the same round of the interleaving): a burst of load
   from elsewhere that slows one round of both cancels out, where a ratio of the two medians
   could pair a slowed round of one with a quiet round of the other. The ratio of the medians
   is kept in the details file.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import asyncpg

from bench import common
from bench.queue.citeproof_system import (
    CiteproofHandoffSystem,
    CiteproofSystem,
    CiteproofWithGroupHookSystem,
    CiteproofWithHookSystem,
    CiteproofWithRowHookSystem,
)
from bench.queue.pgqueuer_system import PgqueuerSystem, UnboundedPgqueuerSystem
from bench.queue.procrastinate_system import ProcrastinateSystem
from bench.queue.raw_system import RawSqlSystem, RawSqlWithHookSystem
from citeproof.obs.logs import configure_logging
from citeproof.obs.settings import ObservabilitySettings

RESULT_NAME = "queue"
# Per-round figures, CPU per task, latency tail and each system's setup, for the curious.
DETAILS_NAME = "queue_details"
BASELINE = "citeproof"
# Rounds of 3,000 tasks lasted 0.2 s at the raw floor: a burst of other load on a shared machine
# decided a round. 20,000 make each round of the fast systems last seconds.
DEFAULT_TASKS = 20_000
# Rounds per system; the ratios to the floors are medians over the paired rounds.
DEFAULT_ROUNDS = 5
DEFAULT_LATENCY_TASKS = 600
DEFAULT_RATE = 100.0
DEFAULT_CONCURRENCY = 20
DEFAULT_BATCH = 10
WARMUP_TASKS = 500
# Latency samples are taken in this many short interleaved chunks per system: other people's
# load on a shared machine comes in bursts, and short chunks spread each burst over everyone.
LATENCY_ROUNDS = 6
# Workers count as idle-waiting after this long without work (past any post-batch re-claim).
IDLE_SETTLE_S = 0.3
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
    # The production path (every product stage has a terminal hook) and its floor: each task's
    # completion writes one row in the same transaction.
    "citeproof_with_hook": CiteproofWithHookSystem,
    "raw_sql_with_hook": RawSqlWithHookSystem,
}
# Ratios written next to a system's figures: (system, floor it is compared with).
FLOOR_RATIOS = (
    ("citeproof", "raw_sql"),
    ("citeproof_with_hook", "raw_sql_with_hook"),
    ("citeproof_with_hook", "raw_sql"),
)
# Measured only on request (--systems): citeproof's hand-off transaction path (what every
# product stage uses) and pgqueuer without the in-flight cap the comparison imposes on it.
EXTRA_SYSTEMS: dict[str, Callable[[str, int, int], QueueSystem]] = {
    "citeproof_handoff": CiteproofHandoffSystem,
    "citeproof_with_group_hook": CiteproofWithGroupHookSystem,
    "citeproof_with_row_hook": CiteproofWithRowHookSystem,
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


async def measure_latency(
    system: QueueSystem, recorder: Recorder, opts: Options, round_no: int
) -> list[float]:
    per_round = opts.latency_tasks // LATENCY_ROUNDS
    base = LATENCY_BASE + round_no * per_round
    seqs = range(base, base + per_round)
    recorder.expect(seqs)
    await system.start(recorder)
    await asyncio.sleep(IDLE_SETTLE_S)
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
    await system.stop()
    return [(recorder.started[s] - enqueued[s]) * 1000 for s in seqs]


@dataclass(frozen=True)
class Round:
    tasks_per_s: float
    cpu_us_per_task: float | None  # this process + the PostgreSQL server, per task
    # The same, this process only: the runtime's own share (the rest is the server's).
    client_cpu_us_per_task: float | None = None


class CpuMeter:
    """CPU of this process plus every process of the PostgreSQL server (its postmaster's
    children). On a shared machine wall-clock throughput swings with other people's load;
    CPU per task does not, so it is reported next to it. Unavailable (None) when the server
    is not local."""

    def __init__(self, postmaster: int | None, url: str = "") -> None:
        self.postmaster = postmaster
        self.url = url

    @classmethod
    async def for_server(cls, url: str) -> CpuMeter:
        conn = await asyncpg.connect(url)
        try:
            data_dir = await conn.fetchval("SHOW data_directory")
        finally:
            await conn.close()
        try:
            return cls(int((Path(data_dir) / "postmaster.pid").read_text().split()[0]), url)
        except (OSError, ValueError, IndexError):
            return cls(None, url)

    def sample(self) -> dict[int, float] | None:
        if self.postmaster is None:
            return None
        pids = [os.getpid(), *common.children_of(self.postmaster)]
        return {pid: common.cpu_seconds([pid]) for pid in pids}

    @staticmethod
    def spent(before: dict[int, float] | None, after: dict[int, float] | None) -> float | None:
        if before is None or after is None:
            return None
        return sum(cpu - before.get(pid, 0.0) for pid, cpu in after.items())

    @staticmethod
    def spent_here(before: dict[int, float] | None, after: dict[int, float] | None) -> float | None:
        """This process's share of `spent`."""
        if before is None or after is None:
            return None
        return after[os.getpid()] - before[os.getpid()]


async def quiet_server(url: str) -> None:
    """No autovacuum on the benchmark's server: a vacuum of one system's tables started by
    the churn of its rounds ran during the next system's round, which paid for it in wall time
    and in CPU per task (the slower the system, the more of it). `settle` vacuums instead."""
    conn = await asyncpg.connect(url)
    try:
        await conn.execute("ALTER SYSTEM SET autovacuum = off")
        await conn.execute("SELECT pg_reload_conf()")
    finally:
        await conn.close()


async def settle(url: str) -> None:
    """Before a measured round, outside its clock: vacuum and analyse every system's tables,
    so each round starts from the same state whatever ran before it."""
    conn = await asyncpg.connect(url)
    try:
        await conn.execute("VACUUM (ANALYZE)")
    finally:
        await conn.close()


async def measure_throughput(
    system: QueueSystem, recorder: Recorder, opts: Options, round_no: int, cpu: CpuMeter
) -> Round:
    base = THROUGHPUT_BASE + round_no * opts.tasks
    seqs = range(base, base + opts.tasks)
    await system.enqueue_many(seqs)
    await settle(cpu.url)
    recorder.expect(seqs)
    cpu_before = cpu.sample()
    await system.start(recorder)
    await recorder.wait(f"{system.name} throughput")
    await wait_drained(system)
    finished = time.perf_counter()
    cpu_after = cpu.sample()
    cpu_spent = CpuMeter.spent(cpu_before, cpu_after)
    client_spent = CpuMeter.spent_here(cpu_before, cpu_after)
    await system.stop()
    first = min(recorder.started[s] for s in seqs)
    return Round(
        tasks_per_s=opts.tasks / (finished - first),
        cpu_us_per_task=None if cpu_spent is None else cpu_spent / opts.tasks * 1e6,
        client_cpu_us_per_task=None if client_spent is None else client_spent / opts.tasks * 1e6,
    )


async def warm_up(system: QueueSystem, recorder: Recorder) -> None:
    warmup = range(WARMUP_TASKS)
    await system.enqueue_many(warmup)
    recorder.expect(warmup)
    await recorder.wait(f"{system.name} warm-up")
    await wait_drained(system)


@dataclass
class Measured:
    description: str
    latencies_ms: list[float] = field(default_factory=list)
    rounds: list[Round] = field(default_factory=list)

    def summary(self) -> dict[str, float]:
        """The figures of bench/results/queue.json."""
        return {
            "tasks_per_s": round(statistics.median(r.tasks_per_s for r in self.rounds), 1),
            "p50_ms": round(common.percentile(self.latencies_ms, 50), 2),
            "p99_ms": round(common.percentile(self.latencies_ms, 99), 2),
        }

    def cpu_us_per_task(self) -> float:
        values = [r.cpu_us_per_task for r in self.rounds if r.cpu_us_per_task is not None]
        return round(statistics.median(values), 1) if values else math.nan

    def client_cpu_us_per_task(self) -> float:
        values = [
            r.client_cpu_us_per_task for r in self.rounds if r.client_cpu_us_per_task is not None
        ]
        return round(statistics.median(values), 1) if values else math.nan

    def details(self) -> dict[str, object]:
        return {
            **self.summary(),
            "setup": self.description,
            "cpu_us_per_task": self.cpu_us_per_task(),
            "client_cpu_us_per_task": self.client_cpu_us_per_task(),
            "rounds_tasks_per_s": [round(r.tasks_per_s, 1) for r in self.rounds],
            "p90_ms": round(common.percentile(self.latencies_ms, 90), 2),
            "max_ms": round(max(self.latencies_ms), 2),
        }


def paired_ratio(system: Measured, floor: Measured) -> float:
    """Median over rounds of the system's throughput over its floor's in the same round."""
    pairs = zip(system.rounds, floor.rounds, strict=True)
    return round(statistics.median(a.tasks_per_s / b.tasks_per_s for a, b in pairs), 2)


async def run_all(url: str, names: list[str], opts: Options) -> dict[str, Measured]:
    factories = {**SYSTEMS, **EXTRA_SYSTEMS}
    systems = [factories[name](url, opts.concurrency, opts.batch_size) for name in names]
    recorders = {system.name: Recorder() for system in systems}
    measured = {system.name: Measured(system.describe()) for system in systems}
    cpu = await CpuMeter.for_server(url)
    await quiet_server(url)
    try:
        for system in systems:
            print(f"{system.name}: {system.describe()}", flush=True)
            await system.install()
        for system in systems:
            recorder = recorders[system.name]
            await system.start(recorder)
            await warm_up(system, recorder)
            await system.stop()
        # Rounds interleave the systems, so a burst of load from elsewhere on the machine
        # hits one round of each rather than every round of one.
        for round_no in range(LATENCY_ROUNDS):
            for system in systems:
                samples = await measure_latency(system, recorders[system.name], opts, round_no)
                measured[system.name].latencies_ms.extend(samples)
        for round_no in range(opts.rounds):
            for system in systems:
                result = await measure_throughput(
                    system, recorders[system.name], opts, round_no, cpu
                )
                measured[system.name].rounds.append(result)
            print(
                f"round {round_no + 1}: "
                + ", ".join(f"{n} {m.rounds[-1].tasks_per_s:,.0f}/s" for n, m in measured.items()),
                flush=True,
            )
    finally:
        for system in systems:
            await system.close()
    for name, recorder in recorders.items():
        if recorder.duplicates:
            raise RuntimeError(f"{name}: {recorder.duplicates} tasks started twice")
    return measured


def parse_args(argv: list[str] | None) -> tuple[list[str], Options]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--tasks", type=int, default=DEFAULT_TASKS, help="tasks per throughput round"
    )
    parser.add_argument(
        "--rounds", type=int, default=DEFAULT_ROUNDS, help="throughput rounds (median reported)"
    )
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
    load_at_start = os.getloadavg()[0]
    print(
        f"queue benchmark: throughput = median of {opts.rounds} rounds of {opts.tasks} no-op "
        f"tasks (queued first, then drained); latency = {opts.latency_tasks} tasks enqueued one "
        f"at a time at {opts.rate:g}/s; concurrency {opts.concurrency} per system, batch "
        f"{opts.batch_size}; {os.cpu_count()} CPUs, load average {load_at_start:.1f}",
        flush=True,
    )
    began = time.perf_counter()
    with common.fresh_postgres() as url:
        measured = asyncio.run(run_all(url, names, opts))
    print(f"({time.perf_counter() - began:.0f} s)")
    rows = {
        name: {
            **m.summary(),
            "cpu_us_per_task": m.cpu_us_per_task(),
            "client_cpu_us_per_task": m.client_cpu_us_per_task(),
        }
        for name, m in measured.items()
    }
    common.print_table(
        rows,
        [
            common.Column("tasks_per_s", "tasks/s", 0),
            common.Column("p50_ms", "p50 ms", 2),
            common.Column("p99_ms", "p99 ms", 2),
            common.Column("cpu_us_per_task", "CPU us/task", 0),
            common.Column("client_cpu_us_per_task", "of which client", 0),
        ],
        baseline=BASELINE,
    )
    if not SYSTEMS.keys() <= set(names):
        print("(not every system ran: bench/results/queue*.json not written)")
        return 0
    summaries: dict[str, dict[str, float]] = {n: measured[n].summary() for n in SYSTEMS}
    medians_ratios: dict[str, float] = {}
    for system, floor in FLOOR_RATIOS:
        key = f"ratio_to_{floor}"
        summaries[system][key] = paired_ratio(measured[system], measured[floor])
        medians_ratios[f"{system}_{key}"] = round(
            summaries[system]["tasks_per_s"] / summaries[floor]["tasks_per_s"], 2
        )
    path = common.write_results(RESULT_NAME, summaries)
    details = {
        "method": (
            f"throughput: median of {opts.rounds} interleaved rounds of {opts.tasks} tasks "
            f"queued first, then drained; latency: {opts.latency_tasks} tasks enqueued one at "
            f"a time at {opts.rate:g}/s to idle workers, in {LATENCY_ROUNDS} interleaved "
            f"rounds; concurrency {opts.concurrency}, batch {opts.batch_size}"
        ),
        "load_average_1m_at_start": round(load_at_start, 2),
        "ratios_of_medians": medians_ratios,
        "cpus": os.cpu_count(),
        "systems": {name: m.details() for name, m in measured.items()},
    }
    details_path = common.write_results(DETAILS_NAME, details)
    print(f"wrote {path} and {details_path.name}")
    return 0
