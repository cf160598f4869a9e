"""Group commit of implicit completions for a stage WITH a terminal hook.

Every product stage has a terminal hook, so without this each implicit completion was its own
transaction: BEGIN, the fenced UPDATE, the hook's writes, COMMIT - four round trips per task,
the largest cost of the runtime's production path (a profile showed the process spending most
of its time in socket writes). Here the completions that queue up while a flush is in flight
share ONE transaction: BEGIN, one fenced UPDATE for the whole group, the hooks of the rows whose
fence held (one call for all of them when the stage has `on_terminal_group`), COMMIT. Each
row's state change still commits together with its hook's writes, and the fence is the same as
alone (worker_id, claim_token, state = 'running').

A stage that states its success bookkeeping as SQL (`Stage.on_succeeded_sql`) needs no
transaction at all: the bookkeeping is a data-modifying CTE of the group's fenced UPDATE, one
statement per group that also claims the next rows (`_completer.py`).

A hook that raises (or any other error) rolls the whole group back; every task of the group
then completes alone through `TaskContext.complete()`, exactly as it would have without
grouping, so one bad row fails only itself and no neighbour commits without its hook's writes.
"""

from __future__ import annotations

import asyncio

import asyncpg
import structlog

from citeproof.queue import _sql
from citeproof.queue.stage import Stage, TerminalOutcome

log = structlog.get_logger("citeproof.queue")

SUCCEEDED = TerminalOutcome("succeeded")

# A waiting completion: claim token, claimed row (what a terminal hook is given), the future
# its task awaits (True: fence held, False: lease lost, None: complete alone).
Pending = tuple[object, "asyncpg.Record | None", "asyncio.Future[bool | None]"]


async def complete_group_with_hooks(
    pool: asyncpg.Pool, stage: Stage, worker_id: str, group: list[Pending]
) -> dict[object, bool | None]:
    """Claim token -> whether its fence held, or None for every task of a group whose
    transaction could not commit."""
    assert stage.on_terminal is not None
    tokens = [token for token, _, _ in group]
    try:
        async with pool.acquire() as conn, conn.transaction():
            rows = await conn.fetch(stage.sql(_sql.COMPLETE_GROUP), worker_id, tokens)
            held = {row["claim_token"] for row in rows}
            # In claim order, so hooks that touch shared rows lock them in the same order
            # whatever the grouping.
            finished = [row for token, row, _ in group if token in held and row is not None]
            if stage.on_terminal_group is not None:
                await stage.on_terminal_group(conn, finished, SUCCEEDED)
            else:
                for row in finished:
                    await stage.on_terminal(conn, row, SUCCEEDED)
    except Exception as exc:
        # Nothing of the group committed: each task completes alone, so only a row whose
        # own hook (or fence) fails ends up failing.
        log.info(
            "complete_group.alone",
            stage=stage.name,
            tasks=len(group),
            error=f"{type(exc).__name__}: {exc}",
        )
        return dict.fromkeys(tokens)
    return {token: token in held for token in tokens}
