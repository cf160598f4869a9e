"""Is the file linked to a reference entry the work the entry names? (CP311, CP312)

After linking, each entry is compared with its source's own description of itself: the title,
authors, year and DOI the parser read from the PDF's metadata and first page, and the first
page's text (which prints the title, the authors, a DOI, the year). Two findings:

- wrong-attachment (error): the file is another work - a mixed-up reference-manager attachment,
  a renamed PDF. It takes the title disagreeing (the first page does not print the entry's
  title and the PDF's own title is another) *and* a second, independent disagreement: the entry's
  first author is not the PDF's and not on its first page, the DOIs differ, the years differ
  beyond a preprint's, or the title is absent outright (hardly a word of it on the page).
- metadata-differs (warning): the same work (the title or the DOI agrees) with a year more than a
  preprint's year off, or another first author - each only where the first page backs the PDF's
  side and does not print the entry's.

Normal variation is neither (`citeproof.text.bibliographic`). Every threshold errs towards
silence: a page with little text, a short title or an entry without authors decides nothing.
Pure functions of the entry and the source's metadata, so benchmarks call them in-process.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

import msgspec

from citeproof.contracts.findings import (
    FROM_REFERENCE_LIST,
    FROM_SOURCE_METADATA,
    Difference,
    Evidence,
    Finding,
)
from citeproof.contracts.thesis import Reference, SourceMeta
from citeproof.pipeline import METADATA_DIFFERS, WRONG_ATTACHMENT
from citeproof.text.bibliographic import (
    PREPRINT_YEAR_SLACK,
    content_words,
    doi_in_text,
    normalise_doi,
    surname_in_text,
    surname_matches,
    title_agreement,
    title_coverage,
)
from citeproof.text.normalize import collapse_whitespace, comparison_key

# Title agreement (0..1) at which the PDF's own title is the entry's.
TITLE_AGREES: Final = 0.85
# Below this the PDF's own title is another one (titles of different works on one topic reach
# 0.6 at the 99th percentile, bench/results/attachment_checks.json).
TITLE_DISAGREES: Final = 0.7
# Share of the entry title's content words on the first page: at or above, the page prints it;
# below PAGE_LACKS_TITLE it does not; at or below PAGE_LACKS_TITLE_OUTRIGHT hardly a word of it.
PAGE_PRINTS_TITLE: Final = 0.8
PAGE_LACKS_TITLE: Final = 0.5
PAGE_LACKS_TITLE_OUTRIGHT: Final = 0.25
# A title with fewer content words is too generic to tell two works apart.
MIN_TITLE_WORDS: Final = 3
# A first page with fewer words cannot testify (a scan, a cover image).
MIN_PAGE_WORDS: Final = 60
# The front of the first page (title, authors, venue, dates) ends at the abstract or the first
# section, and no later than this many characters.
FRONT_CHARS: Final = 1500
# Fields other than the title that must disagree to call the file another work when the title
# neither agrees nor clearly disagrees (two works on one topic share title words).
MIN_DISAGREEMENTS_WITHOUT_TITLE = 2
# Evidence texts are cut to this many characters.
EVIDENCE_CHARS: Final = 300

_FRONT_END = re.compile(
    r"(?im)^\s*(?:abstract|summary|background|introduction|1\.?\s+introduction)\b"
)
_YEAR = re.compile(r"(?<!\d)(?:1[6-9]|20)\d\d(?!\d)")


class AttachmentConfig(msgspec.Struct, frozen=True, kw_only=True):
    """Thresholds of the entry-vs-source comparison (module docstring; docs/architecture.md)."""

    title_agrees: float = TITLE_AGREES
    title_disagrees: float = TITLE_DISAGREES
    page_prints_title: float = PAGE_PRINTS_TITLE
    page_lacks_title: float = PAGE_LACKS_TITLE
    page_lacks_title_outright: float = PAGE_LACKS_TITLE_OUTRIGHT
    min_title_words: int = MIN_TITLE_WORDS
    min_page_words: int = MIN_PAGE_WORDS
    year_slack: int = PREPRINT_YEAR_SLACK

    def validate(self) -> None:
        if not 0.0 < self.title_disagrees < self.title_agrees <= 1.0:
            raise ValueError(
                "attachment checks: need 0 < title_disagrees < title_agrees <= 1 "
                f"(got {self.title_disagrees}, {self.title_agrees})"
            )
        if not (
            0.0 <= self.page_lacks_title_outright
            <= self.page_lacks_title
            < self.page_prints_title
            <= 1.0
        ):  # fmt: skip
            raise ValueError(
                "attachment checks: need 0 <= page_lacks_title_outright <= page_lacks_title < "
                "page_prints_title <= 1"
            )
        if self.min_title_words < 1 or self.min_page_words < 1 or self.year_slack < 0:
            raise ValueError(
                "attachment checks: min_title_words and min_page_words must be positive, "
                "year_slack not negative"
            )


DEFAULT_ATTACHMENT_CONFIG: Final = AttachmentConfig()


class Comparison(msgspec.Struct, frozen=True, kw_only=True):
    """Field by field: True agrees, False disagrees, None cannot tell."""

    same_doi: bool | None
    title: bool | None
    title_absent: bool
    first_author: bool | None
    year: bool | None
    # The PDF's year as its first page shows it (None when it shows none).
    source_year: int | None = None


def _front(page: str) -> str:
    """The first page's front: title, authors, venue and dates, before the abstract."""
    head = page[:FRONT_CHARS]
    end = _FRONT_END.search(head, 1)
    return head[: end.start()] if end and end.start() > 40 else head


