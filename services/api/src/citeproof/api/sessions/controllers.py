"""/v1/sessions: a user's workspaces."""

from __future__ import annotations

from litestar import Controller, delete, get, post, put
from litestar.params import JSONBody

from citeproof.api.deps import CallerDep, PathId, Pool
from citeproof.api.pagination import DEFAULT_PAGE_SIZE, PageCursor, PageSize, decode_cursor
from citeproof.api.sessions import services
from citeproof.api.sessions.schemas import (
    ReferenceOverrideIn,
    ReferenceOverrideOut,
    ResetSourcesOut,
    SessionCreate,
    SessionDetail,
    SessionList,
    SessionOut,
)


class SessionController(Controller):
    path = "/v1/sessions"
    tags = ["sessions"]

    @post("/", status_code=201, summary="Create a session")
    async def create(
        self, data: JSONBody[SessionCreate], caller: CallerDep, pool: Pool
    ) -> SessionOut:
        return await services.create_session(pool, caller.user_id, data.name)

    @get("/", summary="List the caller's sessions, newest first (cursor-paginated)")
    async def list_sessions(
        self,
        caller: CallerDep,
        pool: Pool,
        limit: PageSize = DEFAULT_PAGE_SIZE,
        cursor: PageCursor = None,
    ) -> SessionList:
        items, next_cursor = await services.list_sessions(
            pool, caller.user_id, limit, decode_cursor(cursor)
        )
        return SessionList(items=items, next_cursor=next_cursor)

    @get("/{session_id:uuid}", summary="A session and its documents")
    async def get_session(self, session_id: PathId, caller: CallerDep, pool: Pool) -> SessionDetail:
        return await services.get_session(pool, caller.user_id, session_id)

    @delete("/{session_id:uuid}", status_code=204, summary="Delete a session")
    async def delete_session(self, session_id: PathId, caller: CallerDep, pool: Pool) -> None:
        await services.delete_session(pool, caller.user_id, session_id)

    @put(
        "/{session_id:uuid}/reference-overrides",
        summary="Map a thesis reference to a source document (or to none)",
    )
    async def put_reference_override(
        self, session_id: PathId, data: JSONBody[ReferenceOverrideIn], caller: CallerDep, pool: Pool
    ) -> ReferenceOverrideOut:
        async with pool.acquire() as conn:
            return await services.put_reference_override(conn, caller.user_id, session_id, data)

    @post(
        "/{session_id:uuid}/reset-sources",
        status_code=200,
        summary="Unlink every source document from the session",
    )
    async def reset_sources(
        self, session_id: PathId, caller: CallerDep, pool: Pool
    ) -> ResetSourcesOut:
        async with pool.acquire() as conn:
            unlinked = await services.reset_sources(conn, caller.user_id, session_id)
        return ResetSourcesOut(unlinked=unlinked)
