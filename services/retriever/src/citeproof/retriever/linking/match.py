"""Scoring a reference entry against uploaded source documents."""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from uuid import UUID

import msgspec
from rapidfuzz import fuzz

from citeproof.contracts.thesis import (
    LINK_ARXIV,
    LINK_AUTHORS_YEAR,
    LINK_DOI,
    LINK_EXPLICIT,
    LINK_NONE,
    LINK_TITLE,
    LinkResult,
    Reference,
    SourceMeta,
)
from citeproof.retriever.linking.attachment import titles_differ
from citeproof.text.bibliographic import normalise_doi, title_similarity
from citeproof.text.names import name_key, surname_keys, surname_of
from citeproof.text.normalize import comparison_key

# A link scoring below this is no link; the reference's citations become source_missing.
ACCEPT_THRESHOLD = 0.7
# Scores per kind of evidence (0..1, comparable across methods).
DOI_SCORE = 1.0
ARXIV_SCORE = 0.98
# The reference's DOI/arXiv id printed on the source's first page, not in its metadata.
IDENTIFIER_ON_FIRST_PAGE_SCORE = 0.95
AUTHORS_YEAR_SCORE = 0.75
AUTHORS_YEAR_WITH_COAUTHORS_SCORE = 0.8

_ARXIV_VERSION = re.compile(r"v\d+$")


class LinkingConfig(msgspec.Struct, frozen=True, kw_only=True):
    """Thresholds of reference -> source linking (see docs/adr/0005-thesis-analysis.md)."""

    # Minimum score for any link.
    accept_threshold: float = ACCEPT_THRESHOLD
    # Title similarity (0..1) that links on its own; author/year agreement lowers the bar to
    # `title_with_support`.
    title_alone: float = 0.9
    title_with_support: float = 0.8
    # Titles shorter than this (normalised characters) are too generic to link by partial match
    # against first-page text.
    min_title_chars_for_page_search: int = 20
    # Partial similarity of the reference title within the first page's text.
    title_in_first_page: float = 0.92
    # How much first-page text is searched (the title and authors sit at its top).
    first_page_chars: int = 3000


DEFAULT_CONFIG = LinkingConfig()


def normalise_arxiv(arxiv_id: str | None) -> str | None:
    if not arxiv_id:
        return None
    return _ARXIV_VERSION.sub("", arxiv_id.strip().lower().removeprefix("arxiv:")) or None


def _first_author_matches(reference: Reference, source: SourceMeta) -> bool:
    if not reference.authors or not source.authors:
        return False
    reference_keys = surname_keys(reference.authors[0])
    return bool(reference_keys & surname_keys(surname_of(source.authors[0])))


def _coauthor_overlap(reference: Reference, source: SourceMeta) -> float:
    if len(reference.authors) < 2 or len(source.authors) < 2:
        return 0.0
    source_keys = set().union(*(surname_keys(surname_of(a)) for a in source.authors[1:]))
    shared = sum(1 for author in reference.authors[1:] if surname_keys(author) & source_keys)
    return shared / (len(reference.authors) - 1)


def _years_agree(reference: Reference, source: SourceMeta) -> bool:
    # A preprint and its published version are often a year apart.
    return (
        reference.year is not None
        and source.year is not None
        and abs(reference.year - source.year) <= 1
    )


def _score_source(
    reference: Reference, source: SourceMeta, config: LinkingConfig
) -> tuple[float, str]:
    reference_doi = normalise_doi(reference.doi)
    source_doi = normalise_doi(source.doi)
    if reference_doi and source_doi and reference_doi == source_doi:
        return DOI_SCORE, LINK_DOI
    reference_arxiv = normalise_arxiv(reference.arxiv_id)
    if reference_arxiv and reference_arxiv == normalise_arxiv(source.arxiv_id):
        return ARXIV_SCORE, LINK_ARXIV
    first_page = (source.first_page_text or "")[: config.first_page_chars]
    if first_page:
        lowered = first_page.lower()
        if reference_doi and reference_doi in lowered:
            return IDENTIFIER_ON_FIRST_PAGE_SCORE, LINK_DOI
        if reference_arxiv and reference_arxiv in lowered:
            return IDENTIFIER_ON_FIRST_PAGE_SCORE, LINK_ARXIV

    author_match = _first_author_matches(reference, source)
    years_agree = _years_agree(reference, source)
    best: tuple[float, str] = (0.0, LINK_NONE)

    similarity = title_similarity(reference.title, source.title)
    if reference_doi and source_doi:
        # Both carry a DOI and they differ: a same-titled work is likely another version.
        similarity *= 0.9
    if similarity >= config.title_alone or (
        similarity >= config.title_with_support and (author_match or years_agree)
    ):
        support = 0.05 if author_match else 0.0
        best = max(best, (min(0.99, similarity + support), LINK_TITLE))
    page_similarity = _title_on_page(reference, first_page, config) if not source.title else 0.0
    if page_similarity >= config.title_in_first_page:
        best = max(best, (page_similarity * 0.95, LINK_TITLE))

    if (
        author_match
        and reference.year is not None
        and reference.year == source.year
        # Another title is another work by the same author that year: no link (an entry
        # without its PDF was linked to the author's other paper, and CP311 then reported
        # the "wrong attachment" nobody attached).
        and not titles_differ(reference, source)
    ):
        overlap = _coauthor_overlap(reference, source)
        score = AUTHORS_YEAR_WITH_COAUTHORS_SCORE if overlap >= 0.5 else AUTHORS_YEAR_SCORE
        best = max(best, (score, LINK_AUTHORS_YEAR))
    elif not source.authors and first_page and reference.authors and reference.year:
        # No author metadata: the first author's surname and the year on the first page.
        surname = name_key(reference.authors[0])
        page_key = name_key(first_page[:1500])
        if surname and len(surname) >= 3 and surname in page_key:
            if str(reference.year) in first_page and page_similarity >= 0.6:
                best = max(best, (ACCEPT_THRESHOLD, LINK_AUTHORS_YEAR))
    return best


