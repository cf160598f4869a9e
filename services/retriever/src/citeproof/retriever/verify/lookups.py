"""The questions verification asks the indexes, each answered from the shared PostgreSQL cache
when it can be (`scholarly_lookups`, every user's answers: bibliographic data is public) and
from the index otherwise.

A question is (index, kind, key): ("crossref", "doi", "10.1038/nature12968"), ("openalex",
"search", "<query>"). Only these keys leave the machine: identifiers, a title, a first author's
surname, a year - the entry's own fields, never the thesis's text.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Final
from urllib.parse import quote

import asyncpg
import msgspec

from citeproof.retriever.verify.client import ScholarlyClient, Unanswered
from citeproof.retriever.verify.records import (
    RECORDS_DECODER,
    RECORDS_ENCODER,
    IndexRecord,
    from_crossref,
    from_openalex,
)
from citeproof.retriever.verify.settings import CROSSREF, OPENALEX

BY_DOI: Final = "doi"
BY_PMID: Final = "pmid"
BY_ISBN: Final = "isbn"
BY_SEARCH: Final = "search"
FOUND: Final = "found"
NONE: Final = "none"
# What Crossref returns of a work: enough to compare and to read its notices and relations.
CROSSREF_FIELDS: Final = (
    "DOI,title,subtitle,author,editor,issued,published,created,container-title,publisher,type,"
    "relation,updated-by,update-to,ISBN,URL"
)
MAX_QUERY_CHARS: Final = 300
NO_INDEX: Final = "no scholarly index is configured"

SELECT_CACHED = """
SELECT status, records FROM scholarly_lookups
WHERE index_name = $1 AND query_kind = $2 AND query_key = $3
  AND looked_up_at > now() - make_interval(secs => $4)
"""
UPSERT_CACHED = """
INSERT INTO scholarly_lookups (index_name, query_kind, query_key, status, records)
VALUES ($1, $2, $3, $4, $5::jsonb)
ON CONFLICT (index_name, query_kind, query_key) DO UPDATE
SET status = EXCLUDED.status, records = EXCLUDED.records, looked_up_at = now()
"""


class Answer(msgspec.Struct, frozen=True):
    found: bool
    records: list[IndexRecord] = []
    cached: bool = False


@dataclass(frozen=True)
class Asked:
    """One question and what came of it, for the report's "looked up where"."""

    index: str
    kind: str
    key: str
    outcome: str  # "found", "none", or "not looked up: <why>"
    cached: bool = False


@dataclass
class Lookups:
    """The questions of one verification pass (a run), over the process's client."""

    pool: asyncpg.Pool
    client: ScholarlyClient | None  # None: no index configured (offline retraction data only)
    deadline: float
    ttl_s: float
    # Why nothing is asked when there is no client (the report's "not looked up: ...").
    offline_reason: str = NO_INDEX
    # One question asked twice in a run (two entries with one DOI) is sent once: the second
    # awaits the first's future. Single event loop: no lock needed around the dict.
    _inflight: dict[tuple[str, str, str], asyncio.Future[Answer]] = field(default_factory=dict)

    async def ask(self, index: str, kind: str, key: str) -> Answer:
        """The index's answer; Unanswered when it cannot be had (not cached: asked next run)."""
        question = (index, kind, key)
        pending = self._inflight.get(question)
        if pending is not None:
            return await asyncio.shield(pending)
        future: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
        self._inflight[question] = future
        try:
            answer = await self._ask(index, kind, key)
        except BaseException as exc:
            future.set_exception(exc if isinstance(exc, Exception) else Unanswered("cancelled"))
            future.exception()  # retrieved: nobody else may be waiting
            del self._inflight[question]
            raise
        future.set_result(answer)
        return answer

    async def _ask(self, index: str, kind: str, key: str) -> Answer:
        row = await self.pool.fetchrow(SELECT_CACHED, index, kind, key, self.ttl_s)
        if row is not None:
            return Answer(row["status"] == FOUND, RECORDS_DECODER.decode(row["records"]), True)
        if self.client is None:
            raise Unanswered(self.offline_reason)
        records = await QUESTIONS[(index, kind)](self.client, key, self.deadline)
        answer = Answer(bool(records), records)
        await self.pool.execute(
            UPSERT_CACHED,
            index,
            kind,
            key,
            FOUND if records else NONE,
            RECORDS_ENCODER.encode(records).decode(),
        )
        return answer


