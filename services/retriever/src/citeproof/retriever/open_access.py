"""Optional open-access lookup at planning time (ADR 0020): for a cited reference with a DOI and
no uploaded PDF, ask an OpenAlex- or Unpaywall-compatible API for an open-access PDF, download
it, and stage it as a source of the run's session - the parse stage then reads it in the same
sandboxed child as any upload, and the next planning pass links the reference to it.

Off unless the server enables it (`CITEPROOF_RETRIEVER_OPEN_ACCESS_ENABLED`) and the user has
switched it on (`users.open_access_lookup`). Answers are cached per DOI in PostgreSQL
(`open_access_lookups`), the documents fetched for a user are remembered per DOI
(`open_access_documents`), requests are rate limited per process, and a PDF URL the API names is
downloaded only from a public address (it is untrusted input). A failed lookup never holds a run
back: the reference stays `source_missing` with a sentence saying what happened.
"""

from __future__ import annotations

import asyncio
import hashlib
import ipaddress
import re
import socket
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final
from urllib.parse import quote, urljoin, urlsplit
from uuid import UUID

import asyncpg
import httpx
import structlog

from citeproof.contracts.thesis import Reference
from citeproof.pipeline import MAX_FILE_BYTES, PARSE_CHANNEL, SOURCE_MISSING
from citeproof.queue import notify
from citeproof.retriever.linking.through_library import find_entry
from citeproof.retriever.settings import RetrieverSettings
from citeproof.text.bibliographic import normalise_doi
from citeproof.version import version

log = structlog.get_logger("citeproof.retriever.open_access")

FOUND: Final = "found"
NONE: Final = "none"
FETCH_FAILED: Final = "fetch_failed"
OPEN_ACCESS_KIND: Final = "source"
PDF_MAGIC: Final = b"%PDF-"
MAX_REDIRECTS: Final = 5

USER_OPTED_IN = "SELECT open_access_lookup FROM users WHERE id = $1"

# Fresh cached answers for these DOIs.
SELECT_LOOKUPS = """
SELECT doi, status, pdf_url, detail FROM open_access_lookups
WHERE doi = ANY($1::text[]) AND looked_up_at > now() - make_interval(secs => $2)
"""

UPSERT_LOOKUP = """
INSERT INTO open_access_lookups (doi, status, pdf_url, detail) VALUES ($1, $2, $3, $4)
ON CONFLICT (doi) DO UPDATE
SET status = EXCLUDED.status, pdf_url = EXCLUDED.pdf_url, detail = EXCLUDED.detail,
    looked_up_at = now()
"""

# Documents this user's earlier lookups fetched, with their parse state.
SELECT_FETCHED = """
SELECT o.doi, o.document_id, d.state FROM open_access_documents o
JOIN documents d ON d.id = o.document_id
WHERE o.user_id = $1 AND o.doi = ANY($2::text[])
"""

SELECT_FETCHED_IDS = """
SELECT document_id FROM open_access_documents WHERE user_id = $1 AND document_id = ANY($2::uuid[])
"""

# The same content-addressed document row an upload of these bytes would make.
UPSERT_DOCUMENT = """
INSERT INTO documents (user_id, sha256, kind, filename, declared_type, size_bytes, notes)
VALUES ($1, $2, $3, $4, 'application/pdf', $5, $6::jsonb)
ON CONFLICT (user_id, sha256) DO UPDATE SET user_id = EXCLUDED.user_id
RETURNING id, state, (xmax = 0) AS inserted
"""

HAS_ACTIVE_ITEM = """
SELECT EXISTS (SELECT 1 FROM parse_items
               WHERE document_id = $1 AND state IN ('queued', 'running'))
"""

INSERT_JOB = """
INSERT INTO parse_jobs (user_id, session_id, total_items) VALUES ($1, $2, 1) RETURNING id
"""

INSERT_ITEM = """
INSERT INTO parse_items (job_id, user_id, document_id, filename, declared_type, size_bytes,
                         file_bytes)
VALUES ($1, $2, $3, $4, 'application/pdf', $5, $6)
"""

