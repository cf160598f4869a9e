"""Verifying reference entries: for each entry, find the work it names in the indexes - by its
DOI, then its arXiv id, PMID or ISBN, then by title and first author - compare, and read the
work's notices (the index's, and the imported Retraction Watch data's).

What an entry can come out as:
- `verified`: an index knows the work; findings say where the entry differs from it
  (identifier-mismatch, metadata-differs), what happened to it since (retracted,
  expression-of-concern, correction), and whether a cited preprint was published.
- `not_found`: every index asked answered, none knows a matching work (finding not-found: a
  warning, never "fabricated"; it says what was searched where).
- `not_looked_up`: verification is off, an index could not be asked or did not answer in time,
  or the entry names a book, report or web page the indexes do not know. Never "not found".
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import asyncpg
import structlog

from citeproof.contracts.findings import Difference, Evidence, Finding
from citeproof.contracts.verification import (
    NOT_FOUND_STATUS,
    NOT_LOOKED_UP,
    VERIFIED,
    EntryVerification,
    LookedUp,
    MatchedWork,
)
from citeproof.pipeline import (
    CORRECTION as CORRECTION_RULE,
)
from citeproof.pipeline import (
    EXPRESSION_OF_CONCERN as EXPRESSION_OF_CONCERN_RULE,
)
from citeproof.pipeline import (
    IDENTIFIER_MISMATCH,
    METADATA_DIFFERS,
    NOT_FOUND,
    PREPRINT_PUBLISHED,
    RETRACTED,
)
from citeproof.retractions import (
    CORRECTION,
    EXPRESSION_OF_CONCERN,
    PARTIAL_RETRACTION,
    REINSTATEMENT,
    REPLACEMENT,
    RETRACTING_KINDS,
    RETRACTION_WATCH,
    notices_for,
)
from citeproof.retriever.verify.client import Unanswered
from citeproof.retriever.verify.compare import (
    RawView,
    author_in_record,
    cites_preprint,
    clean_title,
    first_author_ok,
    has_published_version,
    identity_score,
    is_other_work,
    is_same_work,
    is_short_title,
    printed_score,
    title_printed_right,
    year_ok,
)
from citeproof.retriever.verify.entries import OUT_OF_SCOPE_KINDS, Entry, title_candidates
from citeproof.retriever.verify.lookups import (
    BY_DOI,
    BY_ISBN,
    BY_PMID,
    BY_SEARCH,
    Asked,
    Lookups,
    search_key,
)
from citeproof.retriever.verify.records import ARXIV_DOI_PREFIX, IndexRecord, Notice
from citeproof.retriever.verify.settings import CROSSREF, OPENALEX
from citeproof.text.bibliographic import main_title, surname_matches, title_key
from citeproof.text.names import surname_of

log = structlog.get_logger("citeproof.retriever.verify")

# At most this many DOIs of one entry are tried (its own, then those its text prints).
MAX_DOIS: Final = 3
# A search needs this many characters of title (or printed entry) to mean anything.
MIN_QUERY_CHARS: Final = 12
BY_ARXIV: Final = "arxiv"
# How a question is named in the report.
_BY: Final = {
    BY_DOI: "DOI",
    BY_ARXIV: "arXiv id",
    BY_PMID: "PMID",
    BY_ISBN: "ISBN",
    BY_SEARCH: "title",
}


@dataclass
class EntryResult:
    entry: Entry
    status: str = NOT_LOOKED_UP
    detail: str = ""
    asked: list[Asked] = field(default_factory=list)
    work: MatchedWork | None = None
    findings: list[Finding] = field(default_factory=list)

    def body(self) -> EntryVerification:
        return EntryVerification(
            status=self.status,
            detail=self.detail,
            looked_up=[
                LookedUp(
                    index=a.index, by=_BY.get(a.kind, a.kind), outcome=a.outcome, cached=a.cached
                )
                for a in self.asked
            ],
            work=self.work,
        )


def citation_of(record: IndexRecord) -> str:
    """ "Title" (First Author et al., 2015; Venue; doi:...) - a record as one line."""
    names = [surname_of(a) or a for a in record.authors[:2]]
    who = (
        names[0]
        + (" et al." if len(record.authors) > 2 else f" and {names[1]}" if len(names) > 1 else "")
        if names
        else "no authors"
    )
    parts = [who]
    if record.year:
        parts.append(str(record.year))
    if record.venue:
        parts.append(record.venue)
    if record.doi:
        parts.append(f"doi:{record.doi}")
    return f'"{clean_title(record.title)}" ({"; ".join(parts)})'


def _summary(record: IndexRecord, matched_by: str) -> MatchedWork:
    return MatchedWork(
        index=record.index,
        title=clean_title(record.title),
        authors=record.authors[:3],
        year=record.year,
        venue=record.venue,
        doi=record.doi,
        url=record.url,
        matched_by=matched_by,
    )


@dataclass
class _Matching:
    """What the lookups of one entry found."""

    record: IndexRecord | None = None
    matched_by: str = ""
    identifier: str = ""  # the identifier that resolved to another work ("doi:10...")
    other_work: IndexRecord | None = None
    unresolved: list[str] = field(default_factory=list)  # identifiers no index knows
    answered: set[str] = field(default_factory=set)  # indexes that answered something
    unreachable: dict[str, str] = field(default_factory=dict)  # index -> why
    searched: list[str] = field(default_factory=list)  # "crossref by title", ...


class Verifier:
    """Verifies a run's entries with one Lookups (one deadline, one cache, one client)."""

    def __init__(
        self, lookups: Lookups, indexes: Sequence[str], retractions: asyncpg.Pool | None
    ) -> None:
        self.lookups = lookups
        self.indexes = tuple(indexes)
        self.retractions = retractions

    async def verify_all(self, entries: Sequence[Entry]) -> list[EntryResult]:
        """Every entry, concurrently (the client's gates bound the requests); entries still
        unanswered at the deadline are `not_looked_up`."""
        results = [EntryResult(entry) for entry in entries]
        tasks = [asyncio.create_task(self.verify(result)) for result in results]
        remaining = self.lookups.deadline - time.monotonic()
        if tasks:
            _done, pending = await asyncio.wait(tasks, timeout=max(remaining, 0.0))
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
            for task, result in zip(tasks, results, strict=True):
                if task in pending:
                    result.status, result.findings, result.work = NOT_LOOKED_UP, [], None
                    result.detail = (
                        "not looked up: the indexes did not answer within the run's time limit"
                    )
                elif task.exception() is not None:
                    exc = task.exception()
                    log.error(
                        "verify.entry_failed",
                        reference_id=result.entry.reference_id,
                        error=f"{type(exc).__name__}: {exc}",
                    )
                    result.status, result.findings, result.work = NOT_LOOKED_UP, [], None
                    result.detail = f"not looked up: verification failed ({type(exc).__name__})"
        return results

    async def verify(self, result: EntryResult) -> None:
        entry = result.entry
        raw = RawView.of(entry)
        matching = _Matching()
        await self._by_identifiers(entry, raw, matching, result)
        if matching.record is None:
            await self._by_search(entry, raw, matching, result)
        notices: list[Notice] = []
        retracted_flag: str | None = None
        if matching.record is not None:
            record = matching.record
            if record.doi and CROSSREF in self.indexes and record.index != CROSSREF:
                # The notices live in Crossref (the publishers' and Retraction Watch's).
                crossref = await self._ask(CROSSREF, BY_DOI, record.doi, result, matching)
                if crossref:
                    notices += crossref[0].notices
            notices += record.notices
            if record.retracted:
                retracted_flag = record.index
        notices += await self._retraction_watch(entry, matching.record)
        self._decide(entry, raw, matching, result)
        result.findings += _notice_findings(_dedupe(notices), retracted_flag)

    # --- lookups -------------------------------------------------------------------------------
    async def _ask(
        self, index: str, kind: str, key: str, result: EntryResult, matching: _Matching
    ) -> list[IndexRecord] | None:
        """The index's records for one question; None when it could not be asked."""
        if index not in self.indexes:
            return None
        try:
            answer = await self.lookups.ask(index, kind, key)
        except Unanswered as exc:
            matching.unreachable[index] = str(exc)
            result.asked.append(Asked(index, kind, key, f"not looked up: {exc}"))
            return None
        matching.answered.add(index)
        records = [record for record in answer.records if not record.is_notice]
        if kind == BY_SEARCH:
            outcome = f"{len(records)} candidates, none the entry's work" if records else "nothing"
        else:
            outcome = "found" if records else "not known there"
        result.asked.append(Asked(index, kind, key, outcome, answer.cached))
        return records

    async def _by_identifiers(
        self, entry: Entry, raw: RawView, matching: _Matching, result: EntryResult
    ) -> None:
        questions: list[tuple[str, str, str, str]] = []  # (label, index, kind, key)
        for doi in entry.dois[:MAX_DOIS]:
            questions += [(f"doi:{doi}", index, BY_DOI, doi) for index in self.indexes]
        if entry.arxiv_id:
            doi = f"{ARXIV_DOI_PREFIX}{entry.arxiv_id}"
            questions.append((f"arXiv:{entry.arxiv_id}", OPENALEX, BY_DOI, doi))
        if entry.pmid:
            questions.append((f"PMID {entry.pmid}", OPENALEX, BY_PMID, entry.pmid))
        if entry.isbn:
            questions.append((f"ISBN {entry.isbn}", CROSSREF, BY_ISBN, entry.isbn))
        resolved: set[str] = set()
        for label, index, kind, key in questions:
            if label in resolved:
                continue
            records = await self._ask(index, kind, key, result, matching)
            if not records:
                continue
            resolved.add(label)
            best = max(records, key=lambda r: identity_score(r, entry, raw))
            identity = identity_score(best, entry, raw)
            author = first_author_ok(best, entry, raw)
            year = year_ok(best, entry, raw)
            printed = printed_score(best, entry, raw)
            if is_same_work(printed, identity, author, year, is_short_title(best)) or (
                not is_other_work(identity, author) and kind != BY_ISBN
            ):
                matching.record = best
                _mark(result, index, kind, "the entry's work")
                matching.matched_by = BY_ARXIV if label.startswith("arXiv") else kind
                return
            if kind != BY_ISBN and matching.other_work is None:
                matching.identifier, matching.other_work = label, best
                _mark(result, index, kind, "another work")
        for label, *_ in questions:
            if label not in resolved and label.startswith(("doi:", "arXiv:", "PMID")):
                if label not in matching.unresolved and label != matching.identifier:
                    matching.unresolved.append(label)

    async def _by_search(
        self, entry: Entry, raw: RawView, matching: _Matching, result: EntryResult
    ) -> None:
        title = entry.searchable_title
        author = surname_of(entry.first_author) if entry.first_author else None
        for index in self.indexes:
            if index == CROSSREF:
                # Crossref's bibliographic search reads a whole citation; without a parsed title
                # the printed entry is that citation (URLs removed).
                query: str | None = (
                    " ".join(filter(None, [title, str(entry.year or "")]))
                    if title
                    else entry.citation_string
                )
            else:
                query = title or _title_guess(entry)
            if not query or len(query) < MIN_QUERY_CHARS:
                continue
            records = await self._ask(
                index,
                BY_SEARCH,
                search_key(query, author if index == CROSSREF else None),
                result,
                matching,
            )
            matching.searched.append(
                f"{index} by title" + (" and first author" if author and index == CROSSREF else "")
            )
            if not records:
                continue
            scored = []
            for record in records:
                identity = identity_score(record, entry, raw)
                author_ok = first_author_ok(record, entry, raw)
                if author_ok is False and author_in_record(record, entry):
                    author_ok = True  # the right people, another order: still this work
                year = year_ok(record, entry, raw)
                printed = printed_score(record, entry, raw)
                if is_same_work(printed, identity, author_ok, year, is_short_title(record)):
                    # Two works with one title (a reprint, a namesake): the one whose author and
                    # year agree is the entry's.
                    scored.append(((identity, author_ok is True, year is True), record))
            if scored:
                matching.record = best_candidate(scored)
                _mark(result, index, BY_SEARCH, "the entry's work")
                matching.matched_by = BY_SEARCH
                return

    async def _retraction_watch(self, entry: Entry, record: IndexRecord | None) -> list[Notice]:
        if self.retractions is None:
            return []
        dois = list(entry.dois[:MAX_DOIS])
        pmids = [entry.pmid] if entry.pmid else []
        keys = [title_key(t) for t in title_candidates(entry)]
        if record is not None:
            dois += [record.doi] if record.doi else []
            pmids += [record.pmid] if record.pmid else []
            keys += [title_key(clean_title(record.title))]
        else:
            keys += (
                [title_key(main_title(entry.searchable_title))] if entry.searchable_title else []
            )
        rows = await notices_for(self.retractions, dois, pmids, keys)
        notices = []
        for row in rows:
            by_identifier = (row["original_doi"] and row["original_doi"] in dois) or (
                row["original_pmid"] and row["original_pmid"] in pmids
            )
            if not by_identifier and not _title_match_confirmed(row, entry, record):
                continue
            notices.append(
                Notice(
                    kind=row["nature"],
                    label=row["nature"].replace("_", " "),
                    doi=row["notice_doi"],
                    date=row["notice_date"].isoformat() if row["notice_date"] else None,
                    source=RETRACTION_WATCH,
                )
            )
        return notices

    # --- decisions -----------------------------------------------------------------------------
    def _decide(self, entry: Entry, raw: RawView, matching: _Matching, result: EntryResult) -> None:
        record = matching.record
        if matching.other_work is not None:
            result.findings.append(_mismatch(entry, matching))
        if record is not None:
            result.status = VERIFIED
            result.work = _summary(record, matching.matched_by)
            where = f"{record.index} (by {_BY.get(matching.matched_by, matching.matched_by)})"
            result.detail = f"found in {where}"
            differences = _differences(entry, raw, record, matching)
            if differences:
                result.findings.append(_metadata_differs(record, differences))
            if cites_preprint(entry, record):
                published = has_published_version(record)
                if published:
                    result.findings.append(
                        Finding(
                            rule=PREPRINT_PUBLISHED.code,
                            message=f"The cited preprint has a published version: {published}.",
                            found=published,
                            evidence=[
                                Evidence(
                                    origin=record.index, text=citation_of(record), url=record.url
                                )
                            ],
                        )
                    )
            return
        if matching.other_work is not None:
            result.status = VERIFIED
            result.detail = f"{matching.identifier} is the identifier of another work"
            return
        if matching.unreachable:
            result.status = NOT_LOOKED_UP
            result.detail = "not looked up: " + "; ".join(matching.unreachable.values())
            return
        if not matching.answered:
            result.status = NOT_LOOKED_UP
            result.detail = (
                "not looked up: no scholarly index is configured"
                if not self.indexes
                else "not looked up: the entry has no identifier and too little title to search by"
            )
            return
        if entry.kind in OUT_OF_SCOPE_KINDS and not entry.dois:
            result.status = NOT_LOOKED_UP
            result.detail = (
                f"not looked up: a {entry.kind} without a DOI, which the indexes "
                f"({', '.join(sorted(matching.answered))}) do not know"
            )
            return
        result.status = NOT_FOUND_STATUS
        searched = "; ".join(dict.fromkeys(matching.searched)) or "nothing searchable"
        unresolved = (
            f" {', '.join(matching.unresolved)} is registered in neither."
            if matching.unresolved
            else ""
        )
        result.detail = f"not found (searched {searched})"
        result.findings.append(
            Finding(
                rule=NOT_FOUND.code,
                message=(
                    f"No scholarly index searched knows a work matching this entry (searched "
                    f"{searched}).{unresolved} It may still exist: check the entry against the "
                    f"work itself."
                ),
                found="; ".join(dict.fromkeys(matching.searched)),
            )
        )


