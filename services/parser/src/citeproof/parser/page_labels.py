"""The page number printed on each page of a PDF, and its offset from the PDF's page index.

A writer cites the page printed in the source ("p. 1125" of an article that starts on p. 1123;
"p. xiv" of a book's preface); the PDF counts from 1. Each page's first and last lines are read
for a number on its own ("1125", "- 7 -", "Page 7 of 20", "xiv") or at either end of a running
header or footer ("1124 Journal of Things 12(3)", "Smith et al. 1125"). A number is kept only
where several pages agree on its offset from the page index: a page number grows by one a page,
a year, a volume or a table cell does not. Pages in between or at either end without a printed
number (an article's first page, a chapter opening) take the number of the run around them.
Roman numbering (front matter) is read the same way, separately.

When nothing is printed, the PDF's own page labels (the /PageLabels tree, set by the producer)
are used; when neither exists the labels are unknown (None) and readers assume the PDF's own
page numbers.
"""

from __future__ import annotations

import re
from collections import Counter
from itertools import pairwise
from typing import Final

import msgspec

from citeproof.text.pinpoints import normalise_page_label, roman_numeral, roman_value

# Lines at the top and at the bottom of a page that can hold its number.
EDGE_LINES: Final = 3
# Pages that must agree on an offset before it is believed (one page more in a long document:
# two pages agree by chance more easily among hundreds).
MIN_AGREEING_PAGES: Final = 2
# A second run of numbering (the body after arabic front matter, an appendix restarting) needs
# this share of the best run's pages.
MIN_RUN_SHARE: Final = 0.2
# Gaps without a printed number are filled from a run that reaches to within this many pages.
MAX_FILLED_GAP: Final = 3

_ARABIC_ALONE = re.compile(
    r"^[\s\-–—|•·\[(]*(?:page|p\.|seite|s\.)?\s*(?P<number>\d{1,5})"
    r"(?:\s*(?:/|of|von)\s*\d{1,5})?[\s\-–—|•·\])]*$",
    re.IGNORECASE,
)
_ROMAN_ALONE = re.compile(r"^[\s\-–—|•·\[(]*(?P<number>[ivxlcdm]{1,8})[\s\-–—|•·\])]*$", re.I)
# A number at either end of a header or footer line, set off by spaces or a bar.
_ARABIC_LEADING = re.compile(r"^(?P<number>\d{1,5})(?:\s*[|•·]\s*|\s{1,}|\t)(?=\S)")
_ARABIC_TRAILING = re.compile(r"(?<=\S)(?:\s*[|•·]\s*|\s{1,}|\t)(?P<number>\d{1,5})$")

ARABIC: Final = "arabic"
ROMAN: Final = "roman"


class PageLabels(msgspec.Struct, frozen=True):
    """Per PDF page (index 0 = page 1) the printed page number, None where unknown; the offset
    printed number - page number on the arabic-numbered pages, None when none were found."""

    labels: list[str | None]
    offset: int | None = None


def _edge_lines(lines: list[str]) -> list[str]:
    content = [line.strip() for line in lines if line.strip()]
    if len(content) <= 2 * EDGE_LINES:
        return content
    return content[:EDGE_LINES] + content[-EDGE_LINES:]


def _candidates(lines: list[str], alone_only: bool = False) -> set[tuple[str, int]]:
    """(numbering, value) of every number on the page's edges that could be its page number;
    with ``alone_only`` only numbers on a line of their own (a single page has no other page
    to agree with, and a header's year or volume would pass for its number)."""
    found: set[tuple[str, int]] = set()
    for line in _edge_lines(lines):
        alone = _ARABIC_ALONE.match(line)
        if alone is not None:
            found.add((ARABIC, int(alone.group("number"))))
            continue
        roman = _ROMAN_ALONE.match(line)
        if roman is not None:
            value = roman_value(roman.group("number"))
            if value is not None:
                found.add((ROMAN, value))
            continue
        if alone_only:
            continue
        for pattern in (_ARABIC_LEADING, _ARABIC_TRAILING):
            match = pattern.search(line)
            if match is not None:
                found.add((ARABIC, int(match.group("number"))))
    return found