def _years_printed(text: str) -> set[int]:
    return {int(match.group(0)) for match in _YEAR.finditer(text)}


def compare(
    reference: Reference, source: SourceMeta, config: AttachmentConfig = DEFAULT_ATTACHMENT_CONFIG
) -> Comparison:
    """How the entry and the linked source compare, field by field."""
    page = source.first_page_text or ""
    usable_page = len(comparison_key(page).split()) >= config.min_page_words
    entry_doi, source_doi = normalise_doi(reference.doi), normalise_doi(source.doi)
    same_doi: bool | None = None
    if entry_doi and (entry_doi == source_doi or doi_in_text(entry_doi, page)):
        same_doi = True
    elif entry_doi and source_doi:
        same_doi = False

    title: bool | None = None
    title_absent = False
    front = _front(page)
    if reference.title and len(content_words(reference.title)) >= config.min_title_words:
        agreement = title_agreement(reference.title, source.title) if source.title else None
        # The title is printed at the top of the first page: its words there say it is this
        # work; their absence from the whole page that it is not (another work on the same
        # topic shares words with the abstract, rarely with the title block).
        on_front = title_coverage(reference.title, front) if usable_page else None
        on_page = title_coverage(reference.title, page) if usable_page else None
        if (agreement is not None and agreement >= config.title_agrees) or (
            on_front is not None and on_front >= config.page_prints_title
        ):
            title = True
        elif (
            on_front is not None
            and on_page is not None
            and on_front < config.page_lacks_title
            and on_page < config.page_prints_title
            and (agreement is None or agreement < config.title_disagrees)
        ):
            title = False
            title_absent = on_page <= config.page_lacks_title_outright

    first_author: bool | None = None
    if reference.authors and (source.authors or usable_page):
        first = reference.authors[0]
        # The authors are printed in the front (title block) of the first page: a surname
        # elsewhere on it is a name the text mentions ("as Chen et al. showed"), no author -
        # unless the front as cut does not hold the PDF's own first author either.
        front_names_its_author = bool(source.authors) and surname_in_text(source.authors[0], front)
        if any(surname_matches(first, person) for person in source.authors):
            first_author = True
        elif usable_page and surname_in_text(first, front):
            first_author = True
        elif usable_page and not front_names_its_author and surname_in_text(first, page):
            first_author = True
        elif usable_page and source.authors and surname_in_text(source.authors[0], page):
            # The PDF names its authors on its first page, and the entry's is not among them.
            first_author = False

    year, source_year = _compare_years(reference.year, source.year, page, usable_page, config)
    return Comparison(
        same_doi=same_doi,
        title=title,
        title_absent=title_absent,
        first_author=first_author,
        year=year,
        source_year=source_year,
    )


def titles_differ(
    reference: Reference, source: SourceMeta, config: AttachmentConfig = DEFAULT_ATTACHMENT_CONFIG
) -> bool:
    """The source is shown to be another work by its title, as wrong-attachment tells it: the
    first page does not print the entry's title and the PDF's own title is another. The linker
    takes no first author and year for the work then (ADR 0018)."""
    return compare(reference, source, config).title is False