def best_candidate(scored: list[tuple[tuple[float, bool, bool], IndexRecord]]) -> IndexRecord:
    """The candidate with the closest title and, among equal titles, author and year agreeing
    (a namesake listed first by the index is not the entry's work)."""
    return max(scored, key=lambda pair: pair[0])[1]


def _mark(result: EntryResult, index: str, kind: str, outcome: str) -> None:
    """Say what the last answer of `index` to a `kind` question turned out to be."""
    for position in range(len(result.asked) - 1, -1, -1):
        asked = result.asked[position]
        if asked.index == index and asked.kind == kind:
            result.asked[position] = Asked(asked.index, kind, asked.key, outcome, asked.cached)
            return


def _title_guess(entry: Entry) -> str | None:
    """For an entry whose title was not parsed: its longest sentence-like segment."""
    segments = [s.strip() for s in entry.citation_string.split(". ")]
    candidates = [
        s for s in segments if len(s.split()) >= 4 and not any(ch.isdigit() for ch in s[:4])
    ]
    return max(candidates, key=len) if candidates else None


def _title_match_confirmed(row: Any, entry: Entry, record: IndexRecord | None) -> bool:
    """A Retraction Watch row matched by title alone must also agree on author or year."""
    year = row["original_date"].year if row["original_date"] else None
    years = {entry.year} | ({record.year} if record and record.year else set())
    if year and any(y and abs(y - year) <= 1 for y in years):
        return True
    authors = row["authors"] or ""
    names = [entry.first_author] if entry.first_author else []
    names += [record.authors[0]] if record and record.authors else []
    return any(
        surname_matches(surname_of(name) or name, person)
        for name in names
        for person in authors.split(";")[:3]
    )


