"""Group commit of implicit completions (a handler that returns with nothing to hand off),
and the next claim in the same statement.

One fenced UPDATE per task was the runtime's largest per-task cost. Instead, completions of
one stage queue up here and one flush at a time writes all of them in ONE fenced statement.
There is no timer: a completion after a quiet spell is written at once, and the ones that
arrive while a flush is in flight form the next group - batching appears under load and
adds no latency without it. Each task still waits for its own row to be written and learns
whether its fence held.

The group's tasks are done with their slots, so the same statement claims the next rows for
them (`_sql.COMPLETE_AND_CLAIM`): under load a stage then needs one statement per batch - the
completion of the last batch and the claim of the next - where a bare SKIP LOCKED loop needs
two. How many rows it may claim, and what happens to them, is the claim loop's business
(`ClaimSlots`, implemented by `_producer.StageProducer`).

That holds for a stage without a terminal hook and for one that states its success
bookkeeping as SQL (`Stage.on_succeeded_sql`, run inside the same statement). A stage whose
hook is Python completes a group in one transaction with the hooks' writes and claims
nothing with it (`_hooked_completer.py`).

Up to `max_flushes` groups are written at once, one per claim batch the stage can have in
flight (concurrency / batch size): with a single flusher, a batch whose tasks were done waited
for the previous batch's statement to come back before its own could start, so the round trip
of every completion was paid in series and capped the stage whatever its concurrency. Each of
those writers keeps the pool connection it used for the next group (given back at `close`, or
at once after an error): acquiring and releasing a pooled connection cost as much client CPU
as the statement itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import Sequence
from typing import Protocol

import asyncpg
import structlog

from citeproof.queue import _sql
from citeproof.queue._hooked_completer import Pending, complete_group_with_hooks
from citeproof.queue.settings import QueueSettings
from citeproof.queue.stage import Stage

log = structlog.get_logger("citeproof.queue")


class ClaimSlots(Protocol):
    """The claim loop's side of a completion that also claims."""

    def reserve(self, freeing: Sequence[object]) -> int:
        """The tasks holding these claim tokens are done with their slots: how many rows the
        completion may claim now (0: none). The count stays reserved until `deliver`."""
        ...

    async def deliver(self, reserved: int, rows: Sequence[asyncpg.Record]) -> None:
        """The statement ended: `rows` were claimed (none if it failed); start them."""
        ...


