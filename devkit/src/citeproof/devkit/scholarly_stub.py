"""Stand-ins for Crossref's REST API and OpenAlex on 127.0.0.1, for tests and benchmarks (no test
or benchmark touches the internet).

They serve what the real services serve, in their shapes (checked against recorded responses):
Crossref `GET /works/{doi}` -> {"status", "message-type": "work", "message": {DOI, title,
author[{given, family, sequence}], issued{date-parts}, container-title, type, relation,
updated-by[{DOI, type, label, source, updated, record-id}], ...}} and `GET /works?
query.bibliographic=&query.author=&rows=&filter=isbn:` -> a "work-list" with scored `items`,
retraction and correction notices among them as their own records (with `update-to`); OpenAlex
`GET /works/doi:{doi}`, `/works/pmid:{pmid}` -> a work object {id, doi, title, display_name,
publication_year, ids, type, authorships[{author_position, author{display_name},
raw_author_name}], primary_location, locations, is_retracted, ...} and `GET /works?search=`
-> {"meta", "results"} ranked by `relevance_score`. Search is by nearest title, the way the
real services rank (BM25 over the bibliographic text), never by exact keys: a made-up entry
meets its near neighbours, as it would for real.

Hostile modes for the robustness tests and the benchmark: `fail(...)` makes the next requests
slow, rate-limited (429 with Retry-After), server errors, malformed or huge JSON, or redirects
to a private address; `stop()` takes a server down.
"""

from __future__ import annotations

import json
import math
import re
import sys
import threading
import time
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Final
from urllib.parse import parse_qs, unquote, urlsplit

CROSSREF: Final = "crossref"
OPENALEX: Final = "openalex"
ARXIV_PREFIX: Final = "10.48550/arxiv."
# Crossref work types -> OpenAlex's.
OPENALEX_TYPES: Final = {
    "journal-article": "article",
    "proceedings-article": "article",
    "posted-content": "preprint",
    "book": "book",
    "book-chapter": "book-chapter",
    "report": "report",
    "dataset": "dataset",
    "monograph": "book",
}
NOTICE_TITLES: Final = {
    "retraction": "Retraction: {title}",
    "partial_retraction": "Partial retraction: {title}",
    "expression_of_concern": "Expression of Concern: {title}",
    "correction": "Correction to: {title}",
    "erratum": "Erratum: {title}",
    "reinstatement": "Notice of Retraction and Replacement: {title}",
}
_WORD = re.compile(r"[a-z0-9]+")


def _words(text: str) -> list[str]:
    folded = unicodedata.normalize("NFKD", text)
    folded = "".join(ch for ch in folded if not unicodedata.combining(ch)).lower()
    return [w for w in _WORD.findall(folded) if len(w) >= 2]


@dataclass
class Person:
    given: str
    family: str

    @property
    def display(self) -> str:
        return f"{self.given} {self.family}".strip()


@dataclass
class StubNotice:
    """An editorial notice about a work: its own record in Crossref (with `update-to`), an entry
    in the work's `updated-by`."""

    kind: str  # a Crossref update type: retraction, expression_of_concern, correction, ...
    doi: str
    date: tuple[int, int, int]
    source: str = "publisher"  # or "retraction-watch"
    label: str = ""
    record_id: str = ""


@dataclass
class Work:
    title: str
    authors: list[Person]
    year: int
    venue: str = ""
    doi: str | None = None
    work_type: str = "journal-article"
    subtitle: str = ""
    pmid: str | None = None
    arxiv_id: str | None = None
    isbns: list[str] = field(default_factory=list)
    publisher: str = ""
    volume: str = ""
    issue: str = ""
    pages: str = ""
    in_crossref: bool = True
    in_openalex: bool = True
    notices: list[StubNotice] = field(default_factory=list)
    # A preprint (posted-content, arXiv) and its published version, both ways.
    published_doi: str | None = None
    preprint_doi: str | None = None
    preprint_year: int | None = None
    # Crossref prints some retracted works' titles with the notice ("RETRACTED: ...").
    title_prefix: str = ""
    openalex_id: str = ""

    @property
    def whole_title(self) -> str:
        return f"{self.title}: {self.subtitle}" if self.subtitle else self.title

    @property
    def retracted(self) -> bool:
        kinds = [n.kind for n in sorted(self.notices, key=lambda n: n.date)]
        last = None
        for kind in kinds:
            if kind in ("retraction", "partial_retraction", "withdrawal", "removal"):
                last = "retracted"
            elif kind == "reinstatement":
                last = None
        return last == "retracted"


