"""The stage-queue runtime: one implementation of claim, lease, heartbeat, fencing, retry,
sweeping, LISTEN/poll wake-ups and drain, used by every stage of every service."""

from citeproof.queue._listener import Listener
from citeproof.queue._producer import WorkerHooks
from citeproof.queue.errors import DependencyDown, LeaseLost, PermanentError
from citeproof.queue.settings import QueueSettings
from citeproof.queue.stage import PeriodicJob, Stage, TaskContext, TerminalOutcome, notify
from citeproof.queue.worker import Worker, run_once, run_worker, serve

__all__ = [
    "DependencyDown",
    "LeaseLost",
    "Listener",
    "PeriodicJob",
    "PermanentError",
    "QueueSettings",
    "Stage",
    "TaskContext",
    "TerminalOutcome",
    "Worker",
    "WorkerHooks",
    "notify",
    "run_once",
    "run_worker",
    "serve",
]
