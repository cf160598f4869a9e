"""Linking marker items to reference entries: numbers, or surname + year + suffix + author count.

A heuristic link is made only when everything the marker says agrees with exactly one entry: the
first author (surname compared without diacritics, particles or apostrophes), the year, the year
suffix ("2020a" is not "2020b"), and the number of authors the marker implies ("X" one, "X and Y"
two with Y the second author, "X et al." three or more). Anything less is no link: a citation
linked to the nearest entry would be judged against a source it never cited, which is worse than
reporting it unlinked. The entries that nearly matched are kept as candidates so that the report
can show the user what to fix.
"""

from __future__ import annotations

import re
from collections import defaultdict

import msgspec

from citeproof.contracts.thesis import Reference
from citeproof.parser.thesis.markers import MarkerItem
from citeproof.text.bibliographic import title_key
from citeproof.text.names import NAME_SUFFIXES, is_organisation, name_key, surname_keys

# At most this many near-miss entries are reported with an unlinked citation.
MAX_CANDIDATES = 3
# How much of an entry's start may hold its author list when looking for a co-author's name.
ENTRY_HEAD_CHARS = 200
# Weights of the agreements that order near-miss candidates (closest first).
YEAR_WEIGHT = 4
SECOND_AUTHOR_WEIGHT = 2
COUNT_WEIGHT = 2
SUFFIX_WEIGHT = 1
# Two copies of one work whose titles were read to different lengths share at least this many
# title words (the shorter title starts the longer).
MIN_SHARED_TITLE_WORDS = 6
# "et al." implies at least this many authors.
MIN_ET_AL_AUTHORS = 3
# An organisation's name found inside another name counts from this many letters.
MIN_CONTAINED_NAME_CHARS = 3

_ET_AL_IN_ENTRY = re.compile(r"\bet\s*al\b|\bothers\b", re.IGNORECASE)


class Resolution(msgspec.Struct, frozen=True):
    """The entry a marker item names (or None) and, when None, the entries it nearly named."""

    reference: Reference | None
    candidates: list[Reference] = []


class ReferenceIndex:
    """Look-ups over one document's reference list."""

    def __init__(self, references: list[Reference]) -> None:
        self.references = references
        self.by_number: dict[int, Reference] = {}
        self.by_year: dict[int | None, list[Reference]] = defaultdict(list)
        for reference in references:
            # "2/12" in a thesis with one list per chapter is entry 12 of list 2.
            local_label = reference.label.rsplit("/", 1)[-1]
            if local_label.isdigit():
                self.by_number[int(local_label)] = reference
            self.by_year[reference.year].append(reference)
        self.numeric = bool(self.by_number) and len(self.by_number) >= len(references) // 2

    def resolve(self, item: MarkerItem) -> Reference | None:
        """The entry ``item`` names, or None when no single entry agrees on everything."""
        return self.resolution(item).reference

    def resolution(self, item: MarkerItem) -> Resolution:
        if item.number is not None:
            return Resolution(self.by_number.get(item.number))
        if not item.names:
            return Resolution(None)
        year = None if item.undated else item.year
        same_author = [ref for ref in self.references if _first_author_matches(item, ref)]
        agreeing = [
            ref for ref in same_author if ref.year == year and _author_count_agrees(item, ref)
        ]
        # "(Weber et al., 2013)" beside "Weber W, ... (2013)" and "Von Weber C, ... (2013)": the
        # surname printed whole names its entry; the other matches only without its particle.
        whole = [ref for ref in agreeing if _names_whole_first_author(item, ref)]
        chosen = _by_suffix(item, whole) if 0 < len(whole) < len(agreeing) else None
        chosen = chosen or _by_suffix(item, agreeing)
        if chosen is not None:
            return Resolution(chosen)
        return Resolution(None, self._near_misses(item, year, same_author))

    def _near_misses(
        self, item: MarkerItem, year: int | None, same_author: list[Reference]
    ) -> list[Reference]:
        """Entries sharing the first author, or the year with the name among the co-authors."""
        key = name_key(item.names[0])
        co_authored = [
            ref
            for ref in self.by_year.get(year, [])
            if ref not in same_author and key and _names_author(key, ref)
        ]
        scored = [(_closeness(item, year, ref), ref) for ref in [*same_author, *co_authored]]
        scored.sort(key=lambda pair: (-pair[0], pair[1].ordinal))
        return [ref for _, ref in scored[:MAX_CANDIDATES]]


def _one_work(references: list[Reference]) -> Reference | None:
    """The first of several entries that are one work listed more than once (same title and
    year; the caller has matched the authors), else None. A title may be read shorter in one
    copy than in the other: a copy in Title Case, its journal run on after the title without a
    full stop, lost "First-in-human Trial" to the venue ("... Non-randomised, First-in-human
    Trial Nature Medicine, 73, 1-4."); a title that starts the other and holds at least
    MIN_SHARED_TITLE_WORDS words is the same."""
    if len(references) < 2 or len({ref.year for ref in references}) != 1:
        return None
    keys = sorted((title_key(ref.title) for ref in references), key=len)
    shortest = keys[0]
    if not shortest:
        return None
    if any(key != shortest for key in keys) and (
        len(shortest.split()) < MIN_SHARED_TITLE_WORDS
        or not all(key == shortest or key.startswith(shortest + " ") for key in keys)
    ):
        return None
    return min(references, key=lambda ref: ref.ordinal)


