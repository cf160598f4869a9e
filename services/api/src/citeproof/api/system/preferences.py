"""The caller's own switches: `GET` and `PATCH /v1/me/preferences`.

Two, both off by default and effective only where the server enables them too: the optional
open-access lookup (ADR 0020; `CITEPROOF_RETRIEVER_OPEN_ACCESS_ENABLED`) and reference
verification against scholarly indexes (ADR 0024; `CITEPROOF_VERIFY_ENABLED`).
"""

from __future__ import annotations

import asyncpg
import msgspec
from litestar import Controller, get, patch
from litestar.params import JSONBody

from citeproof.api.deps import CallerDep, Pool

SELECT_PREFERENCES = "SELECT open_access_lookup, verify_references FROM users WHERE id = $1"
# A field left out of the request keeps its value.
UPDATE_PREFERENCES = """
UPDATE users SET open_access_lookup = COALESCE($2, open_access_lookup),
                 verify_references = COALESCE($3, verify_references)
WHERE id = $1 RETURNING open_access_lookup, verify_references
"""


class Preferences(msgspec.Struct, frozen=True):
    # Look up open-access PDFs for cited references with a DOI and no uploaded source.
    open_access_lookup: bool
    # Verify every reference entry against scholarly indexes (only entry fields are sent).
    verify_references: bool = False


class PreferencesUpdate(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    open_access_lookup: bool | None = None
    verify_references: bool | None = None


def _preferences(row: asyncpg.Record | None) -> Preferences:
    if row is None:
        return Preferences(open_access_lookup=False)
    return Preferences(
        open_access_lookup=bool(row["open_access_lookup"]),
        verify_references=bool(row["verify_references"]),
    )


class PreferencesController(Controller):
    path = "/v1/me/preferences"
    tags = ["auth"]

    @get("/", summary="The caller's switches (open-access lookup, reference verification)")
    async def show(self, caller: CallerDep, pool: Pool) -> Preferences:
        return _preferences(await pool.fetchrow(SELECT_PREFERENCES, caller.user_id))

    @patch("/", summary="Change the caller's switches; fields left out keep their value")
    async def update(
        self, data: JSONBody[PreferencesUpdate], caller: CallerDep, pool: Pool
    ) -> Preferences:
        row = await pool.fetchrow(
            UPDATE_PREFERENCES, caller.user_id, data.open_access_lookup, data.verify_references
        )
        return _preferences(row)
