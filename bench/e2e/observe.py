"""What the benchmark reads from the running services: their Prometheus metrics (task time,
queue wait, event-loop lag per stage and process) and, from /proc, each process tree's CPU
time and peak resident memory."""

from __future__ import annotations

import math
import os
import urllib.request
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

# Histograms read per stage and the one read per process.
TASK_SECONDS = "citeproof_task_duration_seconds"
QUEUE_WAIT = "citeproof_task_queue_wait_seconds"
LOOP_LAG = "citeproof_event_loop_lag_seconds"
LOOP_LAG_MAX = "citeproof_event_loop_lag_max_seconds"
# Counters read per process (the real_thesis workload, bench/e2e/real_run.py).
EMBED_CPU = "citeproof_embedding_cpu_seconds"
EMBEDDED_TEXTS = "citeproof_embedding_texts"
CHUNKS_EMBEDDED = "citeproof_retriever_chunks_embedded"
EVIDENCE_LOOKUPS = "citeproof_retriever_evidence_cache_lookups"
COUNTERS = (EMBED_CPU, EMBEDDED_TEXTS, CHUNKS_EMBEDDED, EVIDENCE_LOOKUPS)
SCRAPE_TIMEOUT_S = 10


@dataclass
class Histogram:
    """Cumulative bucket counts (upper bound -> count), sum and count."""

    buckets: dict[float, float] = field(default_factory=dict)
    total: float = 0.0
    count: float = 0.0

    def minus(self, earlier: Histogram) -> Histogram:
        return Histogram(
            {le: n - earlier.buckets.get(le, 0.0) for le, n in self.buckets.items()},
            self.total - earlier.total,
            self.count - earlier.count,
        )

    def plus(self, other: Histogram) -> Histogram:
        keys = set(self.buckets) | set(other.buckets)
        return Histogram(
            {le: self.buckets.get(le, 0.0) + other.buckets.get(le, 0.0) for le in keys},
            self.total + other.total,
            self.count + other.count,
        )

    def quantile(self, q: float) -> float | None:
        """Linear interpolation inside the bucket holding the q-th observation (as PromQL's
        histogram_quantile); None without observations."""
        if self.count <= 0:
            return None
        rank = q * self.count
        lower_bound, lower_count = 0.0, 0.0
        for le in sorted(self.buckets):
            count = self.buckets[le]
            if count >= rank:
                if math.isinf(le):
                    return lower_bound
                if count == lower_count:
                    return le
                return lower_bound + (le - lower_bound) * (rank - lower_count) / (
                    count - lower_count
                )
            lower_bound, lower_count = le, count
        return lower_bound


@dataclass
class Scrape:
    """One process's metrics: per-stage histograms, its loop-lag histogram and worst lag."""

    stages: dict[str, dict[str, Histogram]] = field(default_factory=dict)
    loop_lag: Histogram = field(default_factory=Histogram)
    loop_lag_max_s: float = 0.0
    # (counter family, its labels as sorted (name, value) pairs) -> total so far
    counters: dict[tuple[str, tuple[tuple[str, str], ...]], float] = field(default_factory=dict)

    def counter(self, name: str, **labels: str) -> float:
        """The counter's total over its label sets that carry `labels`."""
        wanted = set(labels.items())
        return sum(
            value for (family, keys), value in self.counters.items()
            if family == name and wanted <= set(keys)
        )  # fmt: skip


def parse(text: str) -> Scrape:
    scrape = Scrape()
    for family in text_string_to_metric_families(text):
        if family.name in COUNTERS:
            for sample in family.samples:
                if sample.name.endswith("_total"):
                    key = (family.name, tuple(sorted(sample.labels.items())))
                    scrape.counters[key] = sample.value
            continue
        if family.name not in (TASK_SECONDS, QUEUE_WAIT, LOOP_LAG, LOOP_LAG_MAX):
            continue
        for sample in family.samples:
            if family.name == LOOP_LAG_MAX:
                scrape.loop_lag_max_s = sample.value
                continue
            if family.name == LOOP_LAG:
                histogram = scrape.loop_lag
            else:
                stage = sample.labels.get("stage", "")
                histogram = scrape.stages.setdefault(stage, {}).setdefault(family.name, Histogram())
            if sample.name.endswith("_bucket"):
                histogram.buckets[float(sample.labels["le"])] = sample.value
            elif sample.name.endswith("_sum"):
                histogram.total = sample.value
            elif sample.name.endswith("_count"):
                histogram.count = sample.value
    return scrape


def scrape(url: str) -> Scrape:
    with urllib.request.urlopen(url, timeout=SCRAPE_TIMEOUT_S) as response:
        return parse(response.read().decode())


def stage_histogram(
    before: Iterable[Scrape], after: Iterable[Scrape], stage: str, name: str
) -> Histogram:
    """The stage's histogram over the measured interval, summed over replicas."""
    total = Histogram()
    for early, late in zip(before, after, strict=True):
        now = late.stages.get(stage, {}).get(name)
        if now is not None:
            total = total.plus(now.minus(early.stages.get(stage, {}).get(name, Histogram())))
    return total


# -- /proc -------------------------------------------------------------------------------


def _stat_fields(pid: int) -> list[str] | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def descendants(pid: int) -> list[int]:
    """`pid`'s live children, grandchildren, ..."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = _stat_fields(int(entry.name))
            if fields is not None:
                parents.setdefault(int(fields[1]), []).append(int(entry.name))
    found, frontier = [], [pid]
    while frontier:
        children = parents.get(frontier.pop(), [])
        found.extend(children)
        frontier.extend(children)
    return found


def tree_cpu_seconds(pid: int) -> float:
    """CPU of the process, its exited-and-waited-for children (cutime, cstime) and its live
    descendants: what a process tree has cost so far."""
    ticks = 0
    fields = _stat_fields(pid)
    if fields is not None:
        ticks += sum(int(fields[i]) for i in (11, 12, 13, 14))
    for child in descendants(pid):
        child_fields = _stat_fields(child)
        if child_fields is not None:
            ticks += int(child_fields[11]) + int(child_fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def peak_rss_mb(pid: int) -> float:
    """Peak resident memory (VmHWM) of the process plus that of its live descendants."""
    total_kb = 0
    for member in (pid, *descendants(pid)):
        try:
            for line in Path(f"/proc/{member}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    total_kb += int(line.split()[1])
        except OSError:
            continue
    return round(total_kb / 1024, 1)


def machine_cpu_seconds() -> float:
    """Busy CPU seconds of the whole machine so far, every process's (/proc/stat): the
    benchmark's own processes subtracted from it leave what other people's work took."""
    fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    # user nice system idle iowait irq softirq steal: all but idle and iowait are busy.
    busy = sum(int(v) for i, v in enumerate(fields[:8]) if i not in (3, 4))
    return busy / os.sysconf("SC_CLK_TCK")


def cpu_by_process(pids: Mapping[str, int]) -> dict[str, float]:
    return {name: tree_cpu_seconds(pid) for name, pid in pids.items()}