def _date_parts(year: int, month: int = 1, day: int = 1) -> dict:
    return {"date-parts": [[year, month, day]]}


class Index:
    """The works both stubs serve, with the search structures (read-only once built)."""

    def __init__(self, works: Iterable[Work]) -> None:
        self.works: list[Work] = []
        self.by_doi: dict[str, Work] = {}
        self.by_pmid: dict[str, Work] = {}
        self.by_arxiv: dict[str, Work] = {}
        self.notice_of: dict[str, tuple[StubNotice, Work]] = {}
        for number, work in enumerate(works):
            work.openalex_id = work.openalex_id or f"W{4000000000 + number}"
            self.works.append(work)
            if work.doi:
                self.by_doi[work.doi.lower()] = work
            if work.pmid:
                self.by_pmid[work.pmid] = work
            if work.arxiv_id:
                self.by_arxiv[work.arxiv_id.lower()] = work
            for notice in work.notices:
                self.notice_of[notice.doi.lower()] = (notice, work)
        self._crossref_docs = self._build(CROSSREF)
        self._openalex_docs = self._build(OPENALEX)

    def _build(self, index: str) -> tuple[list[Any], dict[str, list[tuple[int, int]]], float]:
        docs: list[Any] = []
        for work in self.works:
            if index == CROSSREF and not (work.in_crossref and work.doi):
                continue
            if index == OPENALEX and not work.in_openalex:
                continue
            if index == CROSSREF:
                names = " ".join(p.family for p in work.authors[:6])
                text = f"{work.title_prefix}{work.whole_title} {names} {work.venue} {work.year}"
            else:
                text = work.whole_title
            docs.append((work, Counter(_words(text))))
        if index == CROSSREF:
            for notice, work in self.notice_of.values():
                title = NOTICE_TITLES.get(notice.kind, "Notice: {title}").format(title=work.title)
                docs.append(
                    ((notice, work), Counter(_words(f"{title} {work.venue} {notice.date[0]}")))
                )
        postings: dict[str, list[tuple[int, int]]] = defaultdict(list)
        total = 0
        for number, (_, counts) in enumerate(docs):
            total += sum(counts.values())
            for word, count in counts.items():
                postings[word].append((number, count))
        average = total / max(len(docs), 1)
        return docs, dict(postings), average

    def search(
        self, index: str, query: str, rows: int, all_terms_share: float = 0.0
    ) -> list[tuple[Any, float]]:
        """BM25 over the bibliographic text (Crossref) or the title (OpenAlex)."""
        docs, postings, average = self._crossref_docs if index == CROSSREF else self._openalex_docs
        terms = list(dict.fromkeys(_words(query)))
        scores: dict[int, float] = defaultdict(float)
        matched: dict[int, int] = defaultdict(int)
        n = len(docs)
        for term in terms:
            hits = postings.get(term, [])
            if not hits:
                continue
            idf = math.log(1 + (n - len(hits) + 0.5) / (len(hits) + 0.5))
            for number, count in hits:
                length = sum(docs[number][1].values())
                scores[number] += (
                    idf * count * 2.2 / (count + 1.2 * (0.25 + 0.75 * length / average))
                )
                matched[number] += 1
        needed = math.ceil(all_terms_share * len(terms))
        ranked = sorted(
            ((number, score) for number, score in scores.items() if matched[number] >= needed),
            key=lambda pair: -pair[1],
        )
        return [(docs[number][0], round(score, 6)) for number, score in ranked[:rows]]


# --- Crossref JSON -----------------------------------------------------------------------------
def _crossref_person(person: Person, position: int) -> dict:
    sequence = "first" if position == 0 else "additional"
    if not person.given:  # an organisation
        return {"name": person.family, "sequence": sequence, "affiliation": []}
    return {"given": person.given, "family": person.family, "sequence": sequence, "affiliation": []}


