"""One source document as the content rules read it, built once per document and cached with
its retrieval index.

- its words, folded (`folding`), as one character stream with an inverted index from each word
  to where it occurs: a quotation is found by its rarest words, then compared character by
  character in that neighbourhood only — never by scanning the document per claim;
- its sentences (the evidence parts only: not the reference list, not the front matter), each
  with its page, the content-word stems they hold, and an inverted index from stem to
  sentences: the sentences that best match a claim are scored through the postings of the
  claim's own words;
- its pages: the PDF page of every character and the number printed on each page.

Pure data and pure functions of it: the retriever builds it from the stored text, benchmarks
and tests from plain page texts (`SourceText.from_pages`).
"""

from __future__ import annotations

import bisect
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from citeproof.retriever.content_rules.folding import FoldedWord, folded_words
from citeproof.text.quantities import (
    APPROX,
    COUNT,
    DURATION,
    EXACT,
    MONTH_ABBREVIATIONS,
    MONTH_NAMES,
    PERCENT,
    SPREAD,
    UPPER,
    VALUE,
    YEAR,
    Quantity,
    extract_quantities,
    normalise_numerals,
)
from citeproof.text.sentences import split_sentences
from citeproof.text.words import STOPWORDS, parse_numeral, stem

# Per-item memory estimates for the index cache's budget (CPython objects).
_BYTES_PER_WORD = 160
_BYTES_PER_SENTENCE = 400
# Words shorter than this carry no meaning of their own for sentence matching ("of", "a").
MIN_STEM_CHARS = 3


# Kinds of the content rules' own (compared only with their own kind): the day of a date
# ("July 21", "28 May"), and an interval ("every three days").
DAY_OF_MONTH = "day-of-month"
INTERVAL = "interval"
# The subtype of a year that dates a month ("by June 2020"), where the shared reading gives none.
DATED = "dated"
# The subtype of a percentage that is a change per year ("EAPC = 8.1%", "12.2% annually"): a
# rate, another quantity than the change over a period ("a 34% increase from 2006 to 2009").
ANNUAL_CHANGE = "annual-change"

# "on day 7 post infection": a time point, the days after day 0 (the shared reading takes the
# number for a bare count, and the number rule would compare it with nothing).
_DAY_BEFORE = re.compile(r"\b[Dd]ays?\s*$")


# A month as a date prints it, capitalised: its name, or an abbreviation with or without its dot.
_MONTHS = "|".join(
    [name.capitalize() for name in MONTH_NAMES]
    + [rf"{abbreviation.capitalize()}\.?" for abbreviation in MONTH_ABBREVIATIONS]
)
_MONTH_BEFORE = re.compile(rf"\b(?:{_MONTHS})\s*$")
_MONTH_AFTER = re.compile(rf"(?:st|nd|rd|th)?\s*(?:of\s+)?(?:{_MONTHS})\b")
# "May 2020", "October of 2020", "May 28, 2020", "28 May 2020": the year of a date (marked
# `DATED`; "May" is a stop word, so the words near the year do not show its month).
_MONTH_BEFORE_YEAR = re.compile(
    rf"\b(?:{_MONTHS})\s*(?:of\s+)?(?:\d{{1,2}}(?:st|nd|rd|th)?,?\s+)?$"
)
_EVERY_BEFORE = re.compile(r"\b[Ee]very\s*$")
# "EAPC = 8.1%", "an APC of 2.5%", "an annual increase of 3%": an (estimated) annual percent
# change named before the percentage ...
_ANNUAL_CHANGE_BEFORE = re.compile(
    r"(?:\b(?:EAPC|AAPC|APC)\s*(?:[=:]|of|was|,)?"
    r"|\b(?:[Aa]nnual|[Yy]early)\s+(?:percent(?:age)?\s+)?"
    r"(?:change|increase|decrease|decline|rise|growth|reduction)\s*(?:of|was|=|:)?)\s*$"
)
# ... or a change per year written after it ("12.2% annually", "3% per year").
_ANNUAL_CHANGE_AFTER = re.compile(
    r"\s*(?:annually|yearly|per\s+(?:year|annum)|a\s+year|each\s+year|every\s+year)\b"
)
_PERCENT_TEXT = re.compile(r"(?:%|\bpercent)$")
# A bracketed interval right after a value, and what separates two items of a list.
_INTERVAL_AFTER = re.compile(r"\s*\([^()]*\)")
_LIST_GAP = re.compile(r"\s*,\s*(?:(?:and|or)\s+)?|\s+(?:and|or)\s+", re.IGNORECASE)
# How far after a list's last interval its unit is read ("per 100,000 individuals").
_UNIT_CHARS = 30
# "(95% CI: 46-62%)", "(UI 1.0-2.4)": a range right after an interval's label.
_INTERVAL_LABEL_BEFORE = re.compile(
    r"\b(?:CI|CrI|UI|(?:confidence|credible|uncertainty)\s+interval)\s*[:=,]?\s*$"
)
# "7 dpi": days post infection.
_DPI_AFTER = re.compile(r"\s*dpi\b")
DAYS_IN_A_MONTH = 31
# "around 223,000": a value of this many significant digits is approximate only by a few
# units of its last one (the shared reading's 10% would make it a rounding of 232,000).
PRECISE_DIGITS = 3
PRECISE_SLACK_UNITS = 5
_NUMERAL = re.compile(r"\d[\d,]*(?:\.\d+)?")
# "5 to <10%": a range whose upper end is left out (the shared reading gives a count 5 and a
# bound <10%).
_RANGE_TO_STRICT_BOUND = re.compile(r"(\d+(?:\.\d+)?)\s*%?\s*(?:to|[–-])\s*<\s*$")


