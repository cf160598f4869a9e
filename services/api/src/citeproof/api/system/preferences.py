"""The caller's own switches: `GET` and `PATCH /v1/me/preferences`.

Today one: the optional open-access lookup (ADR 0020), off by default; a run looks up open-access
PDFs only when its user switched it on and the server enables it
(`CITEPROOF_RETRIEVER_OPEN_ACCESS_ENABLED`).
"""

from __future__ import annotations

import msgspec
from litestar import Controller, get, patch
from litestar.params import JSONBody

from citeproof.api.deps import CallerDep, Pool

SELECT_PREFERENCES = "SELECT open_access_lookup FROM users WHERE id = $1"
# A field left out of the request keeps its value.
UPDATE_PREFERENCES = """
UPDATE users SET open_access_lookup = COALESCE($2, open_access_lookup)
WHERE id = $1 RETURNING open_access_lookup
"""


class Preferences(msgspec.Struct, frozen=True):
    # Look up open-access PDFs for cited references with a DOI and no uploaded source.
    open_access_lookup: bool


class PreferencesUpdate(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    open_access_lookup: bool | None = None


class PreferencesController(Controller):
    path = "/v1/me/preferences"
    tags = ["auth"]

    @get("/", summary="The caller's switches (open-access lookup)")
    async def show(self, caller: CallerDep, pool: Pool) -> Preferences:
        value = await pool.fetchval(SELECT_PREFERENCES, caller.user_id)
        return Preferences(open_access_lookup=bool(value))

    @patch("/", summary="Change the caller's switches; fields left out keep their value")
    async def update(
        self, data: JSONBody[PreferencesUpdate], caller: CallerDep, pool: Pool
    ) -> Preferences:
        value = await pool.fetchval(UPDATE_PREFERENCES, caller.user_id, data.open_access_lookup)
        return Preferences(open_access_lookup=bool(value))
