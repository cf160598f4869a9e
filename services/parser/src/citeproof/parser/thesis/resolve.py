"""Linking marker items to reference entries (numbers, surnames + year + suffix)."""

from __future__ import annotations

from collections import defaultdict

from citeproof.contracts.thesis import Reference
from citeproof.parser.thesis.markers import MarkerItem
from citeproof.text.names import is_organisation, name_key, surname_keys

# How much of an entry's start is searched for a marker's surname when author parsing failed.
ENTRY_HEAD_CHARS = 80


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

    def resolve(self, item: MarkerItem, *, strict: bool = False) -> Reference | None:
        """The entry ``item`` names, or None.

        ``strict``: the marker's first name must be the entry's first author; without it, a
        name among the entry's first words will do (author parsing may have failed).
        """
        if item.number is not None:
            return self.by_number.get(item.number)
        if not item.names:
            return None
        year = None if item.undated else item.year
        same_year = self.by_year.get(year, [])
        candidates = [ref for ref in same_year if _first_author_matches(item, ref)]
        if not candidates and not strict:
            # Author parsing failed on the entry: the name near the start of the entry will do.
            candidates = [ref for ref in same_year if _name_opens_entry(item.names[0], ref.raw)]
        if not candidates:
            return None
        return _choose(item, candidates)


def _first_author_matches(item: MarkerItem, reference: Reference) -> bool:
    marker_name = item.names[0]
    marker_key = name_key(marker_name)
    if not marker_key:
        return False
    if reference.authors:
        keys = surname_keys(reference.authors[0])
        if marker_key in keys:
            return True
        if is_organisation(reference.authors[0]) or is_organisation(marker_name):
            reference_key = name_key(reference.authors[0])
            return marker_key in reference_key or reference_key in marker_key
    if marker_name.isupper() and 2 <= len(marker_key) <= 8:
        # "(WHO, 2014)" for "World Health Organization (WHO). 2014.": an acronym.
        head = reference.authors[0] if reference.authors else reference.raw[:120]
        if _initials(head) == marker_key or f"({marker_name})" in reference.raw[:200]:
            return True
    # No parsed authors: the entry starts with the name as printed in the marker.
    return name_key(reference.raw[: len(marker_name) + 40]).startswith(marker_key)


def _initials(name: str) -> str:
    return "".join(word[0] for word in name.split() if word[:1].isupper()).lower()


def _name_opens_entry(marker_name: str, raw: str) -> bool:
    """The marker's surname among the first words of the entry (its author list)."""
    key = name_key(marker_name)
    return len(key) >= 3 and key in {name_key(word) for word in raw[:ENTRY_HEAD_CHARS].split()}


def _choose(item: MarkerItem, candidates: list[Reference]) -> Reference:
    """Pick among same first-author same-year entries: suffix, co-authors, then count."""
    if item.year_suffix:
        suffixed = [ref for ref in candidates if ref.year_suffix == item.year_suffix]
        if suffixed:
            return suffixed[0]
        if all(ref.year_suffix is None for ref in candidates):
            # Suffixes not printed in the list: "a" is the first such entry, "b" the second.
            position = ord(item.year_suffix) - ord("a")
            ordered = sorted(candidates, key=lambda ref: ref.ordinal)
            if 0 <= position < len(ordered):
                return ordered[position]
    if len(candidates) == 1:
        return candidates[0]
    scored = sorted(candidates, key=lambda ref: (-_coauthor_score(item, ref), ref.ordinal))
    return scored[0]


def _coauthor_score(item: MarkerItem, reference: Reference) -> int:
    score = 0
    author_count = len(reference.authors)
    if item.et_al:
        score += 2 if author_count >= 3 else 0
    elif len(item.names) == 2:
        score += 2 if author_count == 2 else 0
        if author_count >= 2 and name_key(item.names[1]) in surname_keys(reference.authors[1]):
            score += 3
    elif len(item.names) == 1:
        score += 2 if author_count == 1 else 0
    return score
