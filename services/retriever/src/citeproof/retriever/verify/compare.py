"""Is an index's record the work an entry names, and where do the two differ beyond normal
variation?

Two questions with different tolerances:
- identity ("is this the same work?") forgives word order, a dropped subtitle, accents, LaTeX,
  case, dashes, and a parser that took the wrong span for the title: the record's title is
  looked for in the printed entry itself, not only in the parsed title field;
- "does the entry print it right?" is stricter: the record's title (or its main title) must
  appear in the printed entry nearly verbatim, in order; the record's first author must be the
  entry's first author; a year may differ by one (a preprint and its version of record), not
  by more.

Every threshold here was set on the benchmark's build seed (bench/references) and is named.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from rapidfuzz import fuzz

from citeproof.retriever.verify.entries import PREPRINT, Entry
from citeproof.retriever.verify.records import PREPRINT_SERVERS, IndexRecord
from citeproof.text.bibliographic import (
    PREPRINT_YEAR_SLACK,
    content_words,
    latex_to_text,
    main_title,
    name_tokens,
    surname_matches,
    title_agreement,
    title_key,
)
from citeproof.text.normalize import comparison_key, dehyphenate, fold_diacritics

# Identity: at or above, the record is the entry's work on its title alone.
SAME_WORK: Final = 0.88
# With the first author and the year agreeing, a title this close still names the same work
# (the entry misprints it: a word changed, words swapped).
SAME_WORK_WITH_SUPPORT: Final = 0.70
# Below, a record an identifier resolved to is another work (identifier-mismatch).
OTHER_WORK: Final = 0.55
# Between OTHER_WORK and SAME_WORK_WITH_SUPPORT without author support, an identifier's record
# is another work only below this (else the title merely differs).
OTHER_WORK_UNSUPPORTED: Final = 0.65
# "Printed right": the record's title appears in the entry at least this closely, in order.
PRINTED: Final = 0.92
# Below this, a printed-title alignment is chance, not evidence of identity.
PRINTED_EVIDENCE: Final = 0.80
# A title with fewer content words than this identifies nothing by word coverage alone.
MIN_COVERAGE_WORDS: Final = 3
# The first author's surname must appear within this many characters of the printed entry's
# start (author lists come first in every style but a few; parsed fields cover those).
AUTHOR_HEAD_CHARS: Final = 80
# A preprint is cited with its own year, often before the version of record.
PREPRINT_EARLY_YEARS: Final = 3

# Index titles of retracted works often carry the notice ("RETRACTED: ...").
_NOTICE_PREFIX = re.compile(
    r"^\s*(?:\[?\s*(?:retracted|withdrawn|retraction|removed)(?:\s+article)?\s*\]?\s*[:.\-–—]\s*)+",
    re.IGNORECASE,
)
_COMPACT = re.compile(r"[^a-z0-9]+")


def clean_title(title: str) -> str:
    return _NOTICE_PREFIX.sub("", title).strip() or title


def _key(text: str) -> str:
    return comparison_key(dehyphenate(latex_to_text(text)))


def _compact(key: str) -> str:
    return _COMPACT.sub("", key)


@dataclass(frozen=True)
class RawView:
    """The printed entry prepared for comparisons (computed once per entry)."""

    key: str
    compact: str
    words: frozenset[str]
    folded: str

    @classmethod
    def of(cls, entry: Entry) -> RawView:
        key = _key(entry.raw)
        return cls(key, _compact(key), frozenset(key.split()), fold_diacritics(entry.raw).lower())


def _title_variants(title: str) -> list[str]:
    """The record's title, and its main title when that still identifies the work."""
    whole = title_key(clean_title(title))
    variants = [whole] if whole else []
    head = title_key(main_title(clean_title(title)))
    if head and head != whole and len(content_words(head)) >= 2:
        variants.append(head)
    return variants


def printed_score(record: IndexRecord, entry: Entry, raw: RawView) -> float:
    """0..1: how closely, in order, the record's title is printed in the entry."""
    best = 0.0
    parsed = title_key(entry.title) if entry.title else ""
    for variant in _title_variants(record.title):
        if parsed:
            best = max(best, fuzz.ratio(variant, parsed) / 100.0)
        if raw.key and len(variant) <= len(raw.key):
            best = max(best, fuzz.partial_ratio(variant, raw.key) / 100.0)
            compact = _compact(variant)
            if compact and len(compact) <= len(raw.compact):
                best = max(best, fuzz.partial_ratio(compact, raw.compact) / 100.0)
    return best


