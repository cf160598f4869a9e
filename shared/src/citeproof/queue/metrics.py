"""Prometheus metrics of the runtime (one registry per process; every worker exports them).

Queue depth and oldest-queued age are NOT here: they are read from PostgreSQL once, by the
API's /metrics, so that N replicas don't report N copies of the same number.
"""

import bisect
import itertools
from collections.abc import Iterator

from prometheus_client import REGISTRY, Counter, Metric
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily
from prometheus_client.registry import Collector
from prometheus_client.utils import floatToGoString

from citeproof.obs.build_info import register_build_info

TASK_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300)

LEASES_LOST = Counter(
    "citeproof_leases_lost",
    "Writes rejected by the fence: this worker had lost the row to another.",
    ["stage"],
)
LEASES_RECLAIMED = Counter(
    "citeproof_leases_reclaimed",
    "Expired leases this worker's sweeper returned to the queue or buried.",
    ["stage"],
)
TERMINAL_HOOK_FAILURES = Counter(
    "citeproof_terminal_hook_failures",
    "Buried rows whose terminal hook raised in the sweeper (the row stays dead, its "
    "bookkeeping is rolled back and the error is recorded on the row).",
    ["stage"],
)
LISTENER_RECONNECTS = Counter(
    "citeproof_listener_reconnects", "Times the LISTEN connection was re-established."
)
# Exported next to the runtime's metrics by every worker process.
BUILD_INFO = register_build_info()


# The per-task metrics: (name, help). Counted in plain numbers on the hot path and exported by
# a collector at scrape time (below).
TASKS_CLAIMED = ("citeproof_tasks_claimed", "Tasks claimed by this worker.")  # *_total
TASKS_FINISHED = (
    "citeproof_tasks_finished",
    "Tasks this worker finished, by outcome "
    "(succeeded, failed, retried, dead, lease_lost, handed_back, held: handed back uncharged "
    "because the stage's backend is down, unrecorded: the outcome could not be written and "
    "the lease will expire).",
)
TASK_DURATION = ("citeproof_task_duration_seconds", "Handler run time.")
TASK_QUEUE_WAIT = (
    "citeproof_task_queue_wait_seconds",
    "Time from a task becoming runnable to its claim.",
)
TASKS_IN_PROGRESS = ("citeproof_tasks_in_progress", "Tasks this worker is running now.")


# The `le` label of each bucket, spelled as prometheus_client spells it ("1.0", "+Inf").
_BUCKET_LABELS = (*(floatToGoString(b) for b in TASK_BUCKETS), "+Inf")  # type: ignore[no-untyped-call]


class Buckets:
    """A histogram's counts as plain numbers (TASK_BUCKETS, then +Inf): observing is a bisect
    and two additions, where prometheus_client's Histogram takes a lock per bucket and per
    sum - a few microseconds per task on the runtime's hot path."""

    __slots__ = ("counts", "total")

    def __init__(self) -> None:
        self.counts = [0] * (len(TASK_BUCKETS) + 1)
        self.total = 0.0

    def observe(self, value: float) -> None:
        # bisect_left: the first bound >= value, i.e. the bucket `le` that first holds it.
        self.counts[bisect.bisect_left(TASK_BUCKETS, value)] += 1
        self.total += value

    def cumulative(self) -> list[tuple[str, float]]:
        return list(zip(_BUCKET_LABELS, itertools.accumulate(self.counts), strict=True))


class StageMetrics:
    """One stage's per-task metrics in this process. Written only from the event loop's thread;
    a scrape from another thread reads numbers that are at most one task behind."""

    __slots__ = ("claimed", "duration", "finished", "in_progress", "queue_wait", "stage")

    def __init__(self, stage: str) -> None:
        self.stage = stage
        self.claimed = 0
        self.in_progress = 0
        self.finished: dict[str, int] = {}
        self.duration = Buckets()
        self.queue_wait = Buckets()

    def count_finished(self, outcome: str) -> None:
        self.finished[outcome] = self.finished.get(outcome, 0) + 1


_STAGE_METRICS: dict[str, StageMetrics] = {}


def stage_metrics(stage: str) -> StageMetrics:
    found = _STAGE_METRICS.get(stage)
    if found is None:
        found = _STAGE_METRICS[stage] = StageMetrics(stage)
    return found


class _TaskMetricsCollector(Collector):
    """Exports every stage's StageMetrics under the names dashboards and alerts use."""

    def collect(self) -> Iterator[Metric]:
        claimed = CounterMetricFamily(*TASKS_CLAIMED, labels=["stage"])
        finished = CounterMetricFamily(*TASKS_FINISHED, labels=["stage", "outcome"])
        duration = HistogramMetricFamily(*TASK_DURATION, labels=["stage"])
        queue_wait = HistogramMetricFamily(*TASK_QUEUE_WAIT, labels=["stage"])
        in_progress = GaugeMetricFamily(*TASKS_IN_PROGRESS, labels=["stage"])
        for metrics in list(_STAGE_METRICS.values()):
            stage = [metrics.stage]
            claimed.add_metric(stage, metrics.claimed)
            for outcome, count in list(metrics.finished.items()):
                finished.add_metric([metrics.stage, outcome], count)
            duration.add_metric(stage, metrics.duration.cumulative(), metrics.duration.total)
            queue_wait.add_metric(stage, metrics.queue_wait.cumulative(), metrics.queue_wait.total)
            in_progress.add_metric(stage, metrics.in_progress)
        yield from (claimed, finished, duration, queue_wait, in_progress)


REGISTRY.register(_TaskMetricsCollector())
