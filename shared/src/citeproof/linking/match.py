"""Scoring a reference entry against uploaded source documents."""

from __future__ import annotations

import re
from collections.abc import Mapping
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

_DOI_PREFIX = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", re.IGNORECASE)
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


def normalise_doi(doi: str | None) -> str | None:
    if not doi:
        return None
    return _DOI_PREFIX.sub("", doi.strip()).rstrip(".,;").lower() or None


def normalise_arxiv(arxiv_id: str | None) -> str | None:
    if not arxiv_id:
        return None
    return _ARXIV_VERSION.sub("", arxiv_id.strip().lower().removeprefix("arxiv:")) or None


def title_similarity(left: str | None, right: str | None) -> float:
    """0..1 similarity of two titles, robust to case, accents, punctuation and subtitles."""
    if not left or not right:
        return 0.0
    a, b = comparison_key(left), comparison_key(right)
    if not a or not b:
        return 0.0
    plain = fuzz.ratio(a, b)
    shorter, longer = sorted((len(a), len(b)))
    # Token-set similarity forgives a dropped subtitle, but only when most of the title remains
    # ("Attention" must not match "Attention is all you need").
    subset = fuzz.token_set_ratio(a, b) if shorter / longer >= 0.6 else 0.0
    return max(plain, subset) / 100.0


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

    if author_match and reference.year is not None and reference.year == source.year:
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


def link_reference(
    reference: Reference,
    sources: list[SourceMeta],
    config: LinkingConfig = DEFAULT_CONFIG,
) -> LinkResult:
    """The uploaded source ``reference`` cites, or ``document_id=None`` below the threshold.

    When two sources tie on authors + year alone, the link is ambiguous and refused.
    """
    scored = [(*_score_source(reference, source, config), source) for source in sources]
    scored.sort(key=lambda item: item[0], reverse=True)
    if not scored or scored[0][0] < config.accept_threshold:
        best_score = scored[0][0] if scored else 0.0
        return LinkResult(document_id=None, score=round(best_score, 3), method=LINK_NONE)
    score, method, source = scored[0]
    if (
        method == LINK_AUTHORS_YEAR
        and len(scored) > 1
        and scored[1][0] == score
        and scored[1][1] == LINK_AUTHORS_YEAR
    ):
        return LinkResult(document_id=None, score=round(score, 3), method=LINK_NONE)
    return LinkResult(document_id=source.document_id, score=round(score, 3), method=method)


def link_references(
    references: list[Reference],
    sources: list[SourceMeta],
    explicit: Mapping[str, UUID] | None = None,
    config: LinkingConfig = DEFAULT_CONFIG,
) -> dict[str, LinkResult]:
    """Link every reference (by label); an explicit label -> document mapping always wins."""
    explicit = explicit or {}
    results: dict[str, LinkResult] = {}
    for reference in references:
        if reference.label in explicit:
            results[reference.label] = LinkResult(
                document_id=explicit[reference.label], score=1.0, method=LINK_EXPLICIT
            )
        else:
            results[reference.label] = link_reference(reference, sources, config)
    return results