def _title_on_page(reference: Reference, first_page: str, config: LinkingConfig) -> float:
    """How well the reference title appears somewhere in the first page's text (0..1)."""
    if not reference.title or not first_page:
        return 0.0
    title_key = comparison_key(reference.title)
    if len(title_key) < config.min_title_chars_for_page_search:
        return 0.0
    return fuzz.partial_ratio(title_key, comparison_key(first_page)) / 100.0


def _without_first_page(source: SourceMeta, config: LinkingConfig) -> SourceMeta:
    """The source's metadata without what its first page prints: the text itself, and a DOI
    or arXiv id the page shows (the parser falls back to the first DOI printed on the page,
    so such a "metadata" DOI is page text too)."""
    page = (source.first_page_text or "")[: config.first_page_chars].lower()
    doi = normalise_doi(source.doi)
    arxiv = normalise_arxiv(source.arxiv_id)
    return msgspec.structs.replace(
        source,
        first_page_text=None,
        doi=None if doi and doi in page else source.doi,
        arxiv_id=None if arxiv and arxiv in page else source.arxiv_id,
    )


def _score_matrix(
    references: Sequence[Reference], sources: Sequence[SourceMeta], config: LinkingConfig
) -> list[list[tuple[float, str]]]:
    """scores[r][s]; a source that links several references while first-page text takes part
    loses its first-page evidence. The first page is text the file itself prints: one PDF
    printing the DOIs or titles of other references (in white, off the page, anywhere) must
    not claim them, and a real paper's first page identifies one work, not several."""
    scores = [[_score_source(r, s, config) for s in sources] for r in references]
    for j, source in enumerate(sources):
        if not source.first_page_text:
            continue
        linked = [i for i, row in enumerate(scores) if row[j][0] >= config.accept_threshold]
        if len(linked) < 2:
            continue
        bare = _without_first_page(source, config)
        rescored = {i: _score_source(references[i], bare, config) for i in linked}
        if any(rescored[i] != scores[i][j] for i in linked):
            for i, score in rescored.items():
                scores[i][j] = score
    return scores


def assign_sources(
    references: Sequence[Reference],
    sources: Sequence[SourceMeta],
    config: LinkingConfig = DEFAULT_CONFIG,
) -> list[LinkResult]:
    """Link references to sources one-to-one, strongest evidence first (one result per
    reference, in order).

    A global assignment, not each reference's best match: a source links at most one
    reference, so a file cannot collect the citations of references it merely mentions. Pairs
    are taken by descending score; at each score, a reference or source that appears in more
    than one open pair is ambiguous, and every pair it is in is refused (both sides stay
    unlinked rather than guessed). Greedy rather than a maximum-total assignment on purpose:
    a total can trade a DOI link for two fuzzy title links.
    """
    scores = _score_matrix(references, sources, config)
    pairs = sorted(
        (
            (round(score, 3), method, i, j)
            for i, row in enumerate(scores)
            for j, (score, method) in enumerate(row)
            if score >= config.accept_threshold
        ),
        key=lambda pair: pair[0],
        reverse=True,
    )
    results: list[LinkResult | None] = [None] * len(references)
    taken_references: set[int] = set()
    taken_sources: set[int] = set()
    for _, tier in itertools.groupby(pairs, key=lambda pair: pair[0]):
        open_pairs = [p for p in tier if p[2] not in taken_references and p[3] not in taken_sources]
        per_reference = Counter(p[2] for p in open_pairs)
        per_source = Counter(p[3] for p in open_pairs)
        for score, method, i, j in open_pairs:
            taken_references.add(i)
            taken_sources.add(j)
            if per_reference[i] == 1 and per_source[j] == 1:
                results[i] = LinkResult(
                    document_id=sources[j].document_id, score=score, method=method
                )
    return [
        found
        if found is not None
        else LinkResult(
            document_id=None,
            score=round(max((score for score, _ in scores[i]), default=0.0), 3),
            method=LINK_NONE,
        )
        for i, found in enumerate(results)
    ]


def link_reference(
    reference: Reference,
    sources: Sequence[SourceMeta],
    config: LinkingConfig = DEFAULT_CONFIG,
) -> LinkResult:
    """The uploaded source ``reference`` cites, or ``document_id=None`` below the threshold or
    when two sources tie for it. Alone, without the other references: use `assign_sources`
    (or `link_references`) to link a reference list."""
    return assign_sources([reference], sources, config)[0]


def link_references(
    references: list[Reference],
    sources: list[SourceMeta],
    explicit: Mapping[str, UUID] | None = None,
    config: LinkingConfig = DEFAULT_CONFIG,
) -> dict[str, LinkResult]:
    """Link every reference (by label); an explicit label -> document mapping always wins and
    may share a source, the others are assigned one-to-one (`assign_sources`)."""
    explicit = explicit or {}
    heuristic = [reference for reference in references if reference.label not in explicit]
    results = dict(
        zip(
            (reference.label for reference in heuristic),
            assign_sources(heuristic, sources, config),
            strict=True,
        )
    )
    for reference in references:
        if reference.label in explicit:
            results[reference.label] = LinkResult(
                document_id=explicit[reference.label], score=1.0, method=LINK_EXPLICIT
            )
    return {reference.label: results[reference.label] for reference in references}