def _coverage(words: list[str], raw: RawView) -> float:
    if not words:
        return 0.0
    present = sum(
        1 for word in words if word in raw.words or (len(word) >= 4 and word in raw.compact)
    )
    return present / len(words)


def identity_score(record: IndexRecord, entry: Entry, raw: RawView) -> float:
    """0..1: how surely the record's title is the title the entry names, in any word order."""
    title = clean_title(record.title)
    score = title_agreement(entry.title, title) if entry.title else 0.0
    record_words = content_words(title)
    if len(record_words) >= MIN_COVERAGE_WORDS:
        covered = _coverage(record_words, raw)
        entry_words = content_words(entry.searchable_title)
        if len(entry_words) >= MIN_COVERAGE_WORDS:
            # The entry's own title words must be the record's too (an altered title adds words
            # the record lacks; coverage alone would not see them).
            title_words = set(record_words) | {_compact(w) for w in record_words}
            back = sum(1 for w in entry_words if w in title_words) / len(entry_words)
            covered = min(covered, max(back, score))
        score = max(score, covered)
    printed = printed_score(record, entry, raw) if len(record_words) >= 2 else 0.0
    # A partial alignment of any title against a long entry scores 0.4-0.6 by chance: only a
    # close one is evidence.
    return max(score, printed) if printed >= PRINTED_EVIDENCE else score


def first_author_ok(record: IndexRecord, entry: Entry, raw: RawView) -> bool | None:
    """Is the record's first author the entry's first author? None when either lacks one."""
    if not record.authors:
        return None
    first = record.authors[0]
    if entry.first_author and surname_matches(entry.first_author, first):
        return True
    # The parsed author list may be wrong: look for the surname at the head of the printed entry,
    # before any other author of the record.
    position = _name_position(first, raw.folded)
    if position is None or position > AUTHOR_HEAD_CHARS:
        return False if entry.first_author or entry.raw else None
    others = [_name_position(other, raw.folded) for other in record.authors[1:4]]
    return all(other is None or other >= position for other in others)


def _name_position(person: str, folded_raw: str) -> int | None:
    tokens = [t for t in name_tokens(person) if len(t) >= 2]
    positions = []
    for token in tokens:
        match = re.search(rf"\b{re.escape(token)}\b", folded_raw)
        if match:
            positions.append(match.start())
    return min(positions) if positions else None


def author_in_record(record: IndexRecord, entry: Entry) -> bool:
    """The entry's first author is one of the record's authors (perhaps not the first)."""
    return bool(entry.first_author) and any(
        surname_matches(entry.first_author, person) for person in record.authors[:20]
    )


def year_ok(record: IndexRecord, entry: Entry) -> bool | None:
    if entry.year is None or not record.years:
        return None
    years = record.years
    if any(abs(entry.year - year) <= PREPRINT_YEAR_SLACK for year in years):
        return True
    if entry.kind == PREPRINT or record.is_preprint:
        # A preprint's year is its own, up to a few years before the version of record.
        return min(years) - PREPRINT_EARLY_YEARS <= entry.year <= max(years) + PREPRINT_YEAR_SLACK
    return False


def is_same_work(identity: float, author: bool | None, year: bool | None) -> bool:
    if identity >= SAME_WORK:
        return author is not False or year is not False
    return identity >= SAME_WORK_WITH_SUPPORT and author is True and year is not False


def is_other_work(identity: float, author: bool | None) -> bool:
    """For a record an identifier resolved to: a different work, not a misprinted title."""
    if identity < OTHER_WORK:
        return True
    return identity < OTHER_WORK_UNSUPPORTED and author is not True


def has_published_version(record: IndexRecord) -> str | None:
    """For a record of a preprint: where its version of record is (a sentence), or None."""
    for version in record.versions:
        if version.published and (version.doi or version.venue):
            venue = version.venue or ""
            if any(server in venue.lower() for server in PREPRINT_SERVERS):
                continue
            where = venue or "a journal"
            return f"{where}, doi:{version.doi}" if version.doi else where
    return None


def cites_preprint(entry: Entry, record: IndexRecord) -> bool:
    return entry.kind == PREPRINT or record.is_preprint