def _mismatch(entry: Entry, matching: _Matching) -> Finding:
    other = matching.other_work
    assert other is not None
    message = f"{matching.identifier} is the identifier of another work: {citation_of(other)}."
    if matching.record is not None and matching.record.doi:
        message += f" The work this entry names is {citation_of(matching.record)}."
    found = f"doi:{matching.record.doi}" if matching.record and matching.record.doi else None
    return Finding(
        rule=IDENTIFIER_MISMATCH.code,
        message=message,
        expected=matching.identifier,
        found=found,
        differences=[
            Difference(
                field="title",
                expected=entry.title or entry.citation_string[:200],
                found=clean_title(other.title),
            )
        ],
        evidence=[Evidence(origin=other.index, text=citation_of(other), url=other.url)],
        key=matching.identifier,
    )


def _differences(
    entry: Entry, raw: RawView, record: IndexRecord, matching: _Matching
) -> list[Difference]:
    differences = []
    if not title_printed_right(record, entry, raw):
        differences.append(
            Difference(
                field="title",
                expected=entry.title or entry.citation_string[:200],
                found=clean_title(record.title),
            )
        )
    author = first_author_ok(record, entry, raw)
    if author is False:
        differences.append(
            Difference(
                field="first_author",
                expected=entry.first_author or entry.raw[:60],
                found=record.authors[0],
            )
        )
    if year_ok(record, entry, raw) is False:
        differences.append(
            Difference(field="year", expected=str(entry.year), found=str(record.year))
        )
    if matching.unresolved and record.doi and matching.other_work is None:
        printed = matching.unresolved[0]
        if printed.startswith("doi:") and printed.removeprefix("doi:") != record.doi:
            differences.append(Difference(field="doi", expected=printed, found=f"doi:{record.doi}"))
    return differences


