"""Settings of the stage-queue runtime. Defaults follow docs/architecture.md."""

from __future__ import annotations

from typing import Annotated

import msgspec

from citeproof.settings import Settings, doc

# Variables of the general settings; a stage's own override `CITEPROOF_<STAGE>_<FIELD>`.
GENERAL_PREFIX = "CITEPROOF_"

DEFAULT_LEASE_S = 120.0
DEFAULT_HEARTBEAT_S = 30.0
DEFAULT_POLL_INTERVAL_S = 2.0
DEFAULT_CONCURRENCY = 4
# 0: claim as many rows per statement as the stage may run (its concurrency).
DEFAULT_BATCH_SIZE = 0
DEFAULT_BACKOFF_BASE_S = 2.0
DEFAULT_BACKOFF_MAX_S = 300.0
DEFAULT_SWEEP_INTERVAL_S = 15.0
DEFAULT_SWEEP_BATCH = 100
DEFAULT_DRAIN_GRACE_S = 60.0
DEFAULT_LISTENER_KEEPALIVE_S = 10.0
DEFAULT_LISTENER_RECONNECT_MAX_S = 10.0
DEFAULT_WORKER_HTTP_PORT = 9000
DEFAULT_WORKER_STALE_S = 90.0
DEFAULT_DEPENDENCY_PROBE_S = 5.0
DEFAULT_DEPENDENCY_OUTAGE_MAX_S = 900.0


class QueueSettings(Settings, frozen=True, kw_only=True):
    """Per-stage values may be overridden with `CITEPROOF_<STAGE>_<FIELD>`."""

    lease_s: Annotated[
        float, doc("Lease length: a claimed task not heartbeated this long is reclaimed.", gt=0)
    ] = DEFAULT_LEASE_S
    heartbeat_s: Annotated[
        float, doc("Interval at which a worker extends the leases it holds.", gt=0)
    ] = DEFAULT_HEARTBEAT_S
    poll_interval_s: Annotated[
        float,
        doc(
            "Slow path: claim this often even without a notification (a lost NOTIFY delays "
            "work by at most this long).",
            gt=0,
        ),
    ] = DEFAULT_POLL_INTERVAL_S
    concurrency: Annotated[int, doc("Tasks a worker process runs at once per stage.", ge=1)] = (
        DEFAULT_CONCURRENCY
    )
    batch_size: Annotated[
        int,
        doc(
            "Rows claimed per claim statement (0: the stage's concurrency); at most the "
            "concurrency.",
            ge=0,
        ),
    ] = DEFAULT_BATCH_SIZE
    backoff_base_s: Annotated[
        float, doc("First retry delay; doubles per attempt, with jitter.", ge=0)
    ] = DEFAULT_BACKOFF_BASE_S
    backoff_max_s: Annotated[float, doc("Upper bound of a retry delay.", ge=0)] = (
        DEFAULT_BACKOFF_MAX_S
    )
    sweep_interval_s: Annotated[
        float, doc("How often the stall sweeper reclaims expired leases.", gt=0)
    ] = DEFAULT_SWEEP_INTERVAL_S
    sweep_batch: Annotated[int, doc("Expired rows reclaimed per sweep statement.", ge=1)] = (
        DEFAULT_SWEEP_BATCH
    )
    drain_grace_s: Annotated[
        float,
        doc("On SIGTERM: how long in-flight tasks may run before they are handed back.", ge=0),
    ] = DEFAULT_DRAIN_GRACE_S
    listener_keepalive_s: Annotated[
        float, doc("Ping interval of the dedicated LISTEN connection.", gt=0)
    ] = DEFAULT_LISTENER_KEEPALIVE_S
    listener_reconnect_max_s: Annotated[
        float, doc("Upper bound of the LISTEN reconnect backoff.", gt=0)
    ] = DEFAULT_LISTENER_RECONNECT_MAX_S
    listen: Annotated[bool, doc("Use LISTEN/NOTIFY as the fast path (false: poll only).")] = True
    worker_http_host: Annotated[str, doc("Bind address of a worker's /healthz and /metrics.")] = (
        "0.0.0.0"
    )
    worker_http_port: Annotated[
        int, doc("Port of a worker's /healthz and /metrics (0: do not serve).", ge=0)
    ] = DEFAULT_WORKER_HTTP_PORT
    worker_stale_s: Annotated[
        float, doc("A worker not seen for this long counts as gone (API readiness).", gt=0)
    ] = DEFAULT_WORKER_STALE_S
    dependency_probe_s: Annotated[
        float,
        doc(
            "While a stage's backend (judge LLM, embeddings API) is unreachable, the worker "
            "claims nothing of that stage and lets one task through this often to probe it.",
            gt=0,
        ),
    ] = DEFAULT_DEPENDENCY_PROBE_S
    dependency_outage_max_s: Annotated[
        float,
        doc(
            "An outage longer than this stops holding the stage's tasks: they run again and "
            "fail with their attempts charged (e.g. judge_error) instead of waiting.",
            gt=0,
        ),
    ] = DEFAULT_DEPENDENCY_OUTAGE_MAX_S

    def validate(self, prefix: str = GENERAL_PREFIX) -> QueueSettings:
        """Refuse combinations that would lose leases or hide a misconfiguration.

        `prefix` is the prefix the values were loaded under (a stage's
        `CITEPROOF_<STAGE>_`), so the message names the variables the operator sets.
        """
        from citeproof.settings import SettingsError

        def var(field: str) -> str:
            name = f"{prefix}{field}".upper()
            if prefix == GENERAL_PREFIX:
                return name
            return f"{name} (or the general {GENERAL_PREFIX}{field.upper()})"

        if self.heartbeat_s * 2 > self.lease_s:
            raise SettingsError(
                f"{var('heartbeat_s')} = {self.heartbeat_s:g} must be at most half of "
                f"{var('lease_s')} = {self.lease_s:g}, so one missed beat does not lose a lease"
            )
        if self.heartbeat_s * 2 > self.worker_stale_s:
            # The registry row is touched once per beat; readiness counts a worker unseen
            # for worker_stale_s as gone.
            raise SettingsError(
                f"{var('heartbeat_s')} = {self.heartbeat_s:g} must be at most half of "
                f"{var('worker_stale_s')} = {self.worker_stale_s:g}, or live workers are "
                "reported missing"
            )
        if self.batch_size > self.concurrency:
            # Claiming more than we can run would hold leases on rows nobody works on.
            raise SettingsError(
                f"{var('batch_size')} = {self.batch_size} is above {var('concurrency')} = "
                f"{self.concurrency}: a claim would lease rows no slot can run "
                "(0 claims as many as the concurrency)"
            )
        if self.batch_size == 0:
            return msgspec.structs.replace(self, batch_size=self.concurrency)
        return self