def _kind(text: str, quantity: Quantity) -> str:
    """The content rules' kind of a value the shared reading gives."""
    if quantity.role != VALUE or quantity.low is not None:
        return quantity.kind
    if quantity.kind == COUNT:
        if _DAY_BEFORE.search(text, 0, quantity.start) or _DPI_AFTER.match(text, quantity.end):
            return DURATION
        if 1 <= quantity.value <= DAYS_IN_A_MONTH and (
            _MONTH_BEFORE.search(text, 0, quantity.start) or _MONTH_AFTER.match(text, quantity.end)
        ):
            return DAY_OF_MONTH
    if quantity.kind == DURATION and _EVERY_BEFORE.search(text, 0, quantity.start):
        return INTERVAL
    return quantity.kind


def _dates_a_month(text: str, quantity: Quantity) -> bool:
    """A single year right after a month ("June 2020", "28 May 2020", "May 28, 2020")."""
    return (
        quantity.kind == YEAR
        and quantity.low is None
        and _MONTH_BEFORE_YEAR.search(text, 0, quantity.start) is not None
    )


def _annual_change(text: str, quantity: Quantity) -> bool:
    """A single percentage that is a change per year ("EAPC = 8.1%", "12.2% annually")."""
    return (
        quantity.kind == PERCENT
        and quantity.role == VALUE
        and quantity.low is None
        and quantity.subtype is None
        and _PERCENT_TEXT.search(quantity.text) is not None
        and (
            _ANNUAL_CHANGE_BEFORE.search(text, 0, quantity.start) is not None
            or _ANNUAL_CHANGE_AFTER.match(text, quantity.end) is not None
        )
    )


def _bare_interval(text: str, quantity: Quantity) -> bool:
    """A range right after an interval's label that the shared reading gave no estimate to ("rate
    of documented infections (95% CI: 46-62%)", the estimate cut off with the sentence's start):
    the interval around a value, no value of its own."""
    return (
        quantity.role == VALUE
        and quantity.low is not None
        and _INTERVAL_LABEL_BEFORE.search(text, 0, quantity.start) is not None
    )


