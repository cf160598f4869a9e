"""How many upload bodies one API process reads at once, in total and per user.

Each upload in flight holds a spool file and, while staging, a database connection; without a
bound, many concurrent uploads exhaust disk, connections and the event loop of one replica and
every tenant on it suffers. A user over their share is refused at once (429): waiting would let
one user queue up the whole process. Everyone else waits briefly for a free slot, then gets 503.
"""

from __future__ import annotations

import asyncio
import uuid
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from citeproof.api.errors import ApiError
from citeproof.api.settings import ApiSettings


class UploadSlots:
    def __init__(self, settings: ApiSettings) -> None:
        self._settings = settings
        # Created lazily: an asyncio primitive belongs to the loop that first uses it, and the
        # app is built before uvicorn starts its loop.
        self._free: asyncio.Semaphore | None = None
        # Only touched from the event loop's thread, between awaits: no lock needed.
        self._per_user: Counter[uuid.UUID] = Counter()

    @asynccontextmanager
    async def hold(self, user_id: uuid.UUID) -> AsyncIterator[None]:
        settings = self._settings
        if self._per_user[user_id] >= settings.max_concurrent_uploads_per_user:
            raise ApiError(
                429,
                "too_many_concurrent_uploads",
                f"You already have {settings.max_concurrent_uploads_per_user} uploads in "
                "progress; wait for one to finish, or send several files in one upload.",
                retry_after=5,
            )
        if self._free is None:
            self._free = asyncio.Semaphore(settings.max_concurrent_uploads)
        self._per_user[user_id] += 1
        try:
            try:
                await asyncio.wait_for(self._free.acquire(), settings.upload_slot_wait_s)
            except TimeoutError:
                raise ApiError(
                    503,
                    "upload_slots_busy",
                    "The server is receiving as many uploads as it can right now; try again "
                    "in a few seconds.",
                    retry_after=5,
                ) from None
            try:
                yield
            finally:
                self._free.release()
        finally:
            self._per_user[user_id] -= 1
            if not self._per_user[user_id]:
                del self._per_user[user_id]
