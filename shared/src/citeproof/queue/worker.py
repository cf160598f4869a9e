"""The worker process's lifecycle: registry, heartbeats, sweeper, listener, health, drain.

Concurrency model: one asyncio event loop per process. Each stage has a claim loop
(`_producer.py`) that claims up to `concurrency - in_flight` rows when woken and starts one
asyncio task per row; this module starts those loops, keeps the leases of their tasks alive,
sweeps expired ones, and on SIGTERM stops the loops and drains their tasks.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import os
import random
import signal
import socket
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from importlib import metadata

import asyncpg
import structlog

from citeproof.db.boot import migrate_at_boot
from citeproof.db.pool import create_pool, resolve_listen_url
from citeproof.db.settings import DatabaseSettings
from citeproof.obs.logs import configure_logging
from citeproof.queue import _sql
from citeproof.queue._completer import writers_for
from citeproof.queue._executor import execute
from citeproof.queue._health import HealthServer
from citeproof.queue._listener import Listener
from citeproof.queue._producer import StageProducer, WorkerHooks
from citeproof.queue._sweeper import sweep_expired
from citeproof.queue.settings import QueueSettings
from citeproof.queue.stage import PeriodicJob, Stage, TaskContext
from citeproof.settings import env_name, load

log = structlog.get_logger("citeproof.worker")

# Seconds the claim loop may go without ticking before /healthz reports it stalled,
# as a multiple of the poll interval (a tick happens at least once per poll interval).
STALL_FACTOR = 5
MIN_STALL_S = 30.0
# An outage's detail as kept in the registry (the error text of the failing call).
MAX_OUTAGE_DETAIL_CHARS = 300
# At boot, how long a worker waits for the database to accept its pool before it gives up,
# and the bounds of its jittered retry delay.
BOOT_CONNECT_TIMEOUT_S = 120.0
BOOT_RETRY_FIRST_S = 0.5
BOOT_RETRY_MAX_S = 5.0
# Name prefix of the claim loops' asyncio tasks (drain waits for them first).
CLAIM_TASK_PREFIX = "claim-"
# Pool connections the runtime itself may hold at once besides the handlers' and the group
# completions' (`_completer.writers_for`): a claim, a heartbeat and a sweep.
RUNTIME_CONNECTIONS = 3
# The sweeper sleeps sweep_interval_s times a factor in this range (workers spread apart).
SWEEP_JITTER_MIN = 0.8
SWEEP_JITTER_MAX = 1.2


# Workers started in this process (tests and tools run several in one): a registry row with
# our own pid is a previous incarnation - a restarted container reuses the pid - unless it
# is one of these.
_WORKERS_IN_THIS_PROCESS: set[str] = set()


def _process_is_gone(worker_id: str, pid: int) -> bool:
    """Whether a worker registered from this host is certainly no longer running. Same
    hostname means the same machine or pod, hence the same process table; when unsure
    (another user's process answers), the worker counts as alive and keeps its rows."""
    if pid == os.getpid():
        return worker_id not in _WORKERS_IN_THIS_PROCESS
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def new_worker_id(service: str) -> str:
    return f"{service}-{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:6]}"


def stage_settings(stage: Stage, env: Mapping[str, str] | None = None) -> QueueSettings:
    """A stage's settings: `CITEPROOF_<STAGE>_<FIELD>`, else the stage's declared default
    (`Stage.defaults`), else the general value; validated so that a bad combination stops the
    worker at boot, naming the stage's variables. The environment is read, never written."""
    prefix = f"CITEPROOF_{stage.name.upper()}_"
    source: Mapping[str, str] = os.environ if env is None else env
    if stage.defaults:
        layered = dict(source)
        for field_name, value in stage.defaults:
            layered.setdefault(
                env_name(QueueSettings, field_name, prefix),
                str(value).lower() if isinstance(value, bool) else str(value),
            )
        source = layered
    return load(QueueSettings, source, prefixes=(prefix,)).validate(prefix)


def stall_limit_s(interval_s: float) -> float:
    """How long a loop that ticks every `interval_s` may go quiet before /healthz calls it
    stalled: each loop is judged by its own interval."""
    return max(MIN_STALL_S, interval_s * STALL_FACTOR)


class Worker:
    def __init__(
        self,
        *,
        service: str,
        stages: Sequence[Stage],
        pool: asyncpg.Pool,
        listen_url: str | None,
        capabilities: Sequence[str] = (),
        periodic: Sequence[PeriodicJob] = (),
        settings: QueueSettings | None = None,
        stage_overrides: dict[str, QueueSettings] | None = None,
        worker_id: str | None = None,
        hooks: WorkerHooks | None = None,
    ) -> None:
        self.service = service
        self.worker_id = worker_id or new_worker_id(service)
        self.pool = pool
        self.settings = (settings or load(QueueSettings)).validate()
        overrides = stage_overrides or {}
        self.hooks = hooks or WorkerHooks()
        self._stopping = asyncio.Event()
        self._runners = [
            StageProducer(
                s,
                overrides.get(s.name) or (settings or stage_settings(s)),
                pool=pool,
                worker_id=self.worker_id,
                stopping=self._stopping,
                hooks=self.hooks,
                on_breaker_change=self._touch_registry,
            )
            for s in stages
        ]
        self._by_channel: dict[str, list[StageProducer]] = {}
        for runner in self._runners:
            self._by_channel.setdefault(runner.stage.channel, []).append(runner)
        self.capabilities = list(capabilities) or [s.name for s in stages]
        self._periodic = list(periodic)
        self.listener: Listener | None = None
        if listen_url and self.settings.listen:
            self.listener = Listener(
                listen_url,
                list(self._by_channel),
                self._on_notify,
                on_reconnect=self.wake_all,
                keepalive_s=self.settings.listener_keepalive_s,
                reconnect_max_s=self.settings.listener_reconnect_max_s,
            )
        self._background: list[asyncio.Task[None]] = []
        # When the heartbeat and sweeper loops last went round (monotonic), for /healthz.
        self._heartbeat_tick = self._sweeper_tick = time.monotonic()
        self.health: HealthServer | None = None

    # -- wake-ups ----------------------------------------------------------------------

    def _on_notify(self, channel: str, _payload: str) -> None:
        for runner in self._by_channel.get(channel, ()):
            runner.wake.set()

    def wake_all(self) -> None:
        for runner in self._runners:
            runner.wake.set()

    def is_alive(self) -> bool:
        """Every loop runs: none has ended, and each ticked within its own stall limit (a
        claim loop by its stage's poll interval). A worker whose heartbeat or sweeper is
        wedged loses leases or strands rows while its claim loops look fine."""
        if not self._stopping.is_set() and any(t.done() for t in self._background):
            return False
        now = time.monotonic()
        claiming = all(
            now - r.last_tick < stall_limit_s(r.settings.poll_interval_s) for r in self._runners
        )
        beating = now - self._heartbeat_tick < stall_limit_s(self.settings.heartbeat_s)
        sweeping = now - self._sweeper_tick < stall_limit_s(
            self.settings.sweep_interval_s * SWEEP_JITTER_MAX
        )
        return claiming and beating and sweeping

    @property
    def in_flight(self) -> int:
        return sum(len(r.in_flight) for r in self._runners)

    # -- lifecycle ---------------------------------------------------------------------

    async def start(self) -> None:
        await self._register()
        # Orphan reclaim: rows left `running` by a worker that died are ours to retry now,
        # not a lease-length later: a dead predecessor on this host is deregistered, and the
        # sweep takes back the rows of every owner missing from the registry. A failure here
        # is logged, not fatal: the sweeper loop tries again.
        _WORKERS_IN_THIS_PROCESS.add(self.worker_id)
        try:
            await self._forget_dead_predecessors()
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
            log.warning("worker.predecessors_unchecked", error=str(exc))
        await self._sweep_all()
        if self.listener is not None:
            self.listener.start()
        if self.settings.worker_http_port:
            self.health = HealthServer(
                self.settings.worker_http_host, self.settings.worker_http_port, self.is_alive
            )
            await self.health.start()
        spawn = asyncio.create_task
        self._background = [
            spawn(r.run(), name=f"{CLAIM_TASK_PREFIX}{r.stage.name}") for r in self._runners
        ]
        self._background.append(spawn(self._heartbeat_loop(), name="heartbeat"))
        self._background.append(spawn(self._sweep_loop(), name="sweeper"))
        for job in self._periodic:
            self._background.append(spawn(self._periodic_loop(job), name=f"periodic-{job.name}"))
        log.info(
            "worker.started", worker_id=self.worker_id, stages=[r.stage.name for r in self._runners]
        )

    async def drain(self, grace_s: float | None = None) -> None:
        """Stop claiming, let in-flight tasks finish within the grace, hand back the rest."""
        grace = self.settings.drain_grace_s if grace_s is None else grace_s
        self._stopping.set()
        self.wake_all()
        with contextlib.suppress(Exception):
            await self._touch_registry(draining=True)
        # The claim loops first: one may have a claim in flight, whose rows it hands back
        # when the reply arrives (see StageProducer.run). Only then is the set of tasks complete.
        producers = [t for t in self._background if t.get_name().startswith(CLAIM_TASK_PREFIX)]
        if producers:
            await asyncio.wait(producers, timeout=grace)
        tasks = [t for r in self._runners for t, _ in r.in_flight.values()]
        log.info("worker.draining", in_flight=len(tasks), grace_s=grace)
        if tasks:
            _, pending = await asyncio.wait(tasks, timeout=grace)
            if pending:
                for runner in self._runners:
                    await runner.hand_back_unfinished()
        await self.stop()

    async def stop(self) -> None:
        self._stopping.set()
        _WORKERS_IN_THIS_PROCESS.discard(self.worker_id)
        for task in self._background:
            task.cancel()
        for task in self._background:
            with contextlib.suppress(BaseException):
                await task
        for runner in self._runners:
            await runner.completer.close()
        if self.listener is not None:
            await self.listener.stop()
        if self.health is not None:
            await self.health.stop()
        with contextlib.suppress(Exception):
            await self.pool.execute(_sql.DEREGISTER_WORKER, self.worker_id)
        log.info("worker.stopped", worker_id=self.worker_id)

    # -- loops -------------------------------------------------------------------------

    async def _heartbeat_loop(self) -> None:
        """One loop, several clocks: each stage's leases are extended every that stage's
        heartbeat_s (a stage may run a shorter lease than the others), the registry row
        every worker-wide heartbeat_s. A beat that fails is retried at the next due time."""
        now = time.monotonic()
        registry_due = now + self.settings.heartbeat_s
        stage_due = {id(r): now + r.settings.heartbeat_s for r in self._runners}
        while True:
            wake_at = min(registry_due, *stage_due.values()) if stage_due else registry_due
            await asyncio.sleep(max(0.0, wake_at - time.monotonic()))
            now = self._heartbeat_tick = time.monotonic()
            if now >= registry_due:
                registry_due = now + self.settings.heartbeat_s
                await self._touch_registry()
            for runner in self._runners:
                if now >= stage_due[id(runner)]:
                    stage_due[id(runner)] = now + runner.settings.heartbeat_s
                    await self._extend_leases(runner)

    async def heartbeat(self) -> None:
        """Beat everything now: the registry row and the leases of every task in flight."""
        await self._touch_registry()
        for runner in self._runners:
            await self._extend_leases(runner)

    async def _touch_registry(self, *, draining: bool | None = None) -> None:
        try:
            await self.pool.execute(
                _sql.TOUCH_WORKER,
                *self._registry_args(self._stopping.is_set() if draining is None else draining),
            )
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
            log.warning("heartbeat.failed", error=str(exc))

    async def _extend_leases(self, runner: StageProducer) -> None:
        """Extend the leases of one stage's tasks in flight; flag the ones we no longer own."""
        if not runner.in_flight:
            return
        tokens = list(runner.in_flight)
        try:
            rows = await self.pool.fetch(
                runner.stage.sql(_sql.HEARTBEAT), self.worker_id, tokens, runner.settings.lease_s
            )
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
            log.warning("heartbeat.failed", stage=runner.stage.name, error=str(exc))
            return
        held = {r["claim_token"] for r in rows}
        for token in tokens:
            entry = runner.in_flight.get(token)
            if token in held or entry is None or entry[1].finishing:
                # A task writing its outcome may have committed already (then its row is
                # no longer running): its fence says whether the lease held, not us.
                continue
            # Another worker took the row over; our later writes will be fenced out. Keep
            # running (cancelling mid-transaction is worse) but count it, once.
            entry[1].mark_lease_lost()

    async def _sweep_loop(self) -> None:
        while True:
            await asyncio.sleep(
                self.settings.sweep_interval_s * random.uniform(SWEEP_JITTER_MIN, SWEEP_JITTER_MAX)
            )
            self._sweeper_tick = time.monotonic()
            await self._sweep_all()
            try:
                await self.pool.execute(_sql.PRUNE_WORKERS, self.settings.worker_stale_s * 10)
            except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
                log.warning("sweeper.failed", error=str(exc))

    async def _sweep_all(self) -> None:
        """One sweep of every stage; a stage whose sweep fails does not stop the others, and
        no exception ends the loop (its rows are retried at the next sweep)."""
        for runner in self._runners:
            try:
                await sweep_expired(self.pool, runner.stage, runner.settings)
            except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
                log.warning("sweeper.failed", stage=runner.stage.name, error=str(exc))
            except Exception:
                log.exception("sweeper.failed", stage=runner.stage.name)

    async def _periodic_loop(self, job: PeriodicJob) -> None:
        while True:
            try:
                await job.run(self.pool)
            except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
                log.warning("periodic.failed", job=job.name, error=str(exc))
            except Exception:
                # A bug in one job must not end its loop silently: log it, try next time.
                log.exception("periodic.failed", job=job.name)
            await asyncio.sleep(job.interval_s)

    @functools.cached_property
    def _version(self) -> str:
        try:
            return metadata.version(f"citeproof-{self.service}")
        except metadata.PackageNotFoundError:
            return "dev"

    def _registry_args(self, draining: bool) -> tuple[object, ...]:
        """What this worker says about itself in worker_heartbeats (TOUCH_WORKER's values).

        A stage whose breaker is open is not advertised (readiness and the runs' "waiting
        for" then see no live worker for it) and is listed under `unavailable` instead.
        """
        down = {
            r.stage.name: {
                "dependency": r.breaker.dependency,
                "detail": r.breaker.detail[:MAX_OUTAGE_DETAIL_CHARS],
                "since": r.breaker.since.isoformat() if r.breaker.since else None,
            }
            for r in self._runners
            if r.breaker is not None and r.breaker.is_open
        }
        capabilities = [c for c in self.capabilities if c.split(":", 1)[0] not in down]
        return (
            self.worker_id,
            self.service,
            self._version,
            capabilities,
            socket.gethostname(),
            os.getpid(),
            draining,
            json.dumps(down),
        )

    async def _forget_dead_predecessors(self) -> None:
        """Deregister workers of this service on this host whose process is gone, so that
        the boot sweep reclaims their rows now instead of when their leases expire."""
        rows = await self.pool.fetch(
            _sql.SELECT_HOST_WORKERS, self.service, socket.gethostname(), self.worker_id
        )
        for row in rows:
            if _process_is_gone(row["worker_id"], row["pid"]):
                await self.pool.execute(_sql.DEREGISTER_WORKER, row["worker_id"])
                log.warning("worker.predecessor_gone", previous=row["worker_id"], pid=row["pid"])

    async def _register(self) -> None:
        await self.pool.execute(_sql.TOUCH_WORKER, *self._registry_args(False))


async def run_once(
    pool: asyncpg.Pool,
    stage: Stage,
    *,
    worker_id: str = "test-worker",
    batch_size: int = 16,
    settings: QueueSettings | None = None,
) -> int:
    """Claim one batch of `stage` and run it in-process (for tests and tools)."""
    settings = settings or QueueSettings()
    rows = await pool.fetch(stage.claim_sql(None), worker_id, settings.lease_s, batch_size)
    for row in rows:
        await execute(TaskContext(stage=stage, row=row, pool=pool, worker_id=worker_id), settings)
    return len(rows)


async def _pool_at_boot(db: DatabaseSettings, max_size: int) -> asyncpg.Pool:
    """The worker's pool, waiting for the database (or the pooler in front of it) to accept
    connections: a worker started while PgBouncer restarts must not crash at boot. Gives up
    after BOOT_CONNECT_TIMEOUT_S, so a wrong URL still fails loudly."""
    deadline = time.monotonic() + BOOT_CONNECT_TIMEOUT_S
    delay = BOOT_RETRY_FIRST_S
    while True:
        try:
            return await create_pool(db, max_size=max_size)
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
            if time.monotonic() + delay > deadline:
                raise
            log.warning("worker.database_unreachable", error=str(exc), retry_in_s=delay)
            await asyncio.sleep(delay * random.uniform(0.5, 1.0))
            delay = min(delay * 2, BOOT_RETRY_MAX_S)


async def serve(
    *,
    service: str,
    stages: Sequence[Stage],
    capabilities: Sequence[str] = (),
    periodic: Sequence[PeriodicJob] = (),
    on_start: Callable[[asyncpg.Pool], object] | None = None,
) -> None:
    db = load(DatabaseSettings)
    # The same boot step as the API's (migrations folder included).
    await migrate_at_boot(db)
    slots = sum(stage_settings(s).concurrency for s in stages)
    # Handlers hold a connection only for their completing transaction, and every slot of
    # every stage may be completing at once; the group completions keep one per writer; size
    # for that plus the runtime's own loops.
    writers = sum(writers_for(stage_settings(s)) for s in stages)
    pool = await _pool_at_boot(db, max(db.pool_max, slots + writers + RUNTIME_CONNECTIONS))
    worker = Worker(
        service=service,
        stages=stages,
        pool=pool,
        listen_url=resolve_listen_url(db),
        capabilities=capabilities,
        periodic=periodic,
        stage_overrides={s.name: stage_settings(s) for s in stages},
    )
    if on_start is not None:
        result = on_start(pool)
        if asyncio.iscoroutine(result):
            await result
    loop = asyncio.get_running_loop()
    stop_requested = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop_requested.set)
    await worker.start()
    try:
        await stop_requested.wait()
        await worker.drain()
    finally:
        await pool.close()


def run_worker(
    *,
    service: str,
    stages: Sequence[Stage],
    capabilities: Sequence[str] = (),
    periodic: Sequence[PeriodicJob] = (),
    on_start: Callable[[asyncpg.Pool], object] | None = None,
) -> None:
    """Console-script entry point of a worker service. Returns (exit 0) after a drain."""
    configure_logging(service)
    asyncio.run(
        serve(
            service=service,
            stages=stages,
            capabilities=capabilities,
            periodic=periodic,
            on_start=on_start,
        )
    )
