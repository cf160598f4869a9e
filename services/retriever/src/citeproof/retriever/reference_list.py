"""The reference list's own rules (CP411-CP415), computed at planning over the whole list.

- uncited-entry (CP411, on the entry): no citation links to it. Not for an entry an unlinked
  citation nearly names (that citation's finding says what is wrong), not when no citation
  links at all (the markers, not the list, are the problem), not for a LaTeX thesis's .bib
  (BibTeX prints only what is cited), not for one copy of a work listed twice whose other copy
  is cited (CP412 reports the pair).
- duplicate-entry (CP412, on the later entry): the same work twice in one list - the same DOI,
  or the same title, first author and year.
- ambiguous-author-year (CP414, on each later entry): entries that a marker cannot tell apart -
  same first author, year and marker form ("Smith", "Smith and Jones", "Smith et al.") - and
  none has a year suffix. Author-year lists only: a number tells numbered entries apart.
- ambiguous-suffix (CP413, on the citation): an unlinked citation names a year suffix the list
  lacks ("2020b" where the list has one Smith 2020), or none where the list has only suffixed
  entries for that author and year; also a linked one naming a suffix its entry lacks ("2020a",
  which the parser links to the list's one Smith 2020 by convention).
- marker-beyond-list (CP415, on the citation): an unlinked numeric citation beyond the list's
  last number.

A citation with CP413 or CP415 keeps its `reference_missing` verdict (run accounting); reports
show the finding instead of CP401 for it. Pure functions of the list and the citations.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Final

import msgspec
from rapidfuzz import fuzz

from citeproof.contracts.findings import FROM_REFERENCE_LIST, FROM_THESIS, Evidence, Finding
from citeproof.contracts.thesis import CitedWork, Reference
from citeproof.findings import Found
from citeproof.pipeline import (
    AMBIGUOUS_AUTHOR_YEAR,
    AMBIGUOUS_SUFFIX,
    DUPLICATE_ENTRY,
    MARKER_BEYOND_LIST,
    UNCITED_ENTRY,
)
from citeproof.text.bibliographic import name_tokens, normalise_doi, surname_matches, title_key

# Two titles are one when their comparison keys are this similar (0..100) and print the same
# numbers ("Situation report 51" is not "Situation report 52").
SAME_TITLE_RATIO: Final = 97
# An author-year marker names three or more authors as "Smith et al.".
ET_AL_AUTHORS: Final = 3
# A chapter's list prefixes its labels: "2/12" is entry 12 of list 2.
LIST_PREFIX_SEPARATOR: Final = "/"


class ListedEntry(msgspec.Struct, frozen=True, kw_only=True):
    """One entry of the thesis's list; ``key`` is the caller's id for it (a row id, an ordinal)."""

    key: int
    reference: Reference


class ListedCitation(msgspec.Struct, frozen=True, kw_only=True):
    """One citation; ``entry`` is the key of the entry it links to (None: unlinked)."""

    key: int
    entry: int | None
    marker: str
    claim: str = ""
    cited: CitedWork | None = None
    # Labels of the entries an unlinked marker nearly named (the parser's candidates).
    candidates: list[str] = []


def _list_of(reference: Reference) -> str:
    """Which list of the thesis the entry is in ("" for a thesis with one list)."""
    head, separator, _ = reference.label.rpartition(LIST_PREFIX_SEPARATOR)
    return head if separator else ""


def _local_number(reference: Reference) -> int | None:
    local = reference.label.rpartition(LIST_PREFIX_SEPARATOR)[2]
    return int(local) if local.isdigit() else None


def _has_content(reference: Reference) -> bool:
    """A key-only entry (a LaTeX key the upload has no .bib entry for) has nothing to compare."""
    return bool(reference.authors or reference.title or reference.raw != reference.label)


def _first_author_key(reference: Reference) -> str:
    tokens = name_tokens(reference.authors[0]) if reference.authors else []
    return " ".join(tokens)


def _same_person(left: str, right: str) -> bool:
    return surname_matches(left, right) and surname_matches(right, left)


def _digits(text: str) -> list[str]:
    return [word for word in text.split() if word.isdigit()]


def same_work(left: Reference, right: Reference) -> bool:
    """The same DOI, or the same title, first author and year."""
    left_doi, right_doi = normalise_doi(left.doi), normalise_doi(right.doi)
    if left_doi and right_doi:
        return left_doi == right_doi
    if left.year is None or left.year != right.year:
        return False
    if not left.authors or not right.authors:
        return False
    if not _same_person(left.authors[0], right.authors[0]):
        return False
    a, b = title_key(left.title), title_key(right.title)
    if len(a.split()) < 2 or len(b.split()) < 2 or _digits(a) != _digits(b):
        return False
    return a == b or fuzz.ratio(a, b) >= SAME_TITLE_RATIO


def _marker_form(reference: Reference) -> tuple[str, ...]:
    """What an author-year marker prints for the entry's authors."""
    if len(reference.authors) >= ET_AL_AUTHORS:
        return (_first_author_key(reference), "et al.")
    return tuple(" ".join(name_tokens(author)) for author in reference.authors)


