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

from citeproof.retriever.verify.entries import PREPRINT, Entry, title_candidates
from citeproof.retriever.verify.records import PREPRINT_SERVERS, IndexRecord
from citeproof.text.bibliographic import (
    PREPRINT_YEAR_SLACK,
    content_words,
    latex_to_text,
    main_title,
    name_tokens,
    surname_matches,
    title_key,
)
from citeproof.text.names import name_key, surname_of
from citeproof.text.normalize import comparison_key, dehyphenate, fold_diacritics

# Identity: at or above, the record is the entry's work on its title alone.
SAME_WORK: Final = 0.88
# With the first author and the year agreeing, a title this close still names the same work
# (the entry misprints it: a word changed, words swapped).
SAME_WORK_WITH_SUPPORT: Final = 0.70
# The record's title printed in the entry this closely is the entry's title, verbatim but for
# normal variation.
PRINTED_EXACT: Final = 0.95
# Below, a record an identifier resolved to is another work (identifier-mismatch).
OTHER_WORK: Final = 0.55
# Between OTHER_WORK and SAME_WORK_WITH_SUPPORT without author support, an identifier's record
# is another work only below this (else the title merely differs).
OTHER_WORK_UNSUPPORTED: Final = 0.65
# "Printed right": the record's title appears in the entry at least this closely, in order.
PRINTED: Final = 0.92
# A record title found inside the entry must be at least this share of the entry's own title.
SUBSTRING_SHARE: Final = 0.75
# Words this long that differ by a letter or two are spellings of one word (British/American).
SPELLING_MIN_CHARS: Final = 6
SPELLING_SIMILARITY: Final = 85
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
_IDENTIFIERS = re.compile(r"\b10\.\d{4,9}/\S+|\b(?:https?://|www\.)\S+")


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
    # Without DOIs and URLs (they carry years and numbers that are not the entry's).
    plain: str
    # Every span of the entry that may be its title, as title keys.
    titles: tuple[str, ...]

    @classmethod
    def of(cls, entry: Entry) -> RawView:
        key = _key(entry.raw)
        folded = fold_diacritics(entry.raw).lower()
        plain = _IDENTIFIERS.sub(" ", folded)
        titles = tuple(dict.fromkeys(title_key(t) for t in title_candidates(entry)))
        return cls(key, _compact(key), frozenset(key.split()), folded, plain, titles)


def _title_variants(title: str) -> list[str]:
    """The record's title, and its main title when that still identifies the work."""
    whole = title_key(clean_title(title))
    variants = [whole] if whole else []
    head = title_key(main_title(clean_title(title)))
    if head and head != whole and len(content_words(head)) >= 2:
        variants.append(head)
    return variants


def title_printed_right(record: IndexRecord, entry: Entry, raw: RawView) -> bool:
    """The entry prints the record's title with every word, in order - or exactly its main
    title, the subtitle left out. Beyond the alignment score, a replaced word or two swapped
    words are caught."""
    whole, *heads = _title_variants(record.title) or [""]
    parsed = title_key(entry.searchable_title) if entry.searchable_title else ""
    # The printed span most like the record's title (words swapped are told from it).
    nearest = max(raw.titles, key=lambda t: fuzz.token_sort_ratio(whole, t), default=parsed)
    aligned = max(
        [_aligned(whole, parsed, raw), *(fuzz.ratio(whole, t) / 100.0 for t in raw.titles)]
    )
    if whole and aligned >= PRINTED and _all_present(whole, raw):
        return not _reordered(whole, nearest)
    return any(
        fuzz.ratio(head, printed) / 100.0 >= PRINTED and not _reordered(head, printed)
        for head in heads
        for printed in raw.titles
    )


def _all_present(title: str, raw: RawView) -> bool:
    return all(_present(word, raw) for word in title.split() if len(word) >= 3)


def _reordered(title: str, printed: str) -> bool:
    words, printed_words = title.split(), printed.split()
    return sorted(words) == sorted(printed_words) and words != printed_words


def _present(word: str, raw: RawView) -> bool:
    if word in raw.words or (len(word) >= 4 and word in raw.compact):
        return True
    # Spelling variants ("fertilisation", "fertilization") are the same word.
    return len(word) >= SPELLING_MIN_CHARS and any(
        fuzz.ratio(word, other) >= SPELLING_SIMILARITY for other in raw.words if len(other) >= 4
    )


def _aligned(title: str, parsed: str, raw: RawView) -> float:
    """How closely the whole title is printed: as the parsed title, or anywhere in the entry."""
    best = fuzz.ratio(title, parsed) / 100.0 if parsed else 0.0
    # Found anywhere in the entry (the parser may have cut the title wrong) - but not a short
    # title inside a longer printed one ("Deep convolutional networks" in "Very deep
    # convolutional networks for large-scale image recognition" is another title).
    if parsed and len(title) < SUBSTRING_SHARE * len(parsed):
        return best
    if raw.key and len(title) <= len(raw.key):
        best = max(best, fuzz.partial_ratio(title, raw.key) / 100.0)
        compact = _compact(title)
        if compact and len(compact) <= len(raw.compact):
            best = max(best, fuzz.partial_ratio(compact, raw.compact) / 100.0)
    return best