def crossref_item(work: Work, index: Index) -> dict:
    item: dict[str, Any] = {
        "DOI": work.doi,
        "URL": f"https://doi.org/{work.doi}",
        "title": [f"{work.title_prefix}{work.title}"],
        "subtitle": [work.subtitle] if work.subtitle else [],
        "author": [_crossref_person(p, i) for i, p in enumerate(work.authors)],
        "issued": _date_parts(work.year),
        "published": _date_parts(work.year),
        "created": _date_parts(work.year),
        "container-title": [work.venue] if work.venue else [],
        "publisher": work.publisher or "Stub Publishing",
        "type": work.work_type,
        "is-referenced-by-count": 7,
        "references-count": 30,
        "prefix": (work.doi or "").split("/")[0],
        "member": "78",
        "language": "en",
        "relation": {},
        "volume": work.volume,
        "issue": work.issue,
        "page": work.pages,
    }
    if work.isbns:
        item["ISBN"] = list(work.isbns)
    if work.work_type == "posted-content":
        item["subtype"] = "preprint"
        if work.published_doi:
            item["relation"]["is-preprint-of"] = [
                {"id-type": "doi", "id": work.published_doi, "asserted-by": "subject"}
            ]
    if work.preprint_doi and not work.preprint_doi.startswith(ARXIV_PREFIX):
        item["relation"]["has-preprint"] = [
            {"id-type": "doi", "id": work.preprint_doi, "asserted-by": "object"}
        ]
    if work.notices:
        item["updated-by"] = [
            {
                "DOI": n.doi,
                "type": n.kind,
                "label": n.label or n.kind.replace("_", " ").capitalize(),
                "source": n.source,
                "updated": {
                    "date-parts": [list(n.date)],
                    "date-time": "{:04d}-{:02d}-{:02d}T00:00:00Z".format(*n.date),
                },
                **({"record-id": n.record_id} if n.record_id else {}),
            }
            for n in work.notices
        ]
    return item


def crossref_notice_item(notice: StubNotice, work: Work) -> dict:
    title = NOTICE_TITLES.get(notice.kind, "Notice: {title}").format(title=work.title)
    return {
        "DOI": notice.doi,
        "URL": f"https://doi.org/{notice.doi}",
        "title": [title],
        "author": [],
        "issued": _date_parts(*notice.date),
        "container-title": [work.venue] if work.venue else [],
        "publisher": work.publisher or "Stub Publishing",
        "type": "journal-article",
        "update-to": [
            {
                "DOI": work.doi,
                "type": notice.kind,
                "label": notice.label or notice.kind.replace("_", " ").capitalize(),
                "source": notice.source,
                "updated": {"date-parts": [list(notice.date)]},
            }
        ],
    }


# --- OpenAlex JSON -----------------------------------------------------------------------------
def _location(landing: str, venue: str, version: str, source_type: str) -> dict:
    return {
        "is_oa": False,
        "landing_page_url": landing,
        "pdf_url": None,
        "source": {
            "id": f"https://openalex.org/S{abs(hash(venue)) % 10**9}",
            "display_name": venue,
            "type": source_type,
        },
        "license": None,
        "version": version,
        "is_accepted": version != "submittedVersion",
        "is_published": version == "publishedVersion",
    }


def openalex_work(work: Work, index: Index) -> dict:
    locations = []
    if (
        work.arxiv_id
        and work.work_type != "posted-content"
        and work.doi
        and not work.doi.startswith(ARXIV_PREFIX)
    ):
        primary = _location(
            f"https://doi.org/{work.doi}", work.venue, "publishedVersion", "journal"
        )
        locations = [
            primary,
            _location(
                f"https://arxiv.org/abs/{work.arxiv_id}",
                "arXiv (Cornell University)",
                "submittedVersion",
                "repository",
            ),
        ]
    elif work.arxiv_id:
        primary = _location(
            f"https://arxiv.org/abs/{work.arxiv_id}",
            "arXiv (Cornell University)",
            "submittedVersion",
            "repository",
        )
        locations = [primary]
    else:
        landing = (
            f"https://doi.org/{work.doi}" if work.doi else f"https://example.org/{work.openalex_id}"
        )
        kind = "repository" if work.work_type == "posted-content" else "journal"
        version = "submittedVersion" if work.work_type == "posted-content" else "publishedVersion"
        primary = _location(landing, work.venue or "", version, kind)
        locations = [primary]
    doi = work.doi
    if work.arxiv_id and not doi:
        doi = f"{ARXIV_PREFIX}{work.arxiv_id}"
    ids: dict[str, Any] = {"openalex": f"https://openalex.org/{work.openalex_id}"}
    if doi:
        ids["doi"] = f"https://doi.org/{doi}"
    if work.pmid:
        ids["pmid"] = f"https://pubmed.ncbi.nlm.nih.gov/{work.pmid}"
    work_type = (
        "preprint"
        if work.arxiv_id and work.doi is None
        else OPENALEX_TYPES.get(work.work_type, "article")
    )
    return {
        "id": f"https://openalex.org/{work.openalex_id}",
        "doi": f"https://doi.org/{doi}" if doi else None,
        "title": work.whole_title,
        "display_name": work.whole_title,
        "publication_year": work.year,
        "publication_date": f"{work.year}-01-01",
        "ids": ids,
        "language": "en",
        "type": work_type,
        "type_crossref": work.work_type,
        "authorships": [
            {
                "author_position": "first"
                if i == 0
                else ("last" if i == len(work.authors) - 1 else "middle"),
                "author": {
                    "id": f"https://openalex.org/A{abs(hash(p.display)) % 10**10}",
                    "display_name": p.display,
                    "orcid": None,
                },
                "institutions": [],
                "countries": [],
                "is_corresponding": i == 0,
                "raw_author_name": p.display,
            }
            for i, p in enumerate(work.authors)
        ],
        "primary_location": locations[0],
        "locations": locations,
        "best_oa_location": None,
        "locations_count": len(locations),
        "is_retracted": work.retracted,
        "is_paratext": False,
        "cited_by_count": 7,
        "biblio": {
            "volume": work.volume or None,
            "issue": work.issue or None,
            "first_page": (work.pages.split("-")[0] or None) if work.pages else None,
            "last_page": (work.pages.split("-")[-1] or None) if work.pages else None,
        },
    }