def _entry_finding(rule_code: str, message: str, others: Sequence[Reference], key: str) -> Finding:
    return Finding(
        rule=rule_code,
        message=message,
        evidence=[Evidence(origin=FROM_REFERENCE_LIST, text=other.raw) for other in others],
        key=key,
    )


def _short(reference: Reference) -> str:
    who = reference.authors[0] if reference.authors else reference.label
    return f"{who} {reference.year or 'n.d.'}{reference.year_suffix or ''}"


def _duplicates(entries: Sequence[ListedEntry], cited: set[int], printed: bool) -> list[Found]:
    found: list[Found] = []
    flagged: set[int] = set()
    for index, later in enumerate(entries):
        for earlier in entries[:index]:
            if earlier.key in flagged or _list_of(earlier.reference) != _list_of(later.reference):
                continue
            if not printed and not (earlier.key in cited and later.key in cited):
                continue  # a .bib may hold both; only what is cited is printed
            if same_work(earlier.reference, later.reference):
                message = (
                    f"The same work is listed twice: this entry repeats "
                    f"{earlier.reference.label} ({_short(earlier.reference)})."
                )
                finding = _entry_finding(
                    DUPLICATE_ENTRY.code, message, [earlier.reference], earlier.reference.raw
                )
                found.append(Found(finding, reference_id=later.key))
                flagged.add(later.key)
                break
    return found


def _ambiguous(entries: Sequence[ListedEntry], duplicates: set[int]) -> list[Found]:
    groups: dict[tuple[str, int, tuple[str, ...]], list[ListedEntry]] = defaultdict(list)
    for entry in entries:
        reference = entry.reference
        if entry.key in duplicates or reference.year is None or not reference.authors:
            continue
        if _local_number(reference) is not None or not _first_author_key(reference):
            continue
        groups[(_list_of(reference), reference.year, _marker_form(reference))].append(entry)
    found: list[Found] = []
    for group in groups.values():
        if len(group) < 2 or any(entry.reference.year_suffix for entry in group):
            continue
        first = group[0].reference
        for entry in group[1:]:
            message = (
                f"{_short(entry.reference)} cannot be told apart from {first.label} "
                f"({_short(first)}) in a citation: add year suffixes (a, b)."
            )
            finding = _entry_finding(AMBIGUOUS_AUTHOR_YEAR.code, message, [first], first.raw)
            found.append(Found(finding, reference_id=entry.key))
    return found


def _same_author_year(cited: CitedWork, entries: Sequence[ListedEntry]) -> list[Reference]:
    return [
        entry.reference
        for entry in entries
        if entry.reference.year == cited.year
        and entry.reference.authors
        and surname_matches(cited.names[0], entry.reference.authors[0])
    ]


def _citation_finding(
    citation: ListedCitation, rule_code: str, message: str, others: Sequence[Reference]
) -> Found:
    evidence = [Evidence(origin=FROM_THESIS, text=citation.claim or citation.marker)]
    evidence += [Evidence(origin=FROM_REFERENCE_LIST, text=other.raw) for other in others]
    finding = Finding(
        rule=rule_code,
        message=message,
        expected=citation.marker,
        evidence=evidence,
        key=citation.marker,
    )
    return Found(finding, citation_id=citation.key)


def _suffix_finding(citation: ListedCitation, entries: Sequence[ListedEntry]) -> Found | None:
    cited = citation.cited
    if cited is None or not cited.names or cited.year is None:
        return None
    same = _same_author_year(cited, entries)
    if not same:
        return None
    suffixes = sorted({ref.year_suffix for ref in same if ref.year_suffix})
    listed = ", ".join(_short(ref) for ref in same)
    if cited.year_suffix:
        if cited.year_suffix in suffixes:
            return None
        message = (
            f"The citation names {cited.names[0]} {cited.year}{cited.year_suffix}; the list has "
            f"{listed}."
        )
        return _citation_finding(citation, AMBIGUOUS_SUFFIX.code, message, same)
    if suffixes and len(suffixes) == len(same):
        message = (
            f"The citation names {cited.names[0]} {cited.year} without a suffix; the list has "
            f"{listed}."
        )
        return _citation_finding(citation, AMBIGUOUS_SUFFIX.code, message, same)
    return None


