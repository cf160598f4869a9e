"""Per-process LRU of document indexes, bounded by an approximate memory budget and a TTL.

Cache, not state: an entry is only ever a function of the `chunks` rows of one (user, document)
pair at one version (its parse time), so losing the process loses nothing. A newer version of a
document replaces the older entries. The key includes the user: two users who uploaded the
same bytes have separate documents and separate entries, and an entry is built only from rows
filtered by its user.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

from prometheus_client import Counter, Gauge

from citeproof.retriever.index import DocumentIndex

CACHE_LOOKUPS = Counter(
    "citeproof_retriever_index_cache_lookups", "Document-index cache lookups.", ["result"]
)
CACHE_BYTES = Gauge(
    "citeproof_retriever_index_cache_bytes", "Approximate memory held by cached indexes."
)

Key = tuple[Any, Any, Any]  # (user, document, version)
Loader = Callable[[], Awaitable[DocumentIndex]]


class IndexCache:
    def __init__(
        self, budget_bytes: int, ttl_s: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.budget_bytes = budget_bytes
        self.ttl_s = ttl_s
        self._clock = clock
        self._entries: OrderedDict[Key, DocumentIndex] = OrderedDict()
        # Single flight: concurrent misses for one document build it once.
        self._building: dict[Key, asyncio.Future[DocumentIndex]] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: tuple[Any, ...]) -> bool:
        """(user, document, version), or (user, document) for any version."""
        if len(key) == 2:
            return any(self._fresh(k) is not None for k in list(self._entries) if k[:2] == key)
        return self._fresh(key) is not None

    def clear(self) -> None:
        self._entries.clear()
        CACHE_BYTES.set(0)

    @property
    def size_bytes(self) -> int:
        return sum(entry.size_bytes for entry in self._entries.values())

    def _fresh(self, key: Key) -> DocumentIndex | None:
        entry = self._entries.get(key)
        if entry is not None and self._clock() - entry.built_at > self.ttl_s:
            del self._entries[key]
            return None
        return entry

    async def get(
        self, user_id: Any, document_id: Any, load: Loader, *, version: Any = None
    ) -> DocumentIndex:
        key = (user_id, document_id, version)
        entry = self._fresh(key)
        if entry is not None:
            self._entries.move_to_end(key)
            CACHE_LOOKUPS.labels("hit").inc()
            return entry
        pending = self._building.get(key)
        if pending is not None:
            CACHE_LOOKUPS.labels("hit").inc()
            return await asyncio.shield(pending)
        CACHE_LOOKUPS.labels("miss").inc()
        future: asyncio.Future[DocumentIndex] = asyncio.get_running_loop().create_future()
        self._building[key] = future
        try:
            entry = await load()
            entry.built_at = self._clock()
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: no "never retrieved" warning when nobody waits
            raise
        finally:
            self._building.pop(key, None)
        future.set_result(entry)
        # Older versions of this document are never asked for again.
        for stale in [k for k in self._entries if k[:2] == key[:2] and k != key]:
            del self._entries[stale]
        self._entries[key] = entry
        self.enforce_budget()
        return entry

    def enforce_budget(self) -> None:
        """Evict least recently used entries until the budget holds (the newest always stays:
        a document bigger than the budget is still served, just not kept next to others)."""
        total = self.size_bytes
        while total > self.budget_bytes and len(self._entries) > 1:
            _, evicted = self._entries.popitem(last=False)
            total -= evicted.size_bytes
        CACHE_BYTES.set(total)