def printed_score(record: IndexRecord, entry: Entry, raw: RawView) -> float:
    """0..1: how closely, in order, the record's title is printed in the entry - its whole title
    anywhere in the entry, or its main title as the entry's whole title (a main title found
    inside a longer printed title is another title that starts alike)."""
    whole, *heads = _title_variants(record.title) or [""]
    parsed = title_key(entry.searchable_title) if entry.searchable_title else ""
    best = _aligned(whole, parsed, raw) if whole else 0.0
    for printed in raw.titles:
        best = max([best, *(fuzz.ratio(v, printed) / 100.0 for v in (whole, *heads) if v)])
    return best


def _coverage(words: list[str], raw: RawView) -> float:
    if not words:
        return 0.0
    present = sum(
        1 for word in words if word in raw.words or (len(word) >= 4 and word in raw.compact)
    )
    return present / len(words)


def identity_score(record: IndexRecord, entry: Entry, raw: RawView) -> float:
    """0..1: how surely the record's title is the title the entry names, in any word order.

    Word order is forgiven (token sort), extra or missing words are not - except a subtitle the
    entry leaves out (the record's main title is compared too)."""
    title = clean_title(record.title)
    variants = _title_variants(title)
    score = max(
        (fuzz.token_sort_ratio(v, printed) / 100.0 for v in variants for printed in raw.titles),
        default=0.0,
    )
    entry_words = content_words(entry.searchable_title)
    for variant in variants:
        record_words = content_words(variant)
        if len(record_words) < MIN_COVERAGE_WORDS:
            continue
        covered = _coverage(record_words, raw)
        if len(entry_words) >= MIN_COVERAGE_WORDS:
            # The entry's own title words must be the record's too (an altered title adds words
            # the record lacks; coverage alone would not see them).
            title_words = set(record_words) | {_compact(w) for w in record_words}
            back = sum(1 for w in entry_words if w in title_words) / len(entry_words)
            covered = min(covered, max(back, score))
        score = max(score, covered)
    printed = printed_score(record, entry, raw)
    # A partial alignment of any title against a long entry scores 0.4-0.6 by chance: only a
    # close one is evidence.
    return max(score, printed) if printed >= PRINTED_EVIDENCE else score


def is_short_title(record: IndexRecord) -> bool:
    """Too few words to identify a work alone ("Deep learning", "Grounded theory")."""
    return len(content_words(clean_title(record.title))) < MIN_COVERAGE_WORDS


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
    tokens = {t for t in name_tokens(person) if len(t) >= 2} | {name_key(surname_of(person))}
    tokens.discard("")
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


def year_ok(record: IndexRecord, entry: Entry, raw: RawView | None = None) -> bool | None:
    years = record.years
    if not years:
        return None
    printed = raw is not None and any(
        re.search(rf"(?<!\d){year}(?!\d)", raw.plain) for year in years
    )
    if entry.year is None:
        return True if printed else None
    if any(abs(entry.year - year) <= PREPRINT_YEAR_SLACK for year in years):
        return True
    if entry.kind == PREPRINT or record.is_preprint:
        # A preprint's year is its own, up to a few years before the version of record.
        return min(years) - PREPRINT_EARLY_YEARS <= entry.year <= max(years) + PREPRINT_YEAR_SLACK
    # The parser took a number of the title for the year ("Planck 2018 results"): the work's
    # year printed elsewhere counts.
    return bool(printed and str(entry.year) in record.title)


def is_same_work(
    printed: float, identity: float, author: bool | None, year: bool | None, short: bool
) -> bool:
    """Is a candidate the entry's work? The more the title differs, the more author and year
    must agree; a title printed verbatim may carry one wrong field (the entry's error)."""
    if short:
        return printed >= PRINTED_EXACT and author is True and year is not False
    if printed >= PRINTED_EXACT:
        return author is True or (author is None and year is not False) or year is True
    if identity >= SAME_WORK:
        return author is True and year is not False
    return identity >= SAME_WORK_WITH_SUPPORT and author is True and year is True


def is_other_work(identity: float, author: bool | None) -> bool:
    """For a record an identifier resolved to: a different work, not a misprinted title."""
    if identity < OTHER_WORK:
        return True
    return identity < OTHER_WORK_UNSUPPORTED and author is not True


def has_published_version(record: IndexRecord) -> str | None:
    """For a record of a preprint: where its version of record is (a sentence), or None. The
    record must show the preprint too (it is one, or lists an unpublished copy): a published
    work alone says nothing about a preprint the entry names."""
    if not record.is_preprint and all(version.published for version in record.versions):
        return None
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