def _metadata_differs(record: IndexRecord, differences: list[Difference]) -> Finding:
    said = "; ".join(
        f"{d.field.replace('_', ' ')} {d.expected!r} (the index: {d.found!r})" for d in differences
    )
    return Finding(
        rule=METADATA_DIFFERS.code,
        message=f"The entry differs from {record.index}'s record of the work: {said}.",
        found=citation_of(record),
        differences=differences,
        evidence=[Evidence(origin=record.index, text=citation_of(record), url=record.url)],
        key="index",
    )


def _dedupe(notices: list[Notice]) -> list[Notice]:
    seen: dict[tuple[str, str | None], Notice] = {}
    for notice in notices:
        key = (notice.kind, notice.doi or notice.date)
        seen.setdefault(key, notice)
    return sorted(seen.values(), key=lambda n: n.date or "")


def _when(notice: Notice) -> str:
    parts = [p for p in (notice.date, f"doi:{notice.doi}" if notice.doi else None) if p]
    return f" ({', '.join(parts)})" if parts else ""


def _notice_evidence(notice: Notice) -> Evidence:
    return Evidence(
        origin=notice.source or RETRACTION_WATCH,
        text=f"{notice.label or notice.kind}{_when(notice)}",
        url=f"https://doi.org/{notice.doi}" if notice.doi else None,
    )


