"""Linking through the user's own library: thesis reference -> library entry -> uploaded source.

A session may hold a bibliography export (kind `bibliography`) next to the thesis and its
sources. Its entries carry citation keys, DOIs and the files the reference manager attached, so
two links become exact instead of inferred:

1. thesis reference -> library entry: the citation key (a LaTeX `\\cite` key or a Word field's
   item), else the DOI, else the normalised title (with first author or year agreeing), else
   first author + year when exactly one entry has them. A weaker or ambiguous match links to no
   entry and reports its candidates: never a guess.
2. library entry -> uploaded source: an uploaded file whose name is the name of one of the
   entry's attachments (the CLI uploads attachments under their own names), else the ordinary
   source linker on the entry's clean metadata (DOI first).

Explicit links (overrides, keys, attachments) outrank DOI matches, which outrank heuristics. A
PDF attached to two entries is allowed: explicit links are not forced one-to-one.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from typing import Final
from uuid import UUID

import msgspec

from citeproof.contracts.thesis import (
    LINK_ARXIV,
    LINK_ATTACHMENT,
    LINK_DOI,
    LINK_NONE,
    LinkResult,
    Reference,
    SourceMeta,
)
from citeproof.library.attachments import attachment_basename
from citeproof.retriever.linking.match import link_reference
from citeproof.text.bibliographic import normalise_doi, title_similarity
from citeproof.text.names import surname_keys
from citeproof.text.normalize import fold_diacritics

# How a thesis reference found its library entry (first half of a library link's method).
ENTRY_BY_KEY: Final = "key"
ENTRY_BY_DOI: Final = "doi"
ENTRY_BY_TITLE: Final = "title"
ENTRY_BY_AUTHORS_YEAR: Final = "authors_year"
ENTRY_WEAK: Final = "weak"
# Prefix of every `run_reference_links.method` decided through a library ("library:key+attachment").
LIBRARY_METHOD_PREFIX: Final = "library:"

# Confidence of each way to find the entry (0..1, comparable with the source linker's scores).
KEY_CONFIDENCE: Final = 1.0
DOI_CONFIDENCE: Final = 1.0
AUTHORS_YEAR_CONFIDENCE: Final = 0.85
# Title similarity that finds an entry on its own, and with first author or year agreeing.
TITLE_ALONE: Final = 0.95
TITLE_WITH_SUPPORT: Final = 0.88
# Rank added per agreeing first author and year when titles tie.
TITLE_TIE_BREAK: Final = 0.05
# Below this, two titles are different works (vetoes an authors+year match).
TITLE_CONTRADICTS: Final = 0.6
# Signals that make an entry a candidate worth showing when nothing links.
CANDIDATE_TITLE: Final = 0.6
MAX_CANDIDATES: Final = 3
_NOT_ALNUM = re.compile(r"[^a-z0-9.]+")


class LibraryLink(msgspec.Struct, frozen=True, kw_only=True):
    """What the library says about one thesis reference."""

    # The library entry's key, None when no entry matched strongly enough.
    entry_key: str | None
    entry_method: str
    entry_confidence: float
    # The source link (document_id None: the entry has no uploaded source).
    link: LinkResult
    # Weak matches only: keys of the entries it almost matched, closest first.
    candidates: list[str] = []
    # File names the entry attaches that no uploaded source has (reported, never guessed).
    missing_attachments: list[str] = []
    # The entry's metadata merged with the reference's, when the source was found by the
    # ordinary linker rather than an attachment: a reference list is linked one-to-one
    # (`assign_sources`), so the caller links this one together with the others and
    # completes the link with `with_source`.
    heuristic: Reference | None = None
    # Attachments the entry names, reported as missing when no source links to it.
    attachments: list[str] = []


def with_source(decision: LibraryLink, found: LinkResult) -> LibraryLink:
    """A library decision whose entry's source the ordinary linker found (`found`)."""
    link = LinkResult(
        document_id=found.document_id,
        score=round(min(decision.entry_confidence, found.score), 3),
        method=f"{LIBRARY_METHOD_PREFIX}{decision.entry_method}+{found.method}",
    )
    # Attachments no uploaded file matched, reported when nothing else found the source.
    missing = [] if found.document_id else decision.attachments
    return msgspec.structs.replace(decision, link=link, missing_attachments=missing)