# --- the servers -------------------------------------------------------------------------------
@dataclass
class Fault:
    """What the next `count` requests (or those until `until`) get instead of an answer."""

    kind: str  # "429", "500", "slow", "drip", "malformed", "huge", "redirect", "deep"
    count: int = 1_000_000
    until: float = math.inf
    retry_after: str | None = "1"
    delay_s: float = 0.0
    location: str = "http://169.254.169.254/latest/meta-data/"


class _QuietServer(ThreadingHTTPServer):
    """A client that hangs up (a timeout, a refused oversized answer) is no error of the stub."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            super().handle_error(request, client_address)


class StubServer:
    """One index's API (Crossref or OpenAlex dialect) on 127.0.0.1."""

    def __init__(self, index: Index, dialect: str) -> None:
        self.index = index
        self.dialect = dialect
        self.requests: list[tuple[str, dict[str, list[str]]]] = []
        self.faults: list[Fault] = []
        self._lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                parts = urlsplit(self.path)
                query = parse_qs(parts.query)
                path = unquote(parts.path)
                with stub._lock:
                    stub.requests.append((path, query))
                    fault = stub._next_fault()
                if fault is not None and stub._serve_fault(self, fault):
                    return
                status, body = stub.answer(path, query)
                payload = body if isinstance(body, bytes) else json.dumps(body).encode()
                content_type = (
                    "application/json" if status == 200 or dialect == OPENALEX else "text/plain"
                )
                self._send(status, payload, content_type)

            def _send(
                self,
                status: int,
                payload: bytes,
                content_type: str,
                headers: dict[str, str] | None = None,
            ) -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(payload)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                try:
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self._handler = Handler
        self.server = _QuietServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def fail(self, fault: Fault) -> None:
        with self._lock:
            self.faults.append(fault)

    def heal(self) -> None:
        with self._lock:
            self.faults.clear()

    def _next_fault(self) -> Fault | None:
        now = time.monotonic()
        self.faults = [f for f in self.faults if f.count > 0 and f.until > now]
        if not self.faults:
            return None
        fault = self.faults[0]
        fault.count -= 1
        return fault

    def _serve_fault(self, handler: Any, fault: Fault) -> bool:
        send = handler._send
        if fault.kind == "429":
            headers = {"Retry-After": fault.retry_after} if fault.retry_after is not None else {}
            send(429, b'{"message": "Too Many Requests"}', "application/json", headers)
        elif fault.kind == "500":
            send(503, b"<html>Service Unavailable</html>", "text/html")
        elif fault.kind == "slow":
            time.sleep(fault.delay_s)
            return False  # then the real answer
        elif fault.kind == "drip":
            handler.send_response(200)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", "100000")
            handler.end_headers()
            try:
                for _ in range(100):
                    handler.wfile.write(b" ")
                    handler.wfile.flush()
                    time.sleep(fault.delay_s)
            except (BrokenPipeError, ConnectionResetError):
                pass
        elif fault.kind == "malformed":
            send(
                200,
                b'{"status": "ok", "message": {"DOI": "10.1/x", "title": ["unterminated',
                "application/json",
            )
        elif fault.kind == "deep":
            send(200, b"[" * 100_000 + b"]" * 100_000, "application/json")
        elif fault.kind == "huge":
            filler = json.dumps(
                {"status": "ok", "message": {"items": [{"title": ["x" * 1000]}] * 20_000}}
            )
            send(200, filler.encode(), "application/json")
        elif fault.kind == "redirect":
            send(302, b"", "text/plain", {"Location": fault.location})
        else:
            return False
        return True

    # --- answers ---------------------------------------------------------------------------
    def answer(self, path: str, query: dict[str, list[str]]) -> tuple[int, Any]:
        if self.dialect == CROSSREF:
            return self._crossref(path, query)
        return self._openalex(path, query)

    def _crossref(self, path: str, query: dict[str, list[str]]) -> tuple[int, Any]:
        if path.startswith("/works/"):
            doi = path.removeprefix("/works/").lower()
            work = self.index.by_doi.get(doi)
            if work is not None and work.in_crossref and not doi.startswith(ARXIV_PREFIX):
                return 200, {
                    "status": "ok",
                    "message-type": "work",
                    "message-version": "1.0.0",
                    "message": crossref_item(work, self.index),
                }
            notice = self.index.notice_of.get(doi)
            if notice is not None:
                return 200, {
                    "status": "ok",
                    "message-type": "work",
                    "message-version": "1.0.0",
                    "message": crossref_notice_item(*notice),
                }
            return 404, b"Resource not found."
        if path != "/works":
            return 404, b"Resource not found."
        rows = min(int((query.get("rows") or ["20"])[0] or 20), 1000)
        filters = dict(
            part.split(":", 1)
            for part in (query.get("filter") or [""])[0].split(",")
            if ":" in part
        )
        if "isbn" in filters:
            wanted = re.sub(r"[^0-9X]", "", filters["isbn"].upper())
            found = [w for w in self.index.works if w.in_crossref and w.doi and wanted in w.isbns][
                :rows
            ]
            items = [crossref_item(w, self.index) for w in found]
        else:
            text = " ".join(
                query.get("query.bibliographic", [])
                + query.get("query.author", [])
                + query.get("query", [])
            )
            items = []
            for hit, score in self.index.search(CROSSREF, text, rows):
                item = (
                    crossref_notice_item(*hit)
                    if isinstance(hit, tuple)
                    else crossref_item(hit, self.index)
                )
                item["score"] = score
                items.append(item)
        return 200, {
            "status": "ok",
            "message-type": "work-list",
            "message-version": "1.0.0",
            "message": {
                "facets": {},
                "total-results": len(items),
                "items": items,
                "items-per-page": rows,
                "query": {"start-index": 0, "search-terms": None},
            },
        }

    def _openalex(self, path: str, query: dict[str, list[str]]) -> tuple[int, Any]:
        not_found = (
            404,
            {"error": "Not Found", "message": "The requested resource could not be found."},
        )
        if path.startswith("/works/"):
            key = path.removeprefix("/works/")
            kind, _, value = key.partition(":")
            value = value.removeprefix("https://doi.org/").lower()
            work = None
            if kind == "doi":
                if value.startswith(ARXIV_PREFIX):
                    work = self.index.by_arxiv.get(value.removeprefix(ARXIV_PREFIX))
                else:
                    work = self.index.by_doi.get(value)
            elif kind == "pmid":
                work = self.index.by_pmid.get(value)
            if work is None or not work.in_openalex:
                return not_found
            return 200, openalex_work(work, self.index)
        if path != "/works":
            return not_found
        per_page = min(
            int((query.get("per-page") or query.get("per_page") or ["25"])[0] or 25), 200
        )
        text = (query.get("search") or [""])[0]
        hits = self.index.search(OPENALEX, text, per_page, all_terms_share=0.5)
        results = []
        for work, score in hits:
            body = openalex_work(work, self.index)
            body["relevance_score"] = score
            results.append(body)
        return 200, {
            "meta": {
                "count": len(results),
                "db_response_time_ms": 12,
                "page": 1,
                "per_page": per_page,
                "groups_count": None,
            },
            "results": results,
            "group_by": [],
        }


class ScholarlyStub:
    """Both indexes over one set of works."""

    def __init__(self, works: Iterable[Work]) -> None:
        self.index = Index(works)
        self.crossref = StubServer(self.index, CROSSREF)
        self.openalex = StubServer(self.index, OPENALEX)

    def servers(self) -> tuple[StubServer, StubServer]:
        return self.crossref, self.openalex

    def request_count(self) -> int:
        return len(self.crossref.requests) + len(self.openalex.requests)

    def stop(self) -> None:
        for server in self.servers():
            server.stop()