def writers_for(settings: QueueSettings) -> int:
    """Group writes a stage may have in flight at once - one per claim batch it can hold -
    each keeping a pool connection."""
    return -(-settings.concurrency // max(settings.batch_size, 1))


@functools.cache
def complete_and_claim_sql(stage: Stage, rows: int | None) -> str:
    """The stage's one-statement group completion, with its claim of `rows` rows (None: as many
    as the last parameter says) and its success bookkeeping."""
    statement = _sql.COMPLETE_AND_CLAIM_FAIR if stage.fair_by_user else _sql.COMPLETE_AND_CLAIM
    statement = stage.sql(statement).replace(
        "{succeeded}", stage.on_succeeded_sql or _sql.NO_SUCCESS_SQL
    )
    return _sql.with_limit(statement, rows)


class GroupCompleter:
    def __init__(
        self,
        pool: asyncpg.Pool,
        stage: Stage,
        worker_id: str,
        *,
        max_flushes: int = 1,
        slots: ClaimSlots | None = None,
        lease_s: float = 0.0,
        batch_size: int = 0,
    ) -> None:
        self._pool = pool
        self._stage = stage
        self._worker_id = worker_id
        self._max_flushes = max(1, max_flushes)
        # Without a claim loop to hand rows to (tools, tests), the statement claims none.
        self._slots = slots
        self._lease_s = lease_s
        self._literal_counts = (0, batch_size)
        # Python hooks need a transaction of their own; everything else is one statement.
        self._one_statement = stage.on_terminal is None or stage.on_succeeded_sql is not None
        self._pending: list[Pending] = []
        self._flushers: set[asyncio.Task[None]] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        # Pool connections kept between groups, at most one per concurrent flusher.
        self._idle: list[asyncpg.Connection] = []
        # A flusher started that has not taken its group yet: completions arriving meanwhile
        # join that group instead of starting a flusher of their own.
        self._starting: asyncio.Task[None] | None = None

    async def complete(self, claim_token: object, row: asyncpg.Record | None = None) -> bool | None:
        """True when the fence held and the row is now `succeeded`; None when the task must
        complete alone (its group's hooks could not commit). `row` is the claimed row a
        terminal hook is given."""
        # Looked up once: on Python 3.11 every lookup of the running loop is a getpid() call.
        loop = self._loop or asyncio.get_running_loop()
        self._loop = loop
        future: asyncio.Future[bool | None] = loop.create_future()
        self._pending.append((claim_token, row, future))
        waiting = self._starting is not None and not self._starting.done()
        if not waiting and len(self._flushers) < self._max_flushes:
            flusher = loop.create_task(self._flush(), name="complete-group")
            self._starting = flusher
            self._flushers.add(flusher)
        return await future

    async def close(self) -> None:
        for flusher in list(self._flushers):
            with contextlib.suppress(Exception):
                await flusher
        idle, self._idle = self._idle, []
        for conn in idle:
            with contextlib.suppress(Exception):
                await self._pool.release(conn)

    async def _fetch(self, statement: str, *args: object) -> list[asyncpg.Record]:
        """The statement on a kept connection (or a fresh one from the pool); a connection
        whose statement raised goes back to the pool, which replaces it if it is broken."""
        conn = self._idle.pop() if self._idle else await self._pool.acquire()
        try:
            rows: list[asyncpg.Record] = await conn.fetch(statement, *args)
        except BaseException:
            with contextlib.suppress(Exception):
                await self._pool.release(conn)
            raise
        self._idle.append(conn)
        return rows

    async def _write(self, group: list[Pending]) -> dict[object, bool | None]:
        """One group's completion: claim token -> whether its fence held (None: complete
        alone)."""
        if not self._one_statement:
            return await complete_group_with_hooks(self._pool, self._stage, self._worker_id, group)
        tokens = [token for token, _, _ in group]
        slots = self._slots
        reserved = slots.reserve(tokens) if slots is not None else 0
        # A group that claims a full batch or nothing has the count written in.
        statement, count = _sql.for_count(
            functools.partial(complete_and_claim_sql, self._stage), reserved, self._literal_counts
        )
        args = (self._worker_id, self._lease_s, tokens, *count)
        try:
            rows = await self._fetch(statement, *args)
        except BaseException as exc:
            if slots is not None:
                await slots.deliver(reserved, ())  # nothing was claimed
            if not isinstance(exc, Exception) or self._stage.on_succeeded_sql is None:
                raise  # every task of the group sees the error, as it would have alone
            # The stage's bookkeeping failed for some row: nothing committed, so each task
            # completes alone (its hook in Python) and only that row fails.
            log.info(
                "complete_group.alone",
                stage=self._stage.name,
                tasks=len(group),
                error=f"{type(exc).__name__}: {exc}",
            )
            return dict.fromkeys(tokens)
        # The rows after the claimed ones name the claims whose fence did not hold.
        lost = {row["claim_token"] for row in rows if row["id"] is None}
        if slots is not None:
            await slots.deliver(reserved, [row for row in rows if row["id"] is not None])
        return {token: token not in lost for token in tokens}

    async def _flush(self) -> None:
        try:
            while self._pending:
                group, self._pending = self._pending, []
                self._starting = None
                try:
                    results = await self._write(group)
                except Exception as exc:
                    # Every task of the group sees the error, as it would have alone.
                    for _, _, future in group:
                        if not future.done():
                            future.set_exception(exc)
                    continue
                for token, _, future in group:
                    if not future.done():  # a task cancelled by drain no longer waits
                        future.set_result(results[token])
        finally:
            # Leave the set in the same step that found nothing pending, not in a done
            # callback: a completion arriving between the two (a task the group's claim just
            # started) saw the set full, started no flusher, and waited forever.
            current = asyncio.current_task()
            self._flushers.discard(current)
            if self._starting is current:
                self._starting = None  # another flusher took the group this one was started for
