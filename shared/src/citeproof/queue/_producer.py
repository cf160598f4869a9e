"""One stage's claim loop in a worker: claim what the free slots can take, run each row as an
asyncio task, free the slot when it ends.

The loop claims up to the free slots when woken (NOTIFY, a finished task, the poll timer) and
starts one asyncio task per row. Under load most claims ride on group completions instead: the
statement that completes a group of finished tasks also claims rows for their slots
(`_completer.py`), and the loop only claims what is left. Handlers do blocking work (parsing,
embedding) in threads or child processes so that the loop - and with it the worker's heartbeat -
keeps ticking. The worker (`worker.py`) owns the lifecycle around it: registry, heartbeats, sweeps,
drain.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

import asyncpg
import structlog

from citeproof.queue import _sql
from citeproof.queue._breaker import Breaker
from citeproof.queue._completer import GroupCompleter, writers_for
from citeproof.queue._executor import ANSWERED_OUTCOMES, execute
from citeproof.queue.metrics import stage_metrics
from citeproof.queue.settings import QueueSettings
from citeproof.queue.stage import Stage, TaskContext, hand_back

log = structlog.get_logger("citeproof.worker")

# After a failed claim, the loop waits at most this long before it tries again.
CLAIM_RETRY_MAX_S = 1.0
# While the breaker is open, the loop wakes at least this often to let a probe through.
MIN_PROBE_WAIT_S = 0.05


@dataclass
class WorkerHooks:
    """Test hooks: called synchronously on the loop; never needed in production."""

    on_claimed: Callable[[str, asyncpg.Record], None] | None = None
    on_finished: Callable[[str, asyncpg.Record, str], None] | None = None


class StageProducer:
    """The claim loop of one stage and the tasks it has in flight."""

    def __init__(
        self,
        stage: Stage,
        settings: QueueSettings,
        *,
        pool: asyncpg.Pool,
        worker_id: str,
        stopping: asyncio.Event,
        hooks: WorkerHooks,
        on_breaker_change: Callable[[], Awaitable[None]],
    ) -> None:
        self.stage = stage
        self.settings = settings
        self.pool = pool
        self.worker_id = worker_id
        self.completer = GroupCompleter(
            pool,
            stage,
            worker_id,
            max_flushes=writers_for(settings),
            slots=self,
            lease_s=settings.lease_s,
            batch_size=settings.batch_size,
        )
        self.wake = asyncio.Event()
        self.in_flight: dict[object, tuple[asyncio.Task[None], TaskContext]] = {}
        # Slot accounting, all on the event loop's one thread (no lock): a task holds its slot
        # from its claim until its handler is done. A task whose completion is being written
        # is still in `in_flight` but its slot is `_released` (a group completion may claim
        # for it); rows being claimed by a statement in flight are `_claiming`, so two
        # claims at once (the loop's and a completion's) never take the same slot.
        self._released: set[object] = set()
        self._claiming = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        # When the claim loop last went round (monotonic), for /healthz.
        self.last_tick = time.monotonic()
        # Open while a backend the stage needs is unreachable (see _breaker.py).
        self.breaker = Breaker(
            stage.name, settings.dependency_probe_s, settings.dependency_outage_max_s
        )
        self.metrics = stage_metrics(stage.name)
        self._stopping = stopping
        self._hooks = hooks
        # Readiness and the runs' "waiting for" read the registry: the worker tells it when
        # the breaker opens or closes.
        self._on_breaker_change = on_breaker_change

    async def run(self) -> None:
        stage, settings = self.stage, self.settings
        # A full batch's claim has its row count written in (see _sql.with_limit).
        full_batch = (settings.batch_size,)
        while not self._stopping.is_set():
            self.last_tick = time.monotonic()
            # Clear on every pass, before reading the capacity: a NOTIFY arriving during the
            # claim re-arms it, and one that arrives while every slot is busy needs no
            # remembering - a finishing task sets the event again and its claim finds the
            # announced rows. Clearing only when there was room made a full worker spin.
            self.wake.clear()
            capacity = self.free_slots()
            limit = self.breaker.claim_limit()
            if limit is not None:
                # The stage's backend is down: nothing, or one probe task at a time.
                capacity = min(capacity, limit)
            claimed = 0
            if capacity > 0:
                wanted = min(settings.batch_size, capacity)
                self._claiming += wanted
                claim_sql, count = _sql.for_count(stage.claim_sql, wanted, full_batch)
                try:
                    rows = await self.pool.fetch(
                        claim_sql, self.worker_id, settings.lease_s, *count
                    )
                except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
                    log.warning("claim.failed", stage=stage.name, error=str(exc))
                    rows = []
                    await self._sleep_or_stop(min(settings.poll_interval_s, CLAIM_RETRY_MAX_S))
                finally:
                    self._claiming -= wanted
                if self._stopping.is_set():
                    # A drain began while the claim was in flight: its rows were never seen
                    # by the drain, so they go straight back instead of starting.
                    await self.give_back(rows)
                    return
                self._start(rows)
                claimed = len(rows)
            if claimed and claimed == min(settings.batch_size, capacity):
                continue  # more work is probably waiting; don't sleep
            timeout = settings.poll_interval_s * random.uniform(0.8, 1.2)
            if self.breaker.is_open:
                timeout = min(timeout, max(self.breaker.seconds_to_probe(), MIN_PROBE_WAIT_S))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wake.wait(), timeout=timeout)

    def free_slots(self) -> int:
        """Slots no task holds and no claim in flight will fill."""
        held = len(self.in_flight) - len(self._released)
        return self.settings.concurrency - held - self._claiming

    # -- ClaimSlots: the completion that claims for the slots its group frees -------------

    def reserve(self, freeing: Sequence[object]) -> int:
        for token in freeing:
            if token in self.in_flight:
                self._released.add(token)
        if self._stopping.is_set() or self.breaker.claim_limit() is not None:
            # Draining, or the backend is down: the loop's probe decides what runs next.
            return 0
        wanted = max(0, min(self.settings.batch_size, self.free_slots()))
        self._claiming += wanted
        return wanted

    async def deliver(self, reserved: int, rows: Sequence[asyncpg.Record]) -> None:
        self._claiming -= reserved
        if rows and self._stopping.is_set():
            # Claimed while a drain began: the drain never saw them.
            await self.give_back(rows)
            return
        self._start(rows)

    # -- tasks ---------------------------------------------------------------------------

    def _start(self, rows: Sequence[asyncpg.Record]) -> None:
        if not rows:
            return
        self.metrics.claimed += len(rows)
        self.metrics.in_progress += len(rows)
        for row in rows:
            self._start_task(row)

    def _start_task(self, row: asyncpg.Record) -> None:
        stage = self.stage
        self.metrics.queue_wait.observe(max(0.0, row["queue_wait_s"] or 0.0))
        ctx = TaskContext(
            stage=stage,
            row=row,
            pool=self.pool,
            worker_id=self.worker_id,
            completer=self.completer,
            breaker=self.breaker,
        )
        if self._hooks.on_claimed:
            self._hooks.on_claimed(stage.name, row)
        # The loop's own create_task: asyncio.create_task looks the running loop up first,
        # which on Python 3.11 is a getpid() system call, once per task.
        loop = self._loop or asyncio.get_running_loop()
        self._loop = loop
        task = loop.create_task(self._run_task(ctx), name=f"{stage.name}-{row['id']}")
        self.in_flight[row["claim_token"]] = (task, ctx)

    async def _run_task(self, ctx: TaskContext) -> None:
        outcome = "cancelled"
        breaker = self.breaker
        was_open = breaker.is_open
        try:
            outcome = await execute(ctx, self.settings, own_context=True)
            if outcome in ANSWERED_OUTCOMES:
                breaker.answered()  # whatever the handler met, it was not the outage
            if breaker.is_open != was_open:
                await self._on_breaker_change()
        finally:
            self.in_flight.pop(ctx.claim_token, None)
            self._released.discard(ctx.claim_token)
            self.metrics.in_progress -= 1
            if self.free_slots() > 0:
                # Capacity freed (and not already refilled by the group completion's claim):
                # claim again without waiting for a poll.
                self.wake.set()
            if self._hooks.on_finished:
                self._hooks.on_finished(self.stage.name, ctx.row, outcome)

    async def hand_back_unfinished(self) -> None:
        """Cancel the tasks still running (a drain ran out of grace) and hand their rows back."""
        for task, ctx in list(self.in_flight.values()):
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
            await self.give_back([ctx.row])

    async def give_back(self, rows: Sequence[asyncpg.Record]) -> None:
        """Hand rows back because we are leaving: no attempt is charged (they did nothing
        wrong), and another worker is woken now rather than at its next poll."""
        for row in rows:
            with contextlib.suppress(Exception):
                if await hand_back(self.pool, self.stage, row, self.worker_id, 0):
                    self.metrics.count_finished("handed_back")
                    log.info("task.handed_back", stage=self.stage.name, task_id=str(row["id"]))
        if rows:
            with contextlib.suppress(Exception):
                await self.pool.execute(_sql.NOTIFY, self.stage.channel, "")

    async def _sleep_or_stop(self, seconds: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._stopping.wait(), timeout=seconds)
