"""The pages a citation's pinpoint names, as printed page labels.

A pinpoint is kept as the writer printed it ("p. 5", "pp. 1123–25", "S. 12f.", "xiv", "ch. 2,
p. 7"); `pinpoint_pages` reads the pages out of it: arabic numbers as digits ("5"), roman ones
in lower case ("xiv"). Chapters, sections, figures, tables, notes, lines and other locators are
no pages and are left out; a pinpoint without a page gives no pages.

The thesis parser stores the result beside the pinpoint (`Citation.pinpoint_pages`); the
retriever's page rules map these labels to the source's PDF pages through the labels printed on
them (`documents.page_labels`).
"""

from __future__ import annotations

import re
from typing import Final

# A range is expanded to its pages; a longer one ("pp. 1–400") points at no page in particular.
MAX_PINPOINT_PAGES: Final = 40
# "5f." is the page and the next one, "5ff." the page and the following ones: two more.
FOLLOWING_PAGES: Final = 2

_DASHES: Final = "-–—‒−‐‑"
# Locators that name pages.
_PAGE_LABEL = re.compile(
    r"^(?:pp?|pg|pgs|page|pages|s|ss|seite|seiten|bl)\.?(?=\s|\d|[ivxlcdm]|$)\s*", re.IGNORECASE
)
# Locators that name something else: what follows them is not a page.
_OTHER_LABEL = re.compile(
    r"^(?:ch|chap|chapter|chapters|sec|sect|section|sections|§|§§|fig|figs|figure|figures|"
    r"table|tables|tab|eq|eqs|equation|l|ll|line|lines|para|paras|paragraph|n|nn|fn|note|"
    r"notes|col|cols|column|vol|vols|volume|art|arts|article|thm|theorem|def|definition|lemma|"
    r"prop|proposition|appendix|app|no|nr|loc|location|sign|fol|fols|book|bk|part|pt|"
    r"verse|v|vv)\b\.?",
    re.IGNORECASE,
)
_ARABIC = r"\d{1,5}"
_ROMAN = r"[ivxlcdm]{1,8}"
# One page or a range, with an optional "f."/"ff." and a note on that page ("5n3", "5 n. 3").
_PAGE_ITEM = re.compile(
    rf"^(?P<first>{_ARABIC}|{_ROMAN})(?:\s*[{_DASHES}]{{1,3}}\s*(?P<last>{_ARABIC}|{_ROMAN}))?"
    r"(?P<follow>\s*ff?\.?)?(?:\s*n\.?\s*\d+)?\.?$",
    re.IGNORECASE,
)
_SEPARATORS = re.compile(r"\s*(?:[,;&]|\band\b|\bund\b|\bet\b)\s*", re.IGNORECASE)
_SPACES = re.compile(r"[\s~\u00a0]+")
# Words before the locator that are no part of it ("see p. 5", "esp. pp. 3-4").
_LEADING = re.compile(r"^(?:(?:see|cf|esp|especially|e\.\s?g|at|here)\.?,?\s+)+", re.IGNORECASE)
_ROMAN_VALUES: Final = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100, "d": 500, "m": 1000}
_ROMAN_NUMERAL = re.compile(r"^m{0,3}(?:cm|cd|d?c{0,3})(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3})$")


def roman_value(text: str) -> int | None:
    """The value of a well-formed roman numeral ("xiv" -> 14, any case); None otherwise."""
    lowered = text.lower()
    if not lowered or not _ROMAN_NUMERAL.match(lowered):
        return None
    total = 0
    for index, char in enumerate(lowered):
        value = _ROMAN_VALUES[char]
        following = _ROMAN_VALUES[lowered[index + 1]] if index + 1 < len(lowered) else 0
        total += -value if value < following else value
    return total


def roman_numeral(value: int) -> str:
    """Lower-case roman numeral of 1..3999."""
    parts = []
    for number, symbol in (
        (1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"),
        (50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i"),
    ):  # fmt: skip
        while value >= number:
            parts.append(symbol)
            value -= number
    return "".join(parts)


def normalise_page_label(label: str) -> str | None:
    """A printed page number as stored: digits without leading zeros, roman in lower case;
    None for anything else."""
    label = label.strip().rstrip(".")
    if label.isdigit():
        return str(int(label))
    if roman_value(label) is not None:
        return label.lower()
    return None


def _expand(first: str, last: str | None, follow: str | None) -> list[str]:
    if first.isdigit():
        start = int(first)
        if last is not None and last.isdigit():
            end = int(last)
            if end < start and len(last) < len(first):
                # "1123–25": the last page is written with its changing digits only.
                end = int(first[: len(first) - len(last)] + last)
        elif last is not None:
            return []
        else:
            end = start + (FOLLOWING_PAGES if follow and "ff" in follow.lower() else 1 if follow
                           else 0)  # fmt: skip
        if end < start or end - start + 1 > MAX_PINPOINT_PAGES:
            return [str(start)] if last is None else []
        return [str(page) for page in range(start, end + 1)]
    first_value = roman_value(first)
    if first_value is None:
        return []
    last_value = first_value
    if last is not None:
        parsed = roman_value(last)
        if parsed is None:
            return []
        last_value = parsed
    elif follow:
        last_value = first_value + (FOLLOWING_PAGES if "ff" in follow.lower() else 1)
    if last_value < first_value or last_value - first_value + 1 > MAX_PINPOINT_PAGES:
        return []
    return [roman_numeral(value) for value in range(first_value, last_value + 1)]


def pinpoint_pages(pinpoint: str | None) -> list[str]:
    """The printed page labels a pinpoint names, in order, without repeats.

    "p. 5" -> ["5"]; "pp. 5–7" -> ["5", "6", "7"]; "pp. 1123–25" -> ["1123", "1124", "1125"];
    "S. 12f." -> ["12", "13"]; "pp. xii–xiv" -> ["xii", "xiii", "xiv"]; "ch. 2, p. 7" -> ["7"];
    "5, 9" -> ["5", "9"] (a bare number is a page); "ch. 2", "fig. 3", "Table 1" -> [].
    """
    if not pinpoint:
        return []
    text = _LEADING.sub("", _SPACES.sub(" ", pinpoint).strip().strip(",;:"))
    pages: list[str] = []
    # What the numbers of the current part count: pages until another locator is named.
    counting_pages = True
    for part in _SEPARATORS.split(text):
        part = part.strip()
        if not part:
            continue
        label = _PAGE_LABEL.match(part)
        if label is not None and _PAGE_ITEM.match(part[label.end() :].strip()):
            counting_pages = True
            part = part[label.end() :].strip()
        elif _OTHER_LABEL.match(part) and not _PAGE_ITEM.match(part):
            counting_pages = False
            continue
        if not counting_pages:
            continue
        item = _PAGE_ITEM.match(part)
        if item is None:
            continue
        pages.extend(_expand(item.group("first"), item.group("last"), item.group("follow")))
    return list(dict.fromkeys(pages))[:MAX_PINPOINT_PAGES]