def _notice_findings(notices: list[Notice], retracted_flag: str | None) -> list[Finding]:
    """Retracted (error), or else an expression of concern and corrections (warnings); a
    retraction followed by a replacement or a reinstatement leaves the work standing."""
    retractions = [n for n in notices if n.kind in RETRACTING_KINDS]
    restored = [n for n in notices if n.kind in (REPLACEMENT, REINSTATEMENT)]
    last_retraction = max((n.date or "" for n in retractions), default=None)
    last_restore = max((n.date or "" for n in restored), default=None)
    stands = bool(restored) and (last_retraction is None or (last_restore or "") >= last_retraction)
    if (retractions or retracted_flag) and not stands:
        partial = retractions and all(n.kind == PARTIAL_RETRACTION for n in retractions)
        evidence = [_notice_evidence(n) for n in retractions]
        if not evidence and retracted_flag:
            evidence = [Evidence(origin=retracted_flag, text="marked retracted by the index")]
        when = _when(retractions[-1]) if retractions else ""
        return [
            Finding(
                rule=RETRACTED.code,
                message=(
                    f"The cited work {'has been partially' if partial else 'has been'}"
                    f" retracted{when}. Read the notice; cite it, or do not rely on the work."
                ),
                evidence=evidence,
            )
        ]
    findings = []
    concerns = [n for n in notices if n.kind == EXPRESSION_OF_CONCERN]
    if concerns:
        findings.append(
            Finding(
                rule=EXPRESSION_OF_CONCERN_RULE.code,
                message=(
                    f"An expression of concern was published about the cited work"
                    f"{_when(concerns[-1])}; it is not retracted."
                ),
                evidence=[_notice_evidence(n) for n in concerns],
            )
        )
    corrections = [n for n in notices if n.kind == CORRECTION]
    if restored:
        findings.append(
            Finding(
                rule=CORRECTION_RULE.code,
                message=(
                    f"The cited work was retracted and replaced by a corrected version "
                    f"under the same DOI{_when(restored[-1])}: it stands, changed. Check "
                    f"that what you cite is in the current version."
                ),
                evidence=[_notice_evidence(n) for n in [*retractions, *restored]],
                key="replacement",
            )
        )
    if corrections:
        findings.append(
            Finding(
                rule=CORRECTION_RULE.code,
                message=(
                    f"A correction was published for the cited work{_when(corrections[-1])}"
                    f"{f' ({len(corrections)} in all)' if len(corrections) > 1 else ''}."
                ),
                evidence=[_notice_evidence(n) for n in corrections],
                key="erratum",
            )
        )
    return findings