def _unit_after_intervals(text: str, found: list[Quantity]) -> list[Quantity]:
    """ "19.8 (95% CI: 17.3–22.2), 22.5 (95% CI: 19.7–25.3) and 19.0 (95% CI: 16.6–21.3) per
    100,000 individuals": a list of bare values, each with its interval, prints its unit once
    after the last interval; every item takes it (the shared reading leaves them counts, and
    the unit's "100,000" a count of its own)."""
    runs: list[list[Quantity]] = []
    run: list[Quantity] = []
    run_end = -1
    for quantity in sorted(found, key=lambda q: q.start):
        if quantity.role != VALUE:
            continue
        interval = _INTERVAL_AFTER.match(text, quantity.end)
        listed = quantity.kind == COUNT and quantity.ci is not None and quantity.low is None
        if not (listed and interval):
            if len(run) >= 2:
                runs.append(run)
            run = []
            continue
        if not (run and _LIST_GAP.fullmatch(text, run_end, quantity.start)):
            if len(run) >= 2:
                runs.append(run)
            run = []
        run.append(quantity)
        run_end = interval.end()
    if len(run) >= 2:
        runs.append(run)
    for items in runs:
        last = _INTERVAL_AFTER.match(text, items[-1].end)
        assert last is not None
        after = text[last.end() : last.end() + _UNIT_CHARS]
        # The unit as it would read after a bare 1 ("1 per 100,000"): its kind and factor.
        unit = next(iter(extract_quantities("1" + after)), None)
        if unit is None or unit.start != 0 or unit.kind in (COUNT, YEAR) or unit.low is not None:
            continue
        unit_end = last.end() + unit.end - 1
        found = [q for q in found if not last.end() <= q.start < unit_end]
        factor = unit.value
        rekinded = {
            id(item): replace(
                item,
                kind=unit.kind,
                value=item.value * factor,
                tolerance=item.tolerance * factor,
                ci=(item.ci[0] * factor, item.ci[1] * factor) if item.ci else None,
            )
            for item in items
        }
        found = [rekinded.get(id(q), q) for q in found]
    return found


def read_quantities(text: str) -> tuple[Quantity, ...]:
    """The content rules' reading of ``text``'s numbers (`extract_quantities`), with kinds of
    their own where the shared reading gives a count or a duration:
    - a day named by its number ("day 7", "7 dpi") is the duration it lies after day 0, so that
      "day 9 post infection" is compared with "day 7 post infection" and "7 dpi";
    - the day of a date ("until March 16", "28 May") is a day of the month (`DAY_OF_MONTH`),
      no count: a "July 21 report" is not about the source's "7 sites";
    - "every three days" is an interval (`INTERVAL`), not the time point "after 16 days";
    - the year of a date ("by June 2020") is marked `DATED`;
    - a percent change per year ("EAPC = 8.1%", "12.2% annually") is marked `ANNUAL_CHANGE`;
    - a range after an interval's label with no estimate ("(95% CI: 46-62%)") is a `SPREAD`;
    - "5 to <10%" is the range 5-10% (`_strict_ranges`), not a count and a bound."""
    found: list[Quantity] = []
    for quantity in extract_quantities(text):
        kind = _kind(text, quantity)
        quantity = quantity if kind == quantity.kind else replace(quantity, kind=kind)
        if _dates_a_month(text, quantity):
            quantity = replace(quantity, subtype=DATED)
        elif _annual_change(text, quantity):
            quantity = replace(quantity, subtype=ANNUAL_CHANGE)
        if _bare_interval(text, quantity):
            quantity = replace(quantity, role=SPREAD)
        found.append(_precise_approximation(quantity))
    return tuple(_strict_ranges(text, _unit_after_intervals(text, found)))


def _precise_approximation(quantity: Quantity) -> Quantity:
    """ "around 223,000" is 223,000 give or take a few thousand, not 10%: a writer rounding
    writes "around 220,000"; the more digits written, the less "about" widens them."""
    if quantity.bound != APPROX or quantity.low is not None:
        return quantity
    match = _NUMERAL.search(quantity.text)
    written = parse_numeral(match.group()) if match else None
    if match is None or not written:
        return quantity
    whole, _, decimals = match.group().replace(",", "").partition(".")
    digits = (whole + decimals).lstrip("0")
    if not decimals:
        digits = digits.rstrip("0")
    if len(digits) < PRECISE_DIGITS:
        return quantity
    place = 10.0 ** (-len(decimals)) if decimals else 10.0 ** (len(whole) - len(digits))
    slack = PRECISE_SLACK_UNITS * place * abs(quantity.value / written)
    return replace(quantity, tolerance=min(quantity.tolerance, slack))


