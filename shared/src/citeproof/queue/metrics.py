"""Prometheus metrics of the runtime (one registry per process; every worker exports them).

Queue depth and oldest-queued age are NOT here: they are read from PostgreSQL once, by the
API's /metrics, so that N replicas don't report N copies of the same number.
"""

from typing import Any

from prometheus_client import Counter, Gauge, Histogram

from citeproof.obs.build_info import register_build_info

TASK_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300)

TASKS_CLAIMED = Counter(
    "citeproof_tasks_claimed", "Tasks claimed by this worker.", ["stage"]
)  # exported as citeproof_tasks_claimed_total
TASKS_FINISHED = Counter(
    "citeproof_tasks_finished",
    "Tasks this worker finished, by outcome "
    "(succeeded, failed, retried, dead, lease_lost, handed_back, held: handed back uncharged "
    "because the stage's backend is down, unrecorded: the outcome could not be written and "
    "the lease will expire).",
    ["stage", "outcome"],
)
TASK_DURATION = Histogram(
    "citeproof_task_duration_seconds", "Handler run time.", ["stage"], buckets=TASK_BUCKETS
)
TASK_QUEUE_WAIT = Histogram(
    "citeproof_task_queue_wait_seconds",
    "Time from a task becoming runnable to its claim.",
    ["stage"],
    buckets=TASK_BUCKETS,
)
TASKS_IN_PROGRESS = Gauge(
    "citeproof_tasks_in_progress", "Tasks this worker is running now.", ["stage"]
)
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


class StageMetrics:
    """One stage's metric children, resolved once: `labels()` takes a lock and builds a key on
    every call, several times per task on the runtime's hot path."""

    def __init__(self, stage: str) -> None:
        self.stage = stage
        self.claimed = TASKS_CLAIMED.labels(stage)
        self.queue_wait = TASK_QUEUE_WAIT.labels(stage)
        self.in_progress = TASKS_IN_PROGRESS.labels(stage)
        self.duration = TASK_DURATION.labels(stage)
        self._finished: dict[str, Any] = {}

    def finished(self, outcome: str) -> Any:
        child = self._finished.get(outcome)
        if child is None:
            child = self._finished[outcome] = TASKS_FINISHED.labels(self.stage, outcome)
        return child


_STAGE_METRICS: dict[str, StageMetrics] = {}


def stage_metrics(stage: str) -> StageMetrics:
    found = _STAGE_METRICS.get(stage)
    if found is None:
        found = _STAGE_METRICS[stage] = StageMetrics(stage)
    return found