def _runs(candidates: list[set[tuple[str, int]]], numbering: str) -> list[tuple[int, list[int]]]:
    """Offsets believed for one numbering, best first, each with the pages printing it."""
    support: Counter[int] = Counter()
    pages_of: dict[int, list[int]] = {}
    for index, found in enumerate(candidates):
        for kind, value in found:
            if kind != numbering:
                continue
            offset = value - (index + 1)
            if index not in pages_of.setdefault(offset, []):
                pages_of[offset].append(index)
                support[offset] += 1
    needed = MIN_AGREEING_PAGES if len(candidates) > 1 else 1
    # Most pages first; between equals the smaller offset (a year printed on a one-page
    # source's title block agrees with itself as well as its page number does).
    ranked = [
        (offset, pages_of[offset])
        for offset, _ in sorted(support.items(), key=lambda item: (-item[1], abs(item[0])))
    ]
    if not ranked or len(ranked[0][1]) < needed:
        return []
    best = len(ranked[0][1])
    return [
        (offset, pages)
        for offset, pages in ranked
        if len(pages) >= needed and len(pages) >= MIN_RUN_SHARE * best
    ]


def _label(numbering: str, value: int) -> str | None:
    if value < 1:
        return None
    return str(value) if numbering == ARABIC else roman_numeral(value)


def _fill(assigned: list[tuple[str, int] | None]) -> list[tuple[str, int] | None]:
    """Pages without a printed number between (or just beyond) pages of one run take its
    numbering: the run's offset where the pages around agree, or where a run reaches to within
    `MAX_FILLED_GAP` pages of the document's edge."""
    filled = list(assigned)
    known = [index for index, value in enumerate(assigned) if value is not None]
    if not known:
        return filled
    for before, after in pairwise(known):
        if after - before > 1 and assigned[before] == assigned[after]:
            for index in range(before + 1, after):
                filled[index] = assigned[before]
    first, last = known[0], known[-1]
    if first <= MAX_FILLED_GAP:
        for index in range(first):
            filled[index] = assigned[first]
    if len(assigned) - 1 - last <= MAX_FILLED_GAP:
        for index in range(last + 1, len(assigned)):
            filled[index] = assigned[last]
    return filled


def detect_page_labels(pages: list[list[str]], pdf_labels: list[str] | None = None) -> PageLabels:
    """The printed page number of every page (see the module's docstring)."""
    candidates = [_candidates(lines, alone_only=len(pages) == 1) for lines in pages]
    # (numbering, offset) per page: arabic runs first, roman ones only where no arabic number is.
    assigned: list[tuple[str, int] | None] = [None] * len(pages)
    for numbering in (ARABIC, ROMAN):
        for offset, printed_on in _runs(candidates, numbering):
            for index in printed_on:
                if assigned[index] is None:
                    assigned[index] = (numbering, offset)
    filled = _fill(assigned)
    labels = [
        None if entry is None else _label(entry[0], index + 1 + entry[1])
        for index, entry in enumerate(filled)
    ]
    if not any(labels) and pdf_labels:
        # Nothing printed that we could read: the producer's labels, if it set any.
        from_pdf = [normalise_page_label(label) if label else None for label in pdf_labels]
        if any(from_pdf):
            labels = from_pdf
    return PageLabels(labels=labels, offset=_dominant_offset(labels))


def _dominant_offset(labels: list[str | None]) -> int | None:
    offsets = Counter(
        int(label) - (index + 1)
        for index, label in enumerate(labels)
        if label is not None and label.isdigit()
    )
    return offsets.most_common(1)[0][0] if offsets else None
