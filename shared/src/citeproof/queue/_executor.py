"""Runs one claimed task and records how it ended (fenced)."""

from __future__ import annotations

import asyncio
import random
import time
import traceback

import asyncpg
import structlog

from citeproof.obs.logs import bind_work, unbind_work
from citeproof.queue import _sql
from citeproof.queue.errors import DependencyDown, LeaseLost, PermanentError
from citeproof.queue.metrics import stage_metrics
from citeproof.queue.settings import QueueSettings
from citeproof.queue.stage import TaskContext, TerminalOutcome

log = structlog.get_logger("citeproof.queue")

MAX_ERROR_CHARS = 4000
# Outcome label of a task whose end could not be written (the failure path raised): its lease
# expires and the sweeper retries or buries it.
UNRECORDED = "unrecorded"
# Outcome label of a task handed back because a backend its stage needs is down.
HELD = "held"
# Outcomes after which the stage's backend evidently was not down.
ANSWERED_OUTCOMES = frozenset({"succeeded", "failed", "retried", "dead"})


def raised_at(exc: BaseException) -> str:
    """Where an exception was raised (`file:line in function`, the innermost frame): a retried
    task's log line names the error and the place, without a traceback per retry."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return "?"
    frame = frames[-1]
    return f"{frame.filename.rsplit('/', 1)[-1]}:{frame.lineno} in {frame.name}"


def retry_delay(attempt: int, settings: QueueSettings) -> float:
    """Exponential backoff with jitter: spreads retries of a burst of failures apart."""
    ceiling = min(settings.backoff_max_s, settings.backoff_base_s * 2 ** max(attempt - 1, 0))
    return float(ceiling * random.uniform(0.5, 1.0))


async def execute(ctx: TaskContext, settings: QueueSettings, *, own_context: bool = False) -> str:
    """Run the handler; returns the outcome label used in metrics. `own_context`: the caller
    runs it as an asyncio task of its own, whose context variables end with it, so the log
    context needs no unbinding."""
    stage = ctx.stage
    work = bind_work(ctx.log_fields)
    started = time.perf_counter()
    # Until an outcome is written, the task's end is unknown: a failure path that raises
    # (its hook failed, the connection broke) must not be counted as a success.
    outcome = UNRECORDED
    try:
        await stage.handler(ctx)
        if ctx.handed_back:
            outcome = "handed_back"
        else:
            if not ctx.completed:
                # A handler with nothing to hand off may simply return: complete it for it.
                await ctx.complete_now()
            outcome = "succeeded"
    except LeaseLost:
        outcome = "lease_lost"
        log.warning("task.lease_lost")
    except asyncio.CancelledError:
        # Drain ran out of grace: the worker hands the row back (see worker.py).
        outcome = "cancelled"
        raise
    except DependencyDown as exc:
        outcome = await _hold_for_dependency(ctx, exc, settings)
    except PermanentError as exc:
        outcome = await _fail_permanently(ctx, exc)
    except Exception as exc:
        outcome = await _retry_or_bury(ctx, exc, settings)
    finally:
        metrics = stage_metrics(stage.name)
        metrics.duration.observe(time.perf_counter() - started)
        if outcome != "cancelled":
            metrics.count_finished(outcome)
        if not own_context:
            unbind_work(work)
    return outcome


async def _hold_for_dependency(
    ctx: TaskContext, exc: DependencyDown, settings: QueueSettings
) -> str:
    """The backend is down, not the task: give it back uncharged and open the breaker (which
    stops the claims). Without a breaker, or after an outage longer than the limit, it is an
    ordinary failure: retried with backoff, its attempt charged."""
    breaker = ctx.breaker
    if breaker is None or breaker.outage_too_long:
        return await _retry_or_bury(ctx, exc, settings)
    breaker.trip(exc.dependency, exc.detail)
    await ctx.snooze(0)
    log.info("task.held", dependency=exc.dependency, detail=exc.detail)
    return HELD


async def _fail_permanently(ctx: TaskContext, exc: PermanentError) -> str:
    stage = ctx.stage
    ctx.finishing = True
    async with ctx.pool.acquire() as conn, conn.transaction():
        done = await conn.fetchval(
            stage.sql(_sql.FAIL_PERMANENTLY),
            ctx.task_id,
            ctx.worker_id,
            ctx.claim_token,
            str(exc)[:MAX_ERROR_CHARS],
        )
        if done is None:
            ctx.mark_lease_lost()
            return "lease_lost"
        if stage.on_terminal is not None:
            await stage.on_terminal(conn, ctx.row, TerminalOutcome("failed", exc.code, exc.detail))
    log.info("task.failed", error_code=exc.code, detail=exc.detail)
    return "failed"


async def _retry_or_bury(ctx: TaskContext, exc: Exception, settings: QueueSettings) -> str:
    stage = ctx.stage
    message = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    delay = retry_delay(ctx.attempt, settings)
    ctx.finishing = True
    try:
        async with ctx.pool.acquire() as conn, conn.transaction():
            state = await conn.fetchval(
                stage.sql(_sql.RETRY_OR_BURY),
                ctx.task_id,
                ctx.worker_id,
                ctx.claim_token,
                delay,
                message[:MAX_ERROR_CHARS],
            )
            if state is None:
                ctx.mark_lease_lost()
                return "lease_lost"
            if state == "dead" and stage.on_terminal is not None:
                await stage.on_terminal(
                    conn, ctx.row, TerminalOutcome("dead", "internal_error", message)
                )
    except (OSError, asyncpg.PostgresError) as db_exc:
        # The database itself is unreachable: the lease will expire and the sweeper
        # (ours or another worker's) retries the task. Nothing else to do here.
        log.warning("task.outcome_not_recorded", error=str(db_exc))
        return UNRECORDED
    if state == "dead":
        log.error("task.dead", error=message, at=raised_at(exc), attempts=ctx.attempt)
        return "dead"
    log.warning(
        "task.retry",
        error=message,
        at=raised_at(exc),
        attempt=ctx.attempt,
        delay_s=round(delay, 2),
    )
    return "retried"