def _by_suffix(item: MarkerItem, agreeing: list[Reference]) -> Reference | None:
    """The one entry with the marker's year suffix, or None (missing or ambiguous). A work
    listed twice is one entry here: the duplicate is the list's fault (CP412), not the
    marker's."""
    if item.year_suffix:
        suffixed = [ref for ref in agreeing if ref.year_suffix == item.year_suffix]
        chosen = suffixed[0] if len(suffixed) == 1 else _one_work(suffixed)
        if chosen is not None:
            return chosen
        if suffixed or any(ref.year_suffix for ref in agreeing):
            return None
        # The list prints no suffixes for this author and year: by convention "a" is the first
        # such entry in list order, "b" the second.
        ordered = sorted(agreeing, key=lambda ref: ref.ordinal)
        position = ord(item.year_suffix) - ord("a")
        if len(ordered) >= 2 and 0 <= position < len(ordered):
            return ordered[position]
        if len(ordered) == 1 and position == 0:
            return ordered[0]
        return None
    unsuffixed = [ref for ref in agreeing if ref.year_suffix is None]
    return unsuffixed[0] if len(unsuffixed) == 1 else _one_work(unsuffixed)


def _closeness(item: MarkerItem, year: int | None, reference: Reference) -> int:
    score = YEAR_WEIGHT if reference.year == year else 0
    if _author_count_agrees(item, reference):
        score += COUNT_WEIGHT
    if len(item.names) >= 2 and _second_author_matches(item, reference):
        score += SECOND_AUTHOR_WEIGHT
    if item.year_suffix == reference.year_suffix:
        score += SUFFIX_WEIGHT
    return score


def _names_author(key: str, reference: Reference) -> bool:
    if any(key in surname_keys(author) for author in reference.authors):
        return True
    head = reference.raw[:ENTRY_HEAD_CHARS]
    return len(key) >= 3 and key in {name_key(word) for word in head.split()}


def _author_count(reference: Reference) -> tuple[int, bool]:
    """(authors listed, whether the entry says "et al."/"others" after them)."""
    if not reference.authors:
        return 0, False
    head_end = reference.raw.find(str(reference.year)) if reference.year else -1
    head = reference.raw[: head_end if head_end > 0 else ENTRY_HEAD_CHARS]
    return len(reference.authors), bool(_ET_AL_IN_ENTRY.search(head))


def _author_count_agrees(item: MarkerItem, reference: Reference) -> bool:
    count, open_ended = _author_count(reference)
    if count == 0:
        # Author parsing failed: the count cannot be confirmed, so it cannot agree.
        return False
    if item.et_al:
        return count >= MIN_ET_AL_AUTHORS or open_ended
    if open_ended:
        return False
    if len(item.names) == 1:
        return count == 1
    if count != len(item.names):
        return False
    return _second_author_matches(item, reference)


def _second_author_matches(item: MarkerItem, reference: Reference) -> bool:
    if len(reference.authors) < 2 or len(item.names) < 2:
        return False
    return all(
        name_key(name) in surname_keys(author)
        for name, author in zip(item.names[1:], reference.authors[1:], strict=False)
    )


def _first_author_matches(item: MarkerItem, reference: Reference) -> bool:
    marker_name = item.names[0]
    marker_key = name_key(marker_name)
    if not marker_key:
        return False
    if reference.authors:
        keys = surname_keys(reference.authors[0])
        if marker_key in keys or _suffixless_key(marker_name) in keys:
            return True
        if is_organisation(reference.authors[0]) or is_organisation(marker_name):
            reference_key = name_key(reference.authors[0])
            # A name within the other ("WHO" in "WHO Regional Office"), never a mere letter or
            # two ("e" is in "World Health Organization").
            shorter = min(len(marker_key), len(reference_key))
            if shorter >= MIN_CONTAINED_NAME_CHARS and (
                marker_key in reference_key or reference_key in marker_key
            ):
                return True
    if marker_name.isupper() and 2 <= len(marker_key) <= 8:
        # "(WHO, 2014)" for "World Health Organization (WHO). 2014.": an acronym.
        head = reference.authors[0] if reference.authors else reference.raw[:120]
        if _initials(head) == marker_key or f"({marker_name})" in reference.raw[:200]:
            return True
    # No parsed authors: the entry starts with the name as printed in the marker.
    return name_key(reference.raw[: len(marker_name) + 40]).startswith(marker_key)


def _names_whole_first_author(item: MarkerItem, reference: Reference) -> bool:
    """The marker prints the entry's first surname whole (particles and all)."""
    if not reference.authors or not item.names:
        return False
    whole = name_key(reference.authors[0])
    return whole in (name_key(item.names[0]), _suffixless_key(item.names[0]))


def _suffixless_key(name: str) -> str:
    """ "Daumé III" -> "daume": a marker may print the generational suffix or not."""
    words = name.split()
    while len(words) > 1 and words[-1].lower().strip(".,") in NAME_SUFFIXES:
        words.pop()
    return name_key(" ".join(words))


def _initials(name: str) -> str:
    return "".join(word[0] for word in name.split() if word[:1].isupper()).lower()