def _linked_suffix_finding(
    citation: ListedCitation, entry: Reference | None, entries: Sequence[ListedEntry]
) -> Found | None:
    """A linked citation naming a suffix its entry lacks ("2020a" for the list's one Smith
    2020, linked by the parser's a-is-the-first convention): the list still lacks it."""
    cited = citation.cited
    if cited is None or not cited.names or not cited.year_suffix or entry is None:
        return None
    if entry.year_suffix or entry.year != cited.year:
        return None
    same = _same_author_year(cited, entries)
    # A work listed twice is one entry here (CP412 reports the copy; the parser links "2020b"
    # to the second copy by its a-b convention).
    distinct = [ref for i, ref in enumerate(same) if not any(same_work(ref, o) for o in same[:i])]
    if len(distinct) != 1 or not (distinct[0] == entry or same_work(distinct[0], entry)):
        return None  # several unsuffixed works: CP414 says the list needs suffixes
    message = (
        f"The citation names {cited.names[0]} {cited.year}{cited.year_suffix}; the list has "
        f"{_short(entry)} without a suffix."
    )
    return _citation_finding(citation, AMBIGUOUS_SUFFIX.code, message, same)


def _beyond_finding(
    citation: ListedCitation, entries: Sequence[ListedEntry], last: int | None
) -> Found | None:
    cited = citation.cited
    if cited is None or cited.number is None or last is None or cited.number <= last:
        return None
    final = [e.reference for e in entries if _local_number(e.reference) == last]
    message = f"The citation names [{cited.number}]; the reference list ends at [{last}]."
    return _citation_finding(citation, MARKER_BEYOND_LIST.code, message, final)


def _numbered_list_end(entries: Sequence[ListedEntry]) -> int | None:
    """The last number of a single numbered list (None: author-year, or one list per chapter)."""
    numbers = [_local_number(entry.reference) for entry in entries]
    if not numbers or any(n is None for n in numbers):
        return None
    if any(_list_of(entry.reference) for entry in entries):
        return None
    return max(n for n in numbers if n is not None)


def _nearly_named(citation: ListedCitation, entries: Sequence[ListedEntry]) -> set[int]:
    """Entries an unlinked citation nearly names: its candidates, or its author and year."""
    by_label = {entry.reference.label: entry.key for entry in entries}
    keys = {by_label[label] for label in citation.candidates if label in by_label}
    cited = citation.cited
    if cited is not None and cited.names and cited.year is not None:
        same = _same_author_year(cited, entries)
        keys.update(entry.key for entry in entries if entry.reference in same)
    return keys


def _uncited(
    entries: Sequence[ListedEntry], citations: Sequence[ListedCitation], skip: set[int]
) -> list[Found]:
    cited = {citation.entry for citation in citations if citation.entry is not None}
    if not cited:
        return []  # no marker linked at all: the markers, not the list, are what failed
    near: set[int] = set()
    for citation in citations:
        if citation.entry is None:
            near |= _nearly_named(citation, entries)
    cited_references = [entry.reference for entry in entries if entry.key in cited]
    found: list[Found] = []
    for entry in entries:
        if entry.key in cited or entry.key in near or entry.key in skip:
            continue
        if not _has_content(entry.reference):
            continue
        if any(same_work(entry.reference, other) for other in cited_references):
            continue  # one copy of a work listed twice: CP412 reports it, the work is cited
        reference = entry.reference
        message = f"No citation in the text points to {reference.label} ({_short(reference)})."
        finding = Finding(
            rule=UNCITED_ENTRY.code,
            message=message,
            evidence=[Evidence(origin=FROM_REFERENCE_LIST, text=entry.reference.raw)],
        )
        found.append(Found(finding, reference_id=entry.key))
    return found


def reference_list_findings(
    entries: Sequence[ListedEntry],
    citations: Sequence[ListedCitation],
    *,
    printed_list: bool = True,
) -> list[Found]:
    """Every CP411-CP415 finding of one thesis. ``printed_list`` is False when the entries are a
    bibliography database rather than the printed list (a LaTeX project's .bib): then only
    duplicates among cited entries and the citations' own findings are reported."""
    cited = {citation.entry for citation in citations if citation.entry is not None}
    found = _duplicates(entries, {key for key in cited if key is not None}, printed_list)
    duplicates = {f.reference_id for f in found if f.reference_id is not None}
    if printed_list:
        found += _ambiguous(entries, duplicates)
    last = _numbered_list_end(entries)
    listed = {entry.key: entry.reference for entry in entries}
    for citation in citations:
        if citation.entry is not None:
            lacking = _linked_suffix_finding(citation, listed.get(citation.entry), entries)
            if lacking is not None:
                found.append(lacking)
            continue
        finding = _beyond_finding(citation, entries, last) or _suffix_finding(citation, entries)
        if finding is not None:
            found.append(finding)
    if printed_list:
        found += _uncited(entries, citations, duplicates)
    return found