def _is_key_only(reference: Reference) -> bool:
    """A reference known only by its key (a LaTeX `\\cite` whose .bib came separately)."""
    return not reference.title and not reference.authors and not reference.doi


def _first_author_agrees(left: Reference, right: Reference) -> bool:
    if not left.authors or not right.authors:
        return False
    return bool(surname_keys(left.authors[0]) & surname_keys(right.authors[0]))


def _metadata_agrees(reference: Reference, entry: Reference) -> bool:
    if normalise_doi(reference.doi) and normalise_doi(reference.doi) == normalise_doi(entry.doi):
        return True
    if title_similarity(reference.title, entry.title) >= TITLE_WITH_SUPPORT:
        return True
    return _first_author_agrees(reference, entry) and reference.year == entry.year


def find_entry(
    reference: Reference, library: list[Reference]
) -> tuple[Reference | None, str, float, list[str]]:
    """(entry, how, confidence, candidates) for one thesis reference."""
    by_key = {entry.label: entry for entry in library}
    entry = by_key.get(reference.label)
    # A numeric label "5" may equal an EndNote record id "5": a key decides alone only for a
    # reference that is nothing but its key, otherwise the metadata must agree too.
    if entry is not None and (_is_key_only(reference) or _metadata_agrees(reference, entry)):
        return entry, ENTRY_BY_KEY, KEY_CONFIDENCE, []
    doi = normalise_doi(reference.doi)
    if doi:
        for entry in library:
            if normalise_doi(entry.doi) == doi:
                return entry, ENTRY_BY_DOI, DOI_CONFIDENCE, []
    # (rank, similarity, entry): two works may share a title (a trial and its re-analysis), so
    # agreeing first author and year rank a title match; a tie in rank is ambiguous.
    scored: list[tuple[float, float, Reference]] = []
    for entry in library:
        similarity = title_similarity(_without_journal(reference.title, entry), entry.title)
        author = _first_author_agrees(reference, entry)
        year = reference.year is not None and reference.year == entry.year
        if similarity >= TITLE_ALONE or (similarity >= TITLE_WITH_SUPPORT and (author or year)):
            rank = similarity + TITLE_TIE_BREAK * (int(author) + int(year))
            scored.append((rank, similarity, entry))
    scored.sort(key=lambda item: item[0], reverse=True)
    if scored and (len(scored) == 1 or scored[0][0] > scored[1][0]):
        return scored[0][2], ENTRY_BY_TITLE, round(scored[0][1], 3), []
    tied = [entry for rank, _, entry in scored if rank == scored[0][0]] if scored else []
    if len(tied) > 1 and _one_work(tied):
        # The library holds one work twice (a duplicate the reference manager kept): either
        # item is the work, and the one with the attachment is its file.
        chosen = next((entry for entry in tied if entry.attachments), tied[0])
        return chosen, ENTRY_BY_TITLE, round(scored[0][1], 3), []
    same_author_year = [
        entry
        for entry in library
        if _first_author_agrees(reference, entry)
        and reference.year is not None
        and entry.year == reference.year
        and (
            not reference.title
            or not entry.title
            or title_similarity(reference.title, entry.title) >= TITLE_CONTRADICTS
        )
    ]
    if not scored and (len(same_author_year) == 1 or _one_work(same_author_year)):
        chosen = next((e for e in same_author_year if e.attachments), same_author_year[0])
        return chosen, ENTRY_BY_AUTHORS_YEAR, AUTHORS_YEAR_CONFIDENCE, []
    return None, ENTRY_WEAK, 0.0, _candidates(reference, library)


def _without_journal(title: str | None, entry: Reference) -> str | None:
    """The thesis entry's title without the library entry's journal at its end: a list printed
    without a full stop after the title runs it into the journal ("Review of Bats and SARS The
    Lancet Respiratory Medicine"), and a short title is then too little of the whole to match."""
    if not title or not entry.venue:
        return title
    folded, journal = title.casefold().rstrip(" .,"), entry.venue.casefold().strip(" .,")
    if journal and folded.endswith(journal) and len(folded) > len(journal):
        return title[: len(folded) - len(journal)].rstrip(" .,:;")
    return title


def _one_work(entries: list[Reference]) -> bool:
    """The same work every time: one title, year, first author and DOI, and no two different
    attached files."""
    if len(entries) < 2:
        return False
    first = entries[0]
    files = {frozenset(attachment_basename(a) for a in e.attachments) for e in entries}
    files.discard(frozenset())
    return len(files) <= 1 and all(
        title_similarity(first.title, entry.title) >= 1.0
        and entry.year == first.year
        and _first_author_agrees(first, entry)
        and normalise_doi(entry.doi) == normalise_doi(first.doi)
        for entry in entries[1:]
    )