# --- the questions, per index ------------------------------------------------------------------
async def _crossref_doi(client: ScholarlyClient, doi: str, deadline: float) -> list[IndexRecord]:
    body = await client.get_json(CROSSREF, f"/works/{quote(doi, safe='/')}", {}, deadline)
    record = from_crossref(_dict(body).get("message"), CROSSREF) if body is not None else None
    return [record] if record else []


async def _crossref_items(
    client: ScholarlyClient, params: dict[str, str], deadline: float
) -> list[IndexRecord]:
    body = await client.get_json(CROSSREF, "/works", params, deadline)
    items = _dict(_dict(body).get("message")).get("items") if body is not None else None
    if body is not None and not isinstance(items, list):
        raise Unanswered("crossref answered with a list that is not one")
    records = [from_crossref(item, CROSSREF) for item in (items or [])]
    return [record for record in records if record is not None]


async def _crossref_search(client: ScholarlyClient, key: str, deadline: float) -> list[IndexRecord]:
    query, _, author = key.partition("\x1f")
    params = {
        "query.bibliographic": query,
        "rows": str(client.settings.search_rows),
        "select": CROSSREF_FIELDS,
    }
    if author:
        params["query.author"] = author
    return await _crossref_items(client, params, deadline)


async def _crossref_isbn(client: ScholarlyClient, isbn: str, deadline: float) -> list[IndexRecord]:
    params = {
        "filter": f"isbn:{isbn}",
        "rows": str(client.settings.search_rows),
        "select": CROSSREF_FIELDS,
    }
    return await _crossref_items(client, params, deadline)


async def _openalex_id(
    client: ScholarlyClient, kind: str, value: str, deadline: float
) -> list[IndexRecord]:
    body = await client.get_json(OPENALEX, f"/works/{kind}:{quote(value, safe='/')}", {}, deadline)
    record = from_openalex(body, OPENALEX) if body is not None else None
    return [record] if record else []


async def _openalex_search(client: ScholarlyClient, key: str, deadline: float) -> list[IndexRecord]:
    query, _, _author = key.partition("\x1f")
    params = {"search": query, "per-page": str(client.settings.search_rows)}
    body = await client.get_json(OPENALEX, "/works", params, deadline)
    results = _dict(body).get("results") if body is not None else None
    if body is not None and not isinstance(results, list):
        raise Unanswered("openalex answered with a list that is not one")
    records = [from_openalex(work, OPENALEX) for work in (results or [])]
    return [record for record in records if record is not None]


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


Question = Callable[[ScholarlyClient, str, float], Awaitable[list[IndexRecord]]]
QUESTIONS: Final[dict[tuple[str, str], Question]] = {
    (CROSSREF, BY_DOI): _crossref_doi,
    (CROSSREF, BY_SEARCH): _crossref_search,
    (CROSSREF, BY_ISBN): _crossref_isbn,
    (OPENALEX, BY_DOI): lambda client, key, deadline: _openalex_id(client, "doi", key, deadline),
    (OPENALEX, BY_PMID): lambda client, key, deadline: _openalex_id(client, "pmid", key, deadline),
    (OPENALEX, BY_SEARCH): _openalex_search,
}


def search_key(query: str, author: str | None) -> str:
    """The cache key (and request) of a title search: the query, a separator, the surname."""
    return f"{' '.join(query.split())[:MAX_QUERY_CHARS]}\x1f{author or ''}"
