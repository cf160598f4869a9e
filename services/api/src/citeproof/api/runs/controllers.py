"""Runs: start, status, live progress, cancel."""

from __future__ import annotations

from litestar import Controller, get, post
from litestar.params import JSONBody
from litestar.response import ServerSentEvent

from citeproof.api.deps import CallerDep, Hub, PathId, Pool, Settings, StaleAfter
from citeproof.api.errors import OPT_EXTRA_ERROR_STATUSES
from citeproof.api.events import hold_until_closed
from citeproof.api.pagination import DEFAULT_PAGE_SIZE, PageCursor, PageSize, decode_cursor
from citeproof.api.runs import services
from citeproof.api.runs.schemas import (
    RunAccepted,
    RunCancelled,
    RunCreate,
    RunList,
    RunStatus,
)
from citeproof.api.runs.stream import progress_events
from citeproof.api.security import OPT_TOKEN_IN_QUERY


class RunController(Controller):
    path = "/v1"
    tags = ["runs"]

    @post(
        "/sessions/{session_id:uuid}/runs",
        status_code=202,
        summary="Verify a thesis against the session's sources",
    )
    async def create_run(
        self,
        session_id: PathId,
        data: JSONBody[RunCreate],
        caller: CallerDep,
        pool: Pool,
        api_settings: Settings,
    ) -> RunAccepted:
        run_id = await services.create_run(
            pool, caller.user_id, session_id, data.thesis_document_id, api_settings
        )
        return RunAccepted(run_id=run_id)

    @get(
        "/sessions/{session_id:uuid}/runs",
        summary="The session's runs, newest first (cursor-paginated)",
    )
    async def list_runs(
        self,
        session_id: PathId,
        caller: CallerDep,
        pool: Pool,
        limit: PageSize = DEFAULT_PAGE_SIZE,
        cursor: PageCursor = None,
    ) -> RunList:
        items, next_cursor = await services.list_session_runs(
            pool, caller.user_id, session_id, limit, decode_cursor(cursor)
        )
        return RunList(items=items, next_cursor=next_cursor)

    @get("/runs/{run_id:uuid}", summary="Run status with per-stage progress")
    async def get_run(
        self, run_id: PathId, caller: CallerDep, pool: Pool, worker_stale_s: StaleAfter
    ) -> RunStatus:
        return await services.get_run_status(pool, caller.user_id, run_id, worker_stale_s)

    @get(
        "/runs/{run_id:uuid}/events",
        summary="Server-sent events: `progress` (run status JSON) and `done`",
        description="Also accepts `?token=` because EventSource cannot send headers.",
        opt={OPT_TOKEN_IN_QUERY: True, OPT_EXTRA_ERROR_STATUSES: (503,)},
    )
    async def run_events(
        self,
        run_id: PathId,
        caller: CallerDep,
        pool: Pool,
        api_settings: Settings,
        worker_stale_s: StaleAfter,
        events_hub: Hub,
    ) -> ServerSentEvent:
        # Refuse unknown/foreign runs with a normal 404, and a stream over the user's or the
        # process's share with 429/503, before the stream starts.
        await services.get_run_status(pool, caller.user_id, run_id, worker_stale_s)
        slot = events_hub.admit(caller.user_id, run_id, caller.token_id)
        stream = hold_until_closed(
            slot, lambda sub: progress_events(pool, events_hub, sub, api_settings, worker_stale_s)
        )
        return ServerSentEvent(
            stream, headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
        )

    @post("/runs/{run_id:uuid}/cancel", status_code=202, summary="Cancel a run")
    async def cancel_run(self, run_id: PathId, caller: CallerDep, pool: Pool) -> RunCancelled:
        status = await services.cancel_run(pool, caller.user_id, run_id)
        return RunCancelled(run_id=run_id, status=status)
