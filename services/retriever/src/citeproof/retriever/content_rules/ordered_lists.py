"""Lists a sentence pairs by their order alone: "If NPIs could have been conducted one week, two
weeks, or three weeks earlier in China, cases could have been reduced by 66%, 86%, and 95%,
respectively"; "IgG, IgA, or IgM antibody responses ... with a sensitivity of 97%, 91%, and
81% respectively".

A claim that takes one value out of such a sentence names its item ("three weeks earlier",
"IgA") and not the others; the value it stands for is the one at that item's place. The number
rule (`number_rule._by_order`) reads the sentence's lists here: its lists of values (two or
more values of one kind in a row, separated only by commas, "and" or "or") and its series of
single words ("IgG, IgA, or IgM"), each with its items in order.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from itertools import pairwise

from citeproof.retriever.content_rules.folding import folded_words
from citeproof.retriever.content_rules.source import content_stems
from citeproof.text.quantities import YEAR, Quantity
from citeproof.text.words import STOPWORDS

# The word that says two lists pair by their order.
_RESPECTIVELY = re.compile(r"\brespectively\b", re.IGNORECASE)
# What stands between two items of a list: a comma, "and", "or", or a comma and either.
_GAP = re.compile(r"\s*,\s*(?:(?:and|or)\s+)?|\s+(?:and|or)\s+", re.IGNORECASE)
# "2006 through 2009", "2006 to 2009", "2006–2009": a span of years.
_THROUGH = re.compile(r"\s*(?:through|to|until|[–-])\s*", re.IGNORECASE)
MAX_SPAN_YEARS = 12
# "19.8 (95% CI: 17.3–22.2)": an item's interval, in brackets right after it.
_INTERVAL = re.compile(r"\s*\([^()]*\)")
_COORDINATED = re.compile(r"\b(?:and|or)\b", re.IGNORECASE)
# A word of a series: letters (a hyphen or a digit inside: "non-Hispanic", "IgG1", "H1N1").
_ITEM = re.compile(r"[^\W\d_][\w'’+-]*", re.UNICODE)


def pairs_by_order(text: str) -> bool:
    return _RESPECTIVELY.search(text) is not None


def value_lists(text: str, quantities: Sequence[Quantity]) -> list[list[Quantity]]:
    """The sentence's lists of values: two or more of one kind and role in a row, each
    separated from the next by a comma, "and" or "or" alone."""
    lists: list[list[Quantity]] = []
    run: list[Quantity] = []
    for quantity in sorted(quantities, key=lambda q: q.start):
        previous = run[-1] if run else None
        if previous is not None and _inside_interval(text, previous, quantity):
            continue  # "19.8 (95% CI: 17.3–22.2), 22.5": the item's interval, no item
        if (
            previous is not None
            and previous.kind == quantity.kind
            and previous.role == quantity.role
            and _GAP.fullmatch(text, _after_interval(text, previous), quantity.start)
        ):
            run.append(quantity)
            continue
        if len(run) >= 2:
            lists.append(run)
        run = [quantity]
    if len(run) >= 2:
        lists.append(run)
    return lists


def _after_interval(text: str, quantity: Quantity) -> int:
    """Where the bracketed interval right after a value with one ends (else the value's end)."""
    interval = _INTERVAL.match(text, quantity.end) if quantity.ci is not None else None
    return interval.end() if interval else quantity.end


def _inside_interval(text: str, previous: Quantity, quantity: Quantity) -> bool:
    return previous.end <= quantity.start < _after_interval(text, previous)


def year_spans(text: str, quantities: Sequence[Quantity]) -> list[list[Quantity]]:
    """The sentence's spans of years ("for 2006 through 2009", "2006 to 2009"), each as the list of
    its years in order: "2006 through 2009 ... 19.8, 22.5, 19.0, and 19.0 ..., respectively"
    pairs each year with a value."""
    spans: list[list[Quantity]] = []
    ordered = sorted(quantities, key=lambda q: q.start)
    for first, second in pairwise(ordered):
        if not (
            first.kind == YEAR == second.kind
            and first.low is None is second.low
            and _THROUGH.fullmatch(text, first.end, second.start)
        ):
            continue
        years = range(int(first.value), int(second.value) + 1)
        if 2 <= len(years) <= MAX_SPAN_YEARS:
            spans.append([replace(first, value=float(year), text=str(year)) for year in years])
    return spans


def word_series(text: str, quantities: Sequence[Quantity]) -> list[list[str]]:
    """The sentence's series of single words ("IgG, IgA, or IgM"; "Black and Latino"), each
    item as the stem of its word the way the rules read words (`content_stems`; of
    "non-Hispanic", "hispan"): words separated only by a comma, "and" or "or", none of them a
    stop word or part of a quantity ("one week, two weeks" is a list of values, not of
    words)."""
    taken = [(q.start, q.end) for q in quantities]
    words = [
        match
        for match in _ITEM.finditer(text)
        if match.group().lower() not in STOPWORDS
        and not _RESPECTIVELY.fullmatch(match.group())
        and not any(start < match.end() and match.start() < end for start, end in taken)
    ]
    series: list[list[str]] = []
    run: list[re.Match[str]] = []
    for word in [*words, None]:
        if word is not None and run and _GAP.fullmatch(text, run[-1].end(), word.start()):
            run.append(word)
            continue
        # A series ends with "and" or "or" ("IgG, IgA, or IgM"): "in China, cases" is none.
        if len(run) >= 2 and _COORDINATED.search(text, run[-2].end(), run[-1].start()):
            series.append(_stems(run))
        run = [word] if word is not None else []
    return [items for items in series if "" not in items and len(set(items)) == len(items)]


def _stems(run: Sequence[re.Match[str]]) -> list[str]:
    stems = [content_stems(folded_words(word.group())) for word in run]
    return [found[-1] if found else "" for found in stems]
