"""Group commit of implicit completions (a handler that returns with nothing to hand off).

One fenced UPDATE per task was the runtime's largest per-task cost. Instead, completions of
one stage queue up here and one flush at a time writes all of them in ONE fenced statement.
There is no timer: a completion after a quiet spell is written at once, and the ones that
arrive while a flush is in flight form the next group - batching appears under load and
adds no latency without it. Each task still waits for its own row to be written and learns
whether its fence held. A stage with a terminal hook groups the same way, in one transaction
with the hooks' writes (`_hooked_completer.py`).

Up to `max_flushes` groups are written at once, one per claim batch the stage can have in
flight (concurrency / batch size): with a single flusher, a batch whose tasks were done waited
for the previous batch's statement to come back before its own could start, so the round trip
of every completion was paid in series and capped the stage whatever its concurrency.
"""

from __future__ import annotations

import asyncio
import contextlib

import asyncpg

from citeproof.queue import _sql
from citeproof.queue._hooked_completer import Pending, complete_group_with_hooks
from citeproof.queue.stage import Stage


class GroupCompleter:
    def __init__(
        self, pool: asyncpg.Pool, stage: Stage, worker_id: str, *, max_flushes: int = 1
    ) -> None:
        self._pool = pool
        self._stage = stage
        self._sql = stage.sql(_sql.COMPLETE_GROUP)
        self._worker_id = worker_id
        self._max_flushes = max(1, max_flushes)
        self._pending: list[Pending] = []
        self._flushers: set[asyncio.Task[None]] = set()
        # A flusher started that has not taken its group yet: completions arriving meanwhile
        # join that group instead of starting a flusher of their own.
        self._starting: asyncio.Task[None] | None = None

    async def complete(self, claim_token: object, row: asyncpg.Record | None = None) -> bool | None:
        """True when the fence held and the row is now `succeeded`; None when the task must
        complete alone (its group's hooks could not commit). `row` is the claimed row a
        terminal hook is given."""
        future: asyncio.Future[bool | None] = asyncio.get_running_loop().create_future()
        self._pending.append((claim_token, row, future))
        waiting = self._starting is not None and not self._starting.done()
        if not waiting and len(self._flushers) < self._max_flushes:
            flusher = asyncio.create_task(self._flush(), name="complete-group")
            self._starting = flusher
            self._flushers.add(flusher)
            flusher.add_done_callback(self._flushers.discard)
        return await future

    async def close(self) -> None:
        for flusher in list(self._flushers):
            with contextlib.suppress(Exception):
                await flusher

    async def _write(self, group: list[Pending]) -> dict[object, bool | None]:
        """One fenced statement for the whole group: claim token -> whether its fence held."""
        if self._stage.on_terminal is not None:
            return await complete_group_with_hooks(self._pool, self._stage, self._worker_id, group)
        rows = await self._pool.fetch(self._sql, self._worker_id, [token for token, _, _ in group])
        held = {row["claim_token"] for row in rows}
        return {token: token in held for token, _, _ in group}

    async def _flush(self) -> None:
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
        if self._starting is asyncio.current_task():
            self._starting = None  # another flusher took the group this one was started for