def _strict_ranges(text: str, found: list[Quantity]) -> list[Quantity]:
    """ "weight losses of 5 to <10%": the range from 5 up to (not including) 10%. Its ends are
    what it states; as a bound alone it states no range, so a claim's "6-10%" copying one end
    wrong would pair with nothing."""
    for bound in [q for q in found if q.bound == UPPER and q.role == VALUE and q.low is None]:
        before = _RANGE_TO_STRICT_BOUND.search(text, 0, bound.start)
        if before is None:
            continue
        low = next((q for q in found if q.start == before.start(1)), None)
        if low is None or low.low is not None or not low.value < bound.value:
            continue
        merged = replace(
            bound,
            value=(low.value + bound.value) / 2,
            text=text[low.start : bound.end],
            start=low.start,
            bound=EXACT,
            low=low.value,
            high=bound.value,
        )
        found = [merged if q is bound else q for q in found if q is not low]
    return found


def content_stems(words: Sequence[FoldedWord]) -> list[str]:
    """Stems of the content words (no stop words, no bare numbers), in order, repeated."""
    return [
        stem(word.key)
        for word in words
        if len(word.key) >= MIN_STEM_CHARS and word.key not in STOPWORDS and not word.key.isdigit()
    ]


@dataclass
class SourceText:
    text: str
    # 0-based offset at which each PDF page starts; empty for text without pages.
    page_starts: list[int]
    # The number printed on each page (None where unknown); empty when unknown throughout.
    page_labels: list[str | None]
    page_label_offset: int | None
    # Character spans that are evidence (body text); sentences outside them are not matched.
    evidence_spans: list[tuple[int, int]]
    document_id: str | None = None

    # Built by `build()`.
    words: list[FoldedWord] = field(default_factory=list)
    keys: str = ""  # every word's key, concatenated
    exact: str = ""  # every word's exact form, concatenated (same offsets as keys)
    word_offsets: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    word_pages: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    word_starts: list[int] = field(default_factory=list)  # each word's character offset
    postings: dict[str, list[int]] = field(default_factory=dict)
    sentences: list[tuple[int, int]] = field(default_factory=list)
    sentence_pages: list[int] = field(default_factory=list)
    sentence_stems: list[frozenset[str]] = field(default_factory=list)
    stem_postings: dict[str, np.ndarray] = field(default_factory=dict)
    # Filled on first use by the number rule (see `quantities`).
    _quantities: list[tuple[int, Quantity]] | None = None

    @classmethod
    def from_pages(
        cls,
        pages: Sequence[str],
        page_labels: Sequence[str | None] | None = None,
        *,
        document_id: str | None = None,
    ) -> SourceText:
        """A source from the text of each page (joined by blank lines), all of it evidence."""
        starts: list[int] = []
        parts: list[str] = []
        offset = 0
        for page in pages:
            starts.append(offset)
            parts.append(page)
            offset += len(page) + 2
        text = "\n\n".join(parts)
        labels = list(page_labels) if page_labels is not None else []
        return cls(
            text=text,
            page_starts=starts,
            page_labels=labels,
            page_label_offset=_dominant_offset(labels),
            evidence_spans=[(0, len(text))],
            document_id=document_id,
        ).build()

    @classmethod
    def from_stored(
        cls,
        *,
        text: str,
        page_starts: Sequence[int] | None,
        page_labels: Sequence[str | None] | None,
        page_label_offset: int | None,
        evidence_spans: Sequence[tuple[int, int]],
        document_id: Any = None,
    ) -> SourceText:
        """A source from its stored row (`documents`) and its evidence chunks' spans."""
        return cls(
            text=text,
            page_starts=list(page_starts or []),
            page_labels=list(page_labels or []),
            page_label_offset=page_label_offset,
            evidence_spans=sorted(evidence_spans) or [(0, len(text))],
            document_id=None if document_id is None else str(document_id),
        ).build()

    def build(self) -> SourceText:
        self.words = folded_words(self.text)
        offsets = np.zeros(len(self.words) + 1, np.int64)
        postings: dict[str, list[int]] = {}
        total = 0
        for index, word in enumerate(self.words):
            offsets[index] = total
            total += len(word.key)
            postings.setdefault(word.key, []).append(index)
        offsets[len(self.words)] = total
        self.word_offsets = offsets
        self.keys = "".join(word.key for word in self.words)
        self.exact = "".join(word.exact for word in self.words)
        self.postings = postings
        self.word_starts = [word.start for word in self.words]
        starts = np.fromiter(self.word_starts, np.int64, len(self.words))
        self.word_pages = self._pages_of(starts)
        self._build_sentences()
        return self

    def _pages_of(self, offsets: np.ndarray) -> np.ndarray:
        """1-based PDF page of each character offset (1 throughout without page starts)."""
        if not self.page_starts:
            return np.ones(len(offsets), np.int64)
        pages = np.searchsorted(np.asarray(self.page_starts), offsets, side="right")
        return np.maximum(pages, 1).astype(np.int64)

    def _build_sentences(self) -> None:
        sentences: list[tuple[int, int]] = []
        for span_start, span_end in self.evidence_spans:
            for start, end in split_sentences(self.text[span_start:span_end]):
                sentences.append((span_start + start, span_start + end))
        self.sentences = sentences
        self.sentence_pages = [int(p) for p in self._pages_of(np.asarray([s for s, _ in sentences],
                                                                          np.int64))]  # fmt: skip
        word_starts = self.word_starts
        stems: list[frozenset[str]] = []
        postings: dict[str, list[int]] = {}
        for index, (start, end) in enumerate(sentences):
            first = bisect.bisect_left(word_starts, start)
            last = bisect.bisect_left(word_starts, end)
            sentence_stems = frozenset(content_stems(self.words[first:last]))
            stems.append(sentence_stems)
            for value in sentence_stems:
                postings.setdefault(value, []).append(index)
        self.sentence_stems = stems
        self.stem_postings = {key: np.asarray(ids, np.int64) for key, ids in postings.items()}

    # --- pages --------------------------------------------------------------------------------

    @property
    def page_count(self) -> int:
        return max(len(self.page_starts), 1)

    def page_of(self, offset: int) -> int:
        return int(self._pages_of(np.asarray([offset], np.int64))[0])

    def printed_label(self, page: int) -> str | None:
        """The number printed on PDF page ``page`` (1-based), if known."""
        if 1 <= page <= len(self.page_labels):
            return self.page_labels[page - 1]
        return None

    # --- words ---------------------------------------------------------------------------------

    def word_at_offset(self, key_offset: int) -> int:
        """Index of the word whose characters include ``key_offset`` of the key stream."""
        return int(np.searchsorted(self.word_offsets, key_offset, side="right")) - 1

    def document_frequency(self, key: str) -> int:
        return len(self.postings.get(key, ()))

    # --- sentences -----------------------------------------------------------------------------

    def idf(self, stem_key: str) -> float:
        total = len(self.sentences)
        frequency = len(self.stem_postings.get(stem_key, ()))
        return math.log(1 + (total - frequency + 0.5) / (frequency + 0.5))

    def coverage(self, claim_stems: Sequence[str]) -> np.ndarray:
        """Per sentence, the IDF-weighted share of the claim's content stems it holds (0..1):
        summed through the postings of the claim's stems only."""
        scores = np.zeros(len(self.sentences))
        unique = list(dict.fromkeys(claim_stems))
        weights = [self.idf(value) for value in unique]
        total = sum(weights)
        if not total:
            return scores
        for value, weight in zip(unique, weights, strict=True):
            postings = self.stem_postings.get(value)
            if postings is not None:
                scores[postings] += weight
        return scores / total

    def sentence_text(self, index: int) -> str:
        start, end = self.sentences[index]
        return self.text[start:end]

    def quantities(self) -> list[tuple[int, Quantity]]:
        """(sentence, quantity) for every value stated in the evidence, computed once.

        Concurrency: two threads asking first both compute the same list and one assignment
        wins; the result is the same either way, so no lock is needed."""
        if self._quantities is None:
            found: list[tuple[int, Quantity]] = []
            for index in range(len(self.sentences)):
                text = normalise_numerals(self.sentence_text(index))
                found.extend((index, q) for q in read_quantities(text))
            self._quantities = found
        return self._quantities

    @property
    def size_bytes(self) -> int:
        return (
            len(self.text) * 2
            + len(self.keys) * 2
            + len(self.words) * _BYTES_PER_WORD
            + len(self.sentences) * _BYTES_PER_SENTENCE
        )


def _dominant_offset(labels: Sequence[str | None]) -> int | None:
    offsets: dict[int, int] = {}
    for index, label in enumerate(labels):
        if label is not None and label.isdigit():
            offset = int(label) - (index + 1)
            offsets[offset] = offsets.get(offset, 0) + 1
    return max(offsets, key=lambda offset: offsets[offset]) if offsets else None