LINK_SESSION = """
INSERT INTO session_sources (session_id, document_id, kind) VALUES ($1, $2, 'source')
ON CONFLICT (session_id, document_id) DO NOTHING
"""

RECORD_FETCHED = """
INSERT INTO open_access_documents (user_id, doi, document_id) VALUES ($1, $2, $3)
ON CONFLICT (user_id, doi) DO UPDATE SET document_id = EXCLUDED.document_id, fetched_at = now()
"""

# The run waits for the fetched documents like for its uploads (the parser wakes it).
ADD_RUN_DOCUMENTS = """
UPDATE runs SET document_ids = ARRAY(SELECT DISTINCT unnest(document_ids || $2::uuid[]))
WHERE id = $1
"""

NOTE = {
    NONE: "the open-access lookup found no open-access PDF for doi:{doi}",
    FETCH_FAILED: "the open-access PDF of doi:{doi} could not be downloaded ({detail})",
    "error": "the open-access lookup of doi:{doi} failed ({detail}); it is retried next run",
}


class FetchError(Exception):
    """The lookup or the download did not give what it should; the message says why."""


@dataclass
class OpenAccessResult:
    # reference id -> fetched document (parsed or failed: the planner reports either)
    links: dict[int, UUID] = field(default_factory=dict)
    # reference id -> a sentence for the source_missing rationale
    notes: dict[int, str] = field(default_factory=dict)
    # documents staged now or still being parsed: the run waits for them
    pending: list[UUID] = field(default_factory=list)


class RateLimiter:
    """At most `per_s` requests per second from this process (lookups and downloads alike)."""

    def __init__(self, per_s: float) -> None:
        self._interval = 1.0 / per_s
        self._next = 0.0
        self._lock = asyncio.Lock()

    async def wait(self) -> None:
        async with self._lock:
            now = time.monotonic()
            if self._next > now:
                await asyncio.sleep(self._next - now)
            self._next = max(now, self._next) + self._interval


def pdf_url_of(body: Any) -> str | None:
    """The open-access PDF URL of an OpenAlex work or an Unpaywall record."""
    if not isinstance(body, dict):
        return None
    locations = [body.get("best_oa_location"), *(body.get("oa_locations") or [])]
    for location in locations:
        if isinstance(location, dict):
            # OpenAlex: pdf_url; Unpaywall: url_for_pdf.
            url = location.get("pdf_url") or location.get("url_for_pdf")
            if isinstance(url, str) and url.startswith(("http://", "https://")):
                return url
    return None


def _public_address(host: str) -> bool:
    try:
        infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except OSError:
        return False
    for info in infos:
        address = ipaddress.ip_address(info[4][0])
        if not address.is_global:
            return False
    return True