def _compare_years(
    entry_year: int | None,
    metadata_year: int | None,
    page: str,
    usable_page: bool,
    config: AttachmentConfig,
) -> tuple[bool | None, int | None]:
    """(agree?, the PDF's year as shown). The PDF's year is the one its front prints (its venue
    line, its copyright): the metadata's only when the front prints it too, since a PDF's
    creation date dates the file, not the work. An entry year printed anywhere on the page
    (received, accepted, a preprint's date) is never a disagreement."""
    if entry_year is None:
        return None, metadata_year
    if metadata_year is not None and abs(entry_year - metadata_year) <= config.year_slack:
        return True, metadata_year
    if not usable_page:
        return None, metadata_year
    if entry_year in _years_printed(page):
        return True, entry_year
    front_years = _years_printed(_front(page))
    candidates = {metadata_year} & front_years if metadata_year is not None else set()
    candidates = candidates or front_years
    if not candidates:
        return None, metadata_year
    closest = min(candidates, key=lambda year: abs(year - entry_year))
    if abs(closest - entry_year) <= config.year_slack:
        return True, closest
    return False, closest


def _first_lines(text: str | None, limit: int = EVIDENCE_CHARS) -> str:
    return collapse_whitespace(text or "")[:limit]


def _differences(
    reference: Reference, source: SourceMeta, comparison: Comparison, fields: Sequence[str]
) -> list[Difference]:
    shown: list[Difference] = []
    for field in fields:
        if field == "title":
            found = source.title or _first_lines(source.first_page_text, 160) or "(none)"
            shown.append(Difference(field="title", expected=reference.title or "", found=found))
        elif field == "first_author":
            expected = reference.authors[0] if reference.authors else "(none)"
            found = source.authors[0] if source.authors else "(not on its first page)"
            shown.append(Difference(field="first_author", expected=expected, found=found))
        elif field == "year":
            shown.append(
                Difference(
                    field="year",
                    expected=str(reference.year or ""),
                    found=str(comparison.source_year or ""),
                )
            )
        elif field == "doi":
            shown.append(
                Difference(
                    field="doi", expected=reference.doi or "", found=normalise_doi(source.doi) or ""
                )
            )
    return shown


def _evidence(reference: Reference, source: SourceMeta) -> list[Evidence]:
    return [
        Evidence(origin=FROM_REFERENCE_LIST, text=reference.raw),
        Evidence(
            origin=FROM_SOURCE_METADATA,
            text=_first_lines(source.first_page_text) or source.title,
            page=1,
            document_id=str(source.document_id),
        ),
    ]


def attachment_findings(
    reference: Reference,
    source: SourceMeta,
    config: AttachmentConfig = DEFAULT_ATTACHMENT_CONFIG,
) -> list[Finding]:
    """CP311 or CP312 for one entry and the source linked to it ([] when they agree or when
    nothing can be told)."""
    comparison = compare(reference, source, config)
    others = [
        field
        for field, disagrees in (
            ("first_author", comparison.first_author is False),
            ("doi", comparison.same_doi is False),
            ("year", comparison.year is False),
        )
        if disagrees
    ]
    if comparison.same_doi is not True and comparison.title is not True:
        # Another work: another title and a second, independent field that disagrees (or the
        # title absent outright); or, when the titles merely share topic words, two fields.
        if (comparison.title is False and (others or comparison.title_absent)) or len(
            others
        ) >= MIN_DISAGREEMENTS_WITHOUT_TITLE:
            shown = source.title or _first_lines(source.first_page_text, 120)
            return [
                Finding(
                    rule=WRONG_ATTACHMENT.code,
                    message=f"The file linked to this entry is another work: “{shown}”.",
                    expected=reference.title,
                    found=shown,
                    differences=_differences(reference, source, comparison, ["title", *others]),
                    evidence=_evidence(reference, source),
                    # The other work's title, not the document's id: a baseline written on
                    # one machine must match a run on another.
                    key=comparison_key(shown)[:EVIDENCE_CHARS],
                )
            ]
        return []  # not shown to be the same work, nor another: nothing to compare
    differing = [
        field
        for field, differs in (
            ("year", comparison.year is False),
            ("first_author", comparison.first_author is False),
        )
        if differs
    ]
    if not differing:
        return []
    parts = []
    if "year" in differing:
        parts.append(f"year {reference.year} in the entry, {comparison.source_year} in the PDF")
    if "first_author" in differing:
        found = source.authors[0] if source.authors else "another author"
        parts.append(f"first author {reference.authors[0]} in the entry, {found} in the PDF")
    return [
        Finding(
            rule=METADATA_DIFFERS.code,
            message="The entry differs from the attached PDF: " + "; ".join(parts) + ".",
            differences=_differences(reference, source, comparison, differing),
            evidence=_evidence(reference, source),
            # Reference verification reports the same rule from an index: the origin keeps
            # the two apart in a baseline.
            key=f"{FROM_SOURCE_METADATA}:{'+'.join(differing)}",
        )
    ]