def _candidates(reference: Reference, library: list[Reference]) -> list[str]:
    ranked: list[tuple[float, str]] = []
    for entry in library:
        similarity = title_similarity(reference.title, entry.title)
        author = _first_author_agrees(reference, entry)
        if similarity >= CANDIDATE_TITLE or author:
            ranked.append((similarity + (0.5 if author else 0.0), entry.label))
    ranked.sort(key=lambda item: item[0], reverse=True)
    return [label for _, label in ranked[:MAX_CANDIDATES]]


def _file_key(name: str) -> str:
    """A file name compared the way upload sanitising cannot disturb: case, accents, spaces and
    reserved characters ignored, digits kept ("Smith 2020: A.pdf" ~ "smith_2020_ a.pdf")."""
    folded = fold_diacritics(unicodedata.normalize("NFKC", name)).lower()
    return _NOT_ALNUM.sub("", folded)


def attachment_link(entry: Reference, filenames: Mapping[UUID, str]) -> UUID | None:
    """The uploaded source whose file name is one of the entry's attachments, if exactly one."""
    wanted = {_file_key(attachment_basename(path)) for path in entry.attachments}
    if not wanted:
        return None
    matches = {doc for doc, name in filenames.items() if _file_key(name) in wanted}
    return matches.pop() if len(matches) == 1 else None


def link_through_library(
    reference: Reference,
    library: list[Reference],
    sources: list[SourceMeta],
    filenames: Mapping[UUID, str],
) -> LibraryLink | None:
    """The library's answer for one thesis reference; None when the library has nothing to say
    (no library, or no entry and no candidate): the ordinary linker decides then."""
    own_attachment = attachment_link(reference, filenames) if reference.attachments else None
    if own_attachment is not None:
        # A LaTeX project's own .bib carried the file: as exact as a key.
        return LibraryLink(
            entry_key=reference.label,
            entry_method=ENTRY_BY_KEY,
            entry_confidence=KEY_CONFIDENCE,
            link=LinkResult(
                document_id=own_attachment,
                score=KEY_CONFIDENCE,
                method=f"{LIBRARY_METHOD_PREFIX}{ENTRY_BY_KEY}+{LINK_ATTACHMENT}",
            ),
        )
    if reference.attachments and all(entry.label != reference.label for entry in library):
        # The thesis's own .bib named files none of which was uploaded: report them.
        library = [*library, reference]
    if not library:
        return None
    entry, how, confidence, candidates = find_entry(reference, library)
    if entry is None:
        if not candidates:
            return None
        found = link_reference(reference, sources)
        if found.document_id is not None and found.method in (LINK_DOI, LINK_ARXIV):
            # Not in the (perhaps partial) library, but an uploaded source carries its DOI:
            # the ordinary linker links it, and that is no guess.
            return None
        return LibraryLink(
            entry_key=None,
            entry_method=ENTRY_WEAK,
            entry_confidence=0.0,
            link=LinkResult(document_id=None, score=0.0, method=LINK_NONE),
            candidates=candidates,
        )
    document = attachment_link(entry, filenames)
    heuristic = None
    if document is not None:
        link = LinkResult(
            document_id=document,
            score=confidence,
            method=f"{LIBRARY_METHOD_PREFIX}{how}+{LINK_ATTACHMENT}",
        )
    else:
        merged = msgspec.structs.replace(
            entry,
            doi=entry.doi or reference.doi,
            arxiv_id=entry.arxiv_id or reference.arxiv_id,
            title=entry.title or reference.title,
            authors=entry.authors or reference.authors,
            year=entry.year or reference.year,
        )
        heuristic = merged
        link = LinkResult(document_id=None, score=0.0, method=LINK_NONE)
    decision = LibraryLink(
        entry_key=entry.label,
        entry_method=how,
        entry_confidence=confidence,
        link=link,
        heuristic=heuristic,
        attachments=[attachment_basename(a) for a in entry.attachments],
    )
    if heuristic is None:
        return decision
    # Alone, the entry's source is its best match; a reference list is then linked
    # one-to-one by the caller (`with_source`).
    return with_source(decision, link_reference(heuristic, sources))