class OpenAccessClient:
    """The lookup API and the PDF downloads, rate limited."""

    def __init__(
        self, settings: RetrieverSettings, transport: httpx.AsyncBaseTransport | None = None
    ) -> None:
        self.settings = settings.validate()
        self.limiter = RateLimiter(settings.open_access_requests_per_s)
        contact = f"; mailto:{settings.open_access_email}" if settings.open_access_email else ""
        self._http = httpx.AsyncClient(
            timeout=settings.open_access_timeout_s,
            headers={"User-Agent": f"citeproof/{version()} (open-access lookup{contact})"},
            follow_redirects=False,
            transport=transport,
        )

    async def aclose(self) -> None:
        await self._http.aclose()

    def lookup_url(self, doi: str) -> tuple[str, dict[str, str]]:
        base = self.settings.open_access_base_url.rstrip("/")
        email = self.settings.open_access_email
        if self.settings.open_access_api == "unpaywall":
            return f"{base}/v2/{quote(doi, safe='/')}", {"email": email}
        params = {"mailto": email} if email else {}
        return f"{base}/works/doi:{quote(doi, safe='/')}", params

    async def lookup(self, doi: str) -> str | None:
        """The DOI's open-access PDF URL, None when it has none; FetchError when the API fails."""
        url, params = self.lookup_url(doi)
        await self.limiter.wait()
        try:
            response = await self._http.get(url, params=params, follow_redirects=True)
        except httpx.HTTPError as exc:
            raise FetchError(f"{type(exc).__name__} from the lookup API") from None
        if response.status_code == 404:
            return None  # the API does not know the DOI: no open-access copy to be had
        if response.status_code != 200:
            raise FetchError(f"the lookup API answered HTTP {response.status_code}")
        try:
            return pdf_url_of(response.json())
        except ValueError:
            raise FetchError("the lookup API answered with something other than JSON") from None

    async def download(self, url: str) -> bytes:
        """The PDF at `url` (redirects followed, each hop checked), at most MAX_FILE_BYTES."""
        for _ in range(MAX_REDIRECTS + 1):
            parts = urlsplit(url)
            if parts.scheme not in ("http", "https") or not parts.hostname:
                raise FetchError("the PDF URL is not an http(s) URL")
            if not self.settings.open_access_allow_private_hosts and not await asyncio.to_thread(
                _public_address, parts.hostname
            ):
                raise FetchError(f"{parts.hostname} is not a public address")
            await self.limiter.wait()
            try:
                async with self._http.stream("GET", url) as response:
                    if response.is_redirect and "location" in response.headers:
                        url = urljoin(url, response.headers["location"])
                        continue
                    if response.status_code != 200:
                        raise FetchError(f"HTTP {response.status_code}")
                    body = bytearray()
                    async for chunk in response.aiter_bytes():
                        body += chunk
                        if len(body) > MAX_FILE_BYTES:
                            raise FetchError(f"larger than the {MAX_FILE_BYTES} byte file cap")
            except httpx.HTTPError as exc:
                raise FetchError(type(exc).__name__) from None
            if not bytes(body[:1024]).lstrip().startswith(PDF_MAGIC):
                raise FetchError("the URL did not serve a PDF")
            return bytes(body)
        raise FetchError("too many redirects")


def _filename(doi: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", doi)[:150] + ".pdf"


async def _stage(
    pool: asyncpg.Pool, run: Mapping[str, Any], doi: str, url: str, data: bytes
) -> tuple[UUID, bool]:
    """Stage the fetched PDF as a source of the run's session; (document, must be parsed)."""
    user_id, session_id = run["user_id"], run["session_id"]
    notes = f'["fetched from an open-access copy of doi:{doi} at {url}"]'
    async with pool.acquire() as conn, conn.transaction():
        row = await conn.fetchrow(
            UPSERT_DOCUMENT, user_id, hashlib.sha256(data).digest(), OPEN_ACCESS_KIND,
            _filename(doi), len(data), notes,
        )  # fmt: skip
        document_id = row["id"]
        needs_parse = bool(row["inserted"]) or (
            row["state"] == "pending" and not await conn.fetchval(HAS_ACTIVE_ITEM, document_id)
        )
        if needs_parse:
            job_id = await conn.fetchval(INSERT_JOB, user_id, session_id)
            await conn.execute(
                INSERT_ITEM, job_id, user_id, document_id, _filename(doi), len(data), data
            )
            await notify(conn, PARSE_CHANNEL)
        await conn.execute(LINK_SESSION, session_id, document_id)
        await conn.execute(RECORD_FETCHED, user_id, doi, document_id)
    return document_id, row["state"] == "pending" or needs_parse


async def opted_in(pool: asyncpg.Pool, user_id: UUID) -> bool:
    return bool(await pool.fetchval(USER_OPTED_IN, user_id))


async def find_open_access(
    pool: asyncpg.Pool,
    client: OpenAccessClient,
    run: Mapping[str, Any],
    wanted: Mapping[int, str],
) -> OpenAccessResult:
    """Fetched documents for the wanted references (reference id -> normalised DOI)."""
    result = OpenAccessResult()
    dois = list(dict.fromkeys(wanted.values()))[: client.settings.open_access_max_per_run]
    by_doi: dict[str, UUID] = {}
    notes: dict[str, str] = {}
    for row in await pool.fetch(SELECT_FETCHED, run["user_id"], dois):
        by_doi[row["doi"]] = row["document_id"]
        if row["state"] == "pending":
            result.pending.append(row["document_id"])
    todo = [doi for doi in dois if doi not in by_doi]
    cached = {
        row["doi"]: row
        for row in await pool.fetch(SELECT_LOOKUPS, todo, client.settings.open_access_cache_ttl_s)
    }
    for doi in todo:
        if doi in cached:
            row = cached[doi]
            status, url, detail = row["status"], row["pdf_url"], row["detail"]
        else:
            try:
                url = await client.lookup(doi)
            except FetchError as exc:
                # Not cached: the API may be back next run.
                notes[doi] = NOTE["error"].format(doi=doi, detail=exc)
                log.warning("open_access.lookup_failed", doi=doi, error=str(exc))
                continue
            status, detail = (FOUND if url else NONE), None
            await pool.execute(UPSERT_LOOKUP, doi, status, url, None)
        if status == FOUND and url:
            try:
                data = await client.download(url)
            except FetchError as exc:
                status, detail = FETCH_FAILED, str(exc)
                await pool.execute(UPSERT_LOOKUP, doi, status, url, detail)
                log.info("open_access.download_failed", doi=doi, error=detail)
            else:
                document_id, pending = await _stage(pool, run, doi, url, data)
                by_doi[doi] = document_id
                if pending:
                    result.pending.append(document_id)
                log.info("open_access.fetched", doi=doi, document_id=str(document_id))
                continue
        notes[doi] = NOTE[status].format(doi=doi, detail=detail)
    if by_doi:
        # The run holds its fetched documents like its uploads (it waits for pending ones).
        await pool.execute(ADD_RUN_DOCUMENTS, run["id"], list(dict.fromkeys(by_doi.values())))
    for reference_id, doi in wanted.items():
        if doi in by_doi:
            result.links[reference_id] = by_doi[doi]
        elif doi in notes:
            result.notes[reference_id] = notes[doi]
    return result


def wanted_references(
    references: list[asyncpg.Record],
    citations: list[asyncpg.Record],
    plan_links: list[tuple[int, UUID | None, float, str]],
    verdicts: list[tuple[int, str, str]],
    fetched_ids: set[UUID],
    library: list[Reference],
    overrides: Mapping[str, UUID | None],
    to_reference: Callable[[asyncpg.Record], Reference],
) -> dict[int, str]:
    """reference id -> DOI, for the cited references planning left `source_missing` or linked
    to a PDF an earlier lookup fetched (not those the user overrode): the DOI of the reference
    itself, else of its library entry."""
    missing = {citation_id for citation_id, label, _ in verdicts if label == SOURCE_MISSING}
    wanted_ids = {c["reference_id"] for c in citations if c["id"] in missing}
    wanted_ids |= {ref for ref, document, _, _ in plan_links if document in fetched_ids}
    wanted = {}
    for row in references:
        if row["id"] not in wanted_ids or row["label"] in overrides:
            continue
        doi = normalise_doi(row["doi"])
        if doi is None and library:
            entry = find_entry(to_reference(row), library)[0]
            doi = normalise_doi(entry.doi) if entry is not None else None
        if doi:
            wanted[row["id"]] = doi
    return wanted


async def fetched_documents(pool: asyncpg.Pool, user_id: UUID, ids: list[UUID]) -> set[UUID]:
    """Which of these documents the user's open-access lookups fetched."""
    return {row["document_id"] for row in await pool.fetch(SELECT_FETCHED_IDS, user_id, ids)}


def annotate_missing(
    verdicts: list[tuple[int, str, str]],
    citations: list[asyncpg.Record],
    found: OpenAccessResult,
) -> list[tuple[int, str, str]]:
    """A source_missing rationale also says what the open-access lookup found."""
    reference_of = {c["id"]: c["reference_id"] for c in citations}
    annotated = []
    for citation_id, label, rationale in verdicts:
        note = found.notes.get(reference_of.get(citation_id, -1))
        if label == SOURCE_MISSING and note:
            rationale = f"{rationale} Also, {note}."
        annotated.append((citation_id, label, rationale))
    return annotated
