"""Rule CP201 (and CP202, off by default): a claim's numbers against the source's.

CP201 number-conflict (error): a number of the claim that the source states nowhere, where the
source's sentence that matches the claim holds a same-kind number it is a wrong copy of. For
each value of the claim (`citeproof.text.quantities`, the judge's own reading: percentages,
n =, fold changes and other ratios, years, durations, counts with what they count, CI levels):
1. **Stated?** A sentence states it (rounded "43 percent" for 43.2%, cut "43%" for 43.8%,
   bounded, in words, a range end by end) near a word of the claim's number or in one of the
   sentences best aligned with the claim: nothing to report. A claim's bound is stated only by
   a bound of its direction, a year only by that year.
2. **Aligned sentence.** Each source sentence is scored by the claim's IDF-weighted words it
   holds, the words near the number it holds (`_near`), the retriever's rank for it (its
   fused vector + BM25 evidence: a paraphrase's evidence ranks first though it shares few
   words), the claim's other values it states, and its counting the claim's counted thing.
   Of the best few that state a value of the kind (not a label: "Figure 2", "type 1", "[9]",
   a lost power of ten, a cited year), the one whose value stands among the claim number's own
   words, or is a value the claim's could be a wrong copy of, is meant.
3. **Pairing.** The claim's values that agree with the sentence's pair up first; one value
   left on each side pairs; else the value whose near words are clearly closest, each the
   other's best. A claim's bound pairs with a bound of its direction, a value with a value.
   A sentence's words are near a value only up to the clause break past which another value
   of the kind stands ("61% of new infections, heterosexual contact 27%"). A list the sentence
   pairs with another by order alone ("one week, two weeks, or three weeks earlier ... 66%,
   86%, and 95%, respectively"; "IgG, IgA, or IgM ... 97%, 91%, and 81% respectively") pairs
   the claim's value with the item at the place of the one item the claim names (`_by_order`,
   `ordered_lists`). Where nothing pairs surely, the sentence's values the claim's could be a
   wrong copy of (digits swapped, within a factor of two, a year within ten) are shown, but
   only when the sentence aligns strongly and the claim's value is stated nowhere in the
   source at all.
4. **Guards.** No conflict with a value computed from the sentence's (a complement, a sum or
   difference, a ratio, "reduced by 70% (RR 0.30)"); two numbers an order of magnitude apart
   (unless the same digits); a value in words ("almost half", "doubling"); a bound against a
   value (unless a wrong copy of it); a year without a word near both or a month dating
   each ("by May 2024", `source.DATED`), or one the source states anywhere; a change per
   year ("EAPC = 8.1%", `source.ANNUAL_CHANGE`) against a change over a period; counts of
   different things; the writer's own numbers ("we found ...", "we suggest ... over 80
   years"); numbers inside brackets the claim never opened (a sentence cut mid-parenthesis).
5. **The whole source** (`_source_wide`), where the best-aligned sentences gave no sure
   conflict: the claim's only value of its kind, stated nowhere in the source, against the one
   sentence holding a value it is a wrong copy of (digits swapped, or within
   `WIDE_CLOSE_FACTOR` with a word near both numbers) - a paraphrase whose sentence ranks below
   others stating values of the kind, or that the retriever did not rank. Not for years, bare
   numbers, ranges against values, or a claim stating several values of the kind.
The finding names both numbers and shows the sentence.

Measured on the seeded theses of seeds 11-13 (142 changed numbers, 985 untouched paraphrases,
the retriever's evidence emulated with its embedding model): 0.66 detected, no untouched
citation flagged; Citation-Integrity train: none of its 1,366 expert-accurate citations. What
stays unseen: the matching sentence the retriever does not rank (a tenth of the changed
numbers), lists whose order only "respectively" gives, numbers written in words or with their
unit only at the end of a list ("5, 6, 12, and 16%").

CP202 number-not-in-source (warning, `ContentRulesConfig.number_not_in_source`): a specific
value (two or more significant digits, or decimals; not a year or a count) that no sentence of
the source states with the same unit kind, rounded or not.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from citeproof.contracts.findings import FROM_SOURCE_TEXT, Difference, Evidence, Finding
from citeproof.pipeline import NUMBER_CONFLICT, NUMBER_NOT_IN_SOURCE
from citeproof.retriever.content_rules.config import ContentRulesConfig
from citeproof.retriever.content_rules.folding import FoldedWord, folded_words
from citeproof.retriever.content_rules.ordered_lists import (
    pairs_by_order,
    value_lists,
    word_series,
    year_spans,
)
from citeproof.retriever.content_rules.pages import printed_if_different
from citeproof.retriever.content_rules.source import (
    ANNUAL_CHANGE,
    DATED,
    SourceText,
    content_stems,
    read_quantities,
)
from citeproof.text.quantities import (
    APPROX,
    CI_LEVEL,
    COUNT,
    EXACT,
    LOWER,
    MONTH_NAMES,
    PERCENT,
    RATIO,
    SAMPLE_SIZE,
    UNITS,
    UPPER,
    VALUE,
    YEAR,
    Quantity,
    comparable,
    meaningful,
    normalise_numerals,
    values_agree,
)
from citeproof.text.words import parse_numeral, stem

# A value this specific is not a coincidence of wording ("3 groups", "2 weeks" are not).
MIN_SPECIFIC_DIGITS = 2
# Words near both numbers before a source's bound counts as stating the claim's value.
MIN_SHARED_FOR_A_BOUND = 2
# Two values further apart than this factor measure two things (unless one is the other's
# digits in another order): a copying slip changes a digit or two, not the order of magnitude.
MAX_CONFLICT_FACTOR = 10.0
# A bound stands for values within this share of it ("more than 30%" for 34%).
BOUND_REACH = 0.15
# Content words either side of a number that say what it is about.
NEAR_WORDS = 4
# Pairing a claim's number with one of several in the sentence: the best must share at least
# one adjacent word's worth of closeness, and be this many times closer than the next.
MIN_CLOSENESS = 0.5
CLOSER_BY = 1.5
# Two counts of no shared counted thing are one quantity only this close (two adjacent words).
MIN_COUNT_CLOSENESS = 0.5
# A sentence stating another of the claim's values aligns this much better; counts below this
# ("2 groups") are too common to show where the claim's values came from.
ANCHOR_BONUS = 0.2
MIN_ANCHOR_COUNT = 100
BOUNDS = (LOWER, UPPER)
# Characters before a number searched for a label word ("Figure", "type").
LABEL_LOOKBEHIND = 30
_LABEL_BEFORE = re.compile(
    r"\b(?:fig(?:ure)?s?|tables?|refs?|references?|eq(?:uation)?s?|chapters?|sections?|"
    r"appendix|supplementary|phase|types?|grades?|stages?|steps?|versions?|clades?|lineages?|"
    r"wave|arms?|cohort|groups?|trials?|studies|study|weeks?|covid|sars-cov|disease|"
    r"patients? no|no|nos|nr)\.?\s*[–-]?\s*$",
    re.IGNORECASE,
)
# A bound's qualifier right before its number, shown with it.
BOUND_CUE_CHARS = 16
_BOUND_CUE = re.compile(
    r"(?:(?:more|greater|higher|older|less|fewer|lower|younger) than|over|under|above|below|"
    r"at least|at most|up to|[<>≤≥])\s*$",
    re.IGNORECASE,
)
_TRAILING_CUE = re.compile(
    r" or (?:younger|older|less|fewer|lower|more|greater|higher|below|under|above|over)\b"
)
_POWER_BEFORE = re.compile(r"\d\s*[×x]\s*$")
_POWER_AFTER = re.compile(r"\s*[×x]\s*10")
# "16S gene", "23S rRNA", "5C": a count glued to a capital letter that ends the word names a thing.
_GLUED_CAPITAL_AFTER = re.compile(r"[A-Z](?![A-Za-z])")
_IN_BRACKETS_BEFORE = re.compile(r"\[[\d,;\s–-]*$")
_IN_BRACKETS_AFTER = re.compile(r"[\d,;\s–-]*(?:pp?\.\s*[\dA-Za-z–-]+\s*)?\]")
# "et al., 2014", "Sporns, 2011", "Smith and Jones 2009": a citation's year.
_CITED_YEAR_BEFORE = re.compile(
    r"(?:\bal\.,?|\b(?!(?:January|February|March|April|May|June|July|August|September|"
    r"October|November|December)\b)[A-Z][\w'’-]+,"
    r"|[A-Z][\w'’-]+ (?:and|&) [A-Z][\w'’-]+,?)\s*$"
)
# The retriever's best passage aligns this much better (its n-th best, this divided by n).
EVIDENCE_BONUS = 0.3
# A year beside a month at most this many words away is a date.
DATE_DISTANCE = 2
_MONTH_STEMS = frozenset(stem(month) for month in MONTH_NAMES)
# Of the best-aligned sentences stating values of the kind, the one whose value stands
# closest to the claim number's words (`_closeness`, counted up to the cap) is meant.
CLOSENESS_WEIGHT = 0.2
CLOSENESS_CAP = 2.0
# The claim's other values stated in a sentence count up to this many; a year half.
MAX_ANCHORS = 2.0
YEAR_ANCHOR = 0.5
# A sentence counting the claim's counted thing aligns this much better.
HEAD_BONUS = 0.2
# Floating-point slack for a truncation's one-unit window.
TRUNCATION_EPSILON = 1e-9
# Where no value of the best-aligned sentence is surely the claim's, its close values are
# reported only when that sentence aligns this well and the claim's value is nowhere in the
# source; close: within this share, or a year within this many years.
STRONG_ALIGNMENT = 0.5
CLOSE_SHARE = 1.0
CLOSE_YEARS = 10
# A sentence holding a value the claim's number could be a wrong copy of aligns this much
# better (among the best-aligned and the retrieved sentences).
CLOSE_VALUE_BONUS = 0.2
# A derived value (a complement, a sum, a ratio) may round its result this much; a round
# figure (a multiple of this) may stand for it when the claim says "about".
DERIVED_SHARE = 0.01
ROUND_FIGURE = 10
# Looking through the whole source (`_source_wide`): the sentence meant must align with the
# claim around its number at least this well.
WIDE_MIN_ALIGNMENT = 0.1
# ... and the claim's value lie within this factor of the source's (or be its digits swapped),
# with a word near both numbers (a word four words away from each counts 0.25: a parenthesis
# after the source's number, "44% (95% confidence interval, 25-69%) of secondary cases",
# pushes its words that far).
WIDE_CLOSE_FACTOR = 1.6
WIDE_MIN_CLOSENESS = 0.25


def claim_values(claim: str) -> list[Quantity]:
    """The values a claim states, its sample sizes and its CI levels (not its CI bounds or
    p-values); ``claim`` with its numerals normalised (`normalise_numerals`)."""
    return [q for q in read_quantities(claim) if q.role in (VALUE, SAMPLE_SIZE, CI_LEVEL)]


def _admits(mine: Quantity, theirs: Quantity) -> bool:
    """The source's value stands for the claim's (`values_agree`), and where one of the two is a
    bound and the other a value, the value lies near the bound: writers round a figure down to
    a bound ("more than 30%" for 34%), they do not state a far one ("below 79 years" for "55
    years"), and an exact 1.5% is not what "at most 17%" reports."""
    if not values_agree(mine, theirs):
        return _truncated(mine, theirs)
    if mine.low is not None and theirs.bound in BOUNDS:
        # A bound states one end: "5 to <10%" (read as "<10%") is no source of "6%-10%".
        return False
    if mine.bound == APPROX and theirs.bound == APPROX:
        # "about 57%" and "roughly 50%": each admits the other only within its own slack.
        return abs(mine.value - theirs.value) <= max(mine.tolerance, theirs.tolerance)
    if mine.low is not None and theirs.low is not None:
        # Two overlapping ranges agree unless one end is copied and the other is not: "eight
        # to 41 minutes" is not "8 to 14 min"; "~20-25%" summarises "22 to 33%".
        return _ends_agreeing(mine, theirs) != 1
    bounds = (LOWER, UPPER)
    if mine.bound in bounds and theirs.bound in bounds:
        # "below 65 years" and "older than 55 years" overlap, and say opposite things.
        return mine.bound == theirs.bound
    if (mine.bound in bounds) == (theirs.bound in bounds):
        return True
    bound, value = (mine, theirs) if mine.bound in bounds else (theirs, mine)
    return abs(value.value - bound.value) <= BOUND_REACH * abs(bound.value) + bound.tolerance


def _windows_overlap(one: float, other: float, slack: float) -> bool:
    """Two values agree when their rounding windows (``slack``: both tolerances) overlap, not
    when they only touch; equal values always agree."""
    return abs(one - other) < slack - TRUNCATION_EPSILON or abs(one - other) <= TRUNCATION_EPSILON


def _ends_agreeing(mine: Quantity, theirs: Quantity) -> int:
    """How many ends of two ranges agree (0, 1 or 2), truncation included ("2.5 g-14 g" for
    "2.5-14.9 g"). Two ends agree when their rounding windows overlap, not when they only
    touch: "6%-10%" does not agree with "5-10%" at its low end."""
    slack = mine.tolerance + theirs.tolerance
    return sum(
        _windows_overlap(one, other, slack)
        or (cut and 0 <= other - one < 2 * mine.tolerance + TRUNCATION_EPSILON)
        for one, other, cut in (
            (mine.low or 0.0, theirs.low or 0.0, _decimals(theirs.text) > _decimals(mine.text)),
            (
                mine.high or 0.0,
                theirs.high or 0.0,
                _decimals(theirs.text, -1) > _decimals(mine.text, -1),
            ),
        )
    )


def _truncated(mine: Quantity, theirs: Quantity) -> bool:
    """The claim's value is the source's cut after the claim's last digit ("43%" for 43.8%):
    within one unit of that digit below it. A range or a bound is not cut this way."""
    if mine.bound != EXACT or theirs.bound not in (EXACT, APPROX) or mine.low is not None:
        return False
    if theirs.low is not None or _decimals(theirs.text) <= _decimals(mine.text):
        return False  # only digits the source has and the claim leaves out are cut
    return 0 <= theirs.value - mine.value < 2 * mine.tolerance + TRUNCATION_EPSILON


def _decimals(text: str, which: int = 0) -> int:
    """Digits after the decimal point of the quantity's first (or ``which``) number."""
    numerals = _FIRST_NUMERAL.findall(text)
    if not numerals or "." not in numerals[which]:
        return 0
    return len(numerals[which].split(".")[1])


def _stated_somewhere(
    source: SourceText, quantity: Quantity, coverage: np.ndarray, aligned: Sequence[int]
) -> bool:
    """Some sentence states the claim's value for a comparable quantity: one of the sentences
    best aligned with the claim's number, or any sentence near a word of the claim's number.
    A bound ("less than a fifth", "over 40%") admits many values: it counts only near two
    words of the claim's number."""
    ends: set[float] = set()
    for index, other in source.quantities():
        if (
            quantity.kind == COUNT
            and index in aligned
            and _written(other) is not None
            and abs(_written(other) - quantity.value) <= quantity.tolerance  # type: ignore[operator]
        ):
            return True  # "10 vs. 15 days": a bare 10 for the sentence's "10 days"
        if not (
            other.role == quantity.role
            and comparable(quantity, other)
            and _admits(quantity, other)
            and _states(quantity, other)
        ):
            continue
        shared = meaningful(quantity.context & other.context)
        if other.bound in (LOWER, UPPER):
            if len(shared) >= MIN_SHARED_FOR_A_BOUND:
                return True
        elif quantity.low is None and other.low is not None:
            # A range states a single value at one of its ends, not anywhere inside it; and,
            # like a bound, admits many: away from the aligned sentences it counts only near
            # two words of the claim's number ("5, 6, 12, and 16% of goblet cells ... increases"
            # is not stated by "weight losses of 5 to <10% ... increased the odds").
            at_end = any(_ends_at(other, quantity))
            if at_end and (index in aligned or len(shared) >= MIN_SHARED_FOR_A_BOUND):
                return True
        elif (
            (shared or index in aligned)
            and quantity.low is not None
            and quantity.bound == EXACT
            and other.low is None
        ):
            # An exact range is stated by values at both its ends, not by one inside it (2.49%
            # for "1.90% to 4.16%"); "~25-30%" summarises what lies in it.
            ends.update(_ends_at(quantity, other))
            if len(ends) == 2:
                return True
        elif shared or index in aligned:
            return True
    return False


def _states(quantity: Quantity, other: Quantity) -> bool:
    """Whether ``other`` states the claim's value rather than only admits it: a claim's bound
    is stated by a bound of its direction ("up to 60 percent" is not stated by "40-50%"), and
    a year by that year, not by a span of years around it ("in 2014", "from 2005 to 2015")."""
    if quantity.bound in BOUNDS:
        return other.bound == quantity.bound
    if quantity.kind == YEAR and other.low is not None:
        return quantity.value in (other.low, other.high)
    if quantity.low is not None and other.low is not None and quantity.bound == EXACT:
        # An exact range is stated by one with both its ends: "1.90% to 4.16%" is not the
        # "2.58-5.70%" it overlaps.
        return _ends_agreeing(quantity, other) == 2
    return True


_DIGIT = re.compile(r"\d")
_FIRST_NUMERAL = re.compile(r"\d[\d,]*(?:\.\d+)?")


def _written(quantity: Quantity) -> float | None:
    """The first number of the quantity as written ("10" of "10 days", "1.3" of "1.3 million")."""
    match = _FIRST_NUMERAL.search(quantity.text)
    return parse_numeral(match.group()) if match else None


def _evidence(source: SourceText, sentence: int) -> Evidence:
    page = source.sentence_pages[sentence]
    return Evidence(
        origin=FROM_SOURCE_TEXT,
        text=source.sentence_text(sentence),
        page=page if source.page_starts else None,
        printed_page=printed_if_different(source, page),
        document_id=source.document_id,
    )


def _is_specific(quantity: Quantity) -> bool:
    digits = sum(char.isdigit() for char in quantity.text.split(".")[0])
    decimals = "." in quantity.text or "," in quantity.text
    return (
        quantity.bound == EXACT
        and quantity.kind not in (YEAR, COUNT)
        and (digits >= MIN_SPECIFIC_DIGITS or decimals)
    )


Near = dict[str, int]  # stem of a content word near a number -> its distance in words (1: next)


def _near(words: Sequence[FoldedWord], start: int, end: int) -> Near:
    """The content words up to `NEAR_WORDS` either side of the number at ``start:end`` (the
    words of its text, in order), each with its distance: what the number is about, read the
    way the sentence matching reads words (`content_stems`), so that the two agree."""
    starts = [word.start for word in words]
    first = bisect.bisect_left(starts, start)
    last = bisect.bisect_left(starts, end)
    near: Near = {}
    for side in (reversed(words[:first]), words[last:]):
        distance = 0
        for word in side:
            stems = content_stems([word])
            if not stems or word.key in UNITS:
                continue  # a unit ("years", "mg") says nothing of which quantity is meant
            distance += 1
            if distance > NEAR_WORDS:
                break
            near[stems[0]] = min(near.get(stems[0], distance), distance)
    return near


def _closeness(mine: Near, theirs: Near) -> float:
    """How surely two numbers are about the same thing: the words near both, each counted by
    how close it stands to each number (adjacent words count 1 on a side)."""
    return sum((1 / mine[value] + 1 / theirs[value]) / 2 for value in mine.keys() & theirs.keys())


def _alignment(source: SourceText, near: Near, coverage: np.ndarray) -> np.ndarray:
    """Per sentence, how well it aligns with the claim around this number: the mean of the
    claim's coverage (IDF-weighted share of its content words) and the same share of the words
    near the number - so that of two sentences about the claim, the one about this number's
    part of it wins ("whereas rare de novo variants accounted for 1.5%")."""
    total = sum(source.idf(value) for value in near)
    if not total:
        return coverage
    local = np.zeros(len(source.sentences))
    for value in near:
        postings = source.stem_postings.get(value)
        if postings is not None:
            local[postings] += source.idf(value)
    return (coverage + local / total) / 2


@dataclass(frozen=True)
class _Stated:
    """A value of a source sentence, with the words near it."""

    quantity: Quantity
    near: Near


def _sentence_values(source: SourceText, sentence: int, found: Sequence[Quantity]) -> list[_Stated]:
    offset = source.sentences[sentence][0]
    end = source.sentences[sentence][1]
    first = bisect.bisect_left(source.word_starts, offset)
    last = bisect.bisect_left(source.word_starts, end)
    words = source.words[first:last]
    text = source.sentence_text(sentence)
    lists = value_lists(text, found)
    stated = []
    for other in found:
        # Values of one list ("66%, 86%, and 95%") share the words around the list.
        mates = next((items for items in lists if other in items), [other])
        low, high = _own_clauses(text, other, [o for o in found if o not in mates])
        mine = [word for word in words if offset + low <= word.start < offset + high]
        stated.append(_Stated(other, _near(mine, offset + other.start, offset + other.end)))
    return stated


# A clause break inside a sentence: a comma or semicolon before a space ("1,000" is no break).
_CLAUSE_BREAK = re.compile(r"[,;](?=\s)")


def _own_clauses(text: str, quantity: Quantity, others: Sequence[Quantity]) -> tuple[int, int]:
    """The span of ``text`` whose words may say what ``quantity`` is about: up to the clause
    break (a comma, a semicolon) past which the next clause holds another value of the kind -
    in "MSM accounted for 61% of new infections, heterosexual contact 27%, injection drug use
    9%", "heterosexual contact" is about 27%, not 61%."""
    breaks = [match.start() for match in _CLAUSE_BREAK.finditer(text)]
    low, high = 0, len(text)
    after = [b for b in breaks if b >= quantity.end]
    for here, following in itertools.pairwise([*after, len(text)]):
        if any(here < other.start < following for other in others):
            high = here
            break
    before = [b for b in reversed(breaks) if b < quantity.start]
    for here, preceding in itertools.pairwise([*before, -1]):
        if any(preceding < other.start < here for other in others):
            low = here + 1
            break
    return low, high


def _derived(
    quantity: Quantity, stated: Sequence[Quantity], claimed: Sequence[Quantity] = ()
) -> bool:
    """The claim's value is one a writer computes from the sentence's: a percentage's
    complement ("62% had no symptoms" from "38% had symptoms"), the sum or difference of two
    values of its kind ("a 12-point gap" from 46% and 34%), or the ratio of two (a share of
    two counts, a fold change of two values). Years and bounds are never derived."""
    if quantity.kind == YEAR or quantity.bound in (LOWER, UPPER):
        return False
    values = [other.value for other in stated if other.role == VALUE]
    same = [other for other in stated if other.role == VALUE and other.kind == quantity.kind]
    # A complement, sum or difference of the values as printed is off by the claim's rounding
    # only ("74.7%" is no sum of 56.2% and 18.8%).
    exact = [100 - other.value for other in same if quantity.kind == PERCENT]
    for first, second in itertools.combinations(same, 2):
        exact.extend((first.value + second.value, abs(first.value - second.value)))
    own = _computed_tolerance(quantity) + TRUNCATION_EPSILON
    if any(abs(value - quantity.value) <= own for value in exact):
        return True
    candidates: list[float] = []
    if quantity.kind == PERCENT:
        # "reduced mortality by 70% (RR 0.30)": a ratio's change in percent, of the claim's
        # own ratios or the sentence's.
        ratios = [o.value for o in (*stated, *claimed) if o.kind == RATIO and o.role == VALUE]
        candidates.extend(abs(1 - ratio) * 100 for ratio in ratios)
    if quantity.kind in (PERCENT, RATIO):
        scale = 100 if quantity.kind == PERCENT else 1
        for top, bottom in itertools.permutations(values, 2):
            if bottom:
                candidates.append(top / bottom * scale)
    slack = max(_computed_tolerance(quantity), DERIVED_SHARE * abs(quantity.value))
    return any(abs(value - quantity.value) <= slack for value in candidates)


def _computed_tolerance(quantity: Quantity) -> float:
    """What a value computed from others may be off by: its digits' rounding, also where a word
    such as "estimated" makes it approximate ("estimated 53%" is no complement of 44%); only a
    round figure ("about 60%" for 100 - 38) keeps its approximate tolerance."""
    written = _written(quantity)
    if quantity.bound != APPROX or not written:
        return quantity.tolerance
    decimals = _decimals(quantity.text)
    if decimals == 0 and written.is_integer() and written % ROUND_FIGURE == 0:
        return quantity.tolerance
    return 0.5 * 10.0**-decimals * abs(quantity.value / written)


def _plausible_miscopy(quantity: Quantity, theirs: Quantity) -> bool:
    """Two numbers far apart are two quantities, not one copied wrong: within a factor of
    `MAX_CONFLICT_FACTOR`, or the same digits in another order (19 and 91)."""
    if quantity.kind == YEAR:
        return True
    mine, other = abs(quantity.value), abs(theirs.value)
    if min(mine, other) > 0 and max(mine, other) / min(mine, other) <= MAX_CONFLICT_FACTOR:
        return True
    return _permuted(quantity, theirs)


def _permuted(quantity: Quantity, theirs: Quantity) -> bool:
    """The same digits in another order (19 and 91)."""
    return sorted(_digits(quantity.text)) == sorted(_digits(theirs.text))


def _digits(text: str) -> str:
    return "".join(char for char in text if char.isdigit()).lstrip("0")


def _partner(
    quantity: Quantity,
    near: Near,
    claim_same: Sequence[tuple[Quantity, Near]],
    stated: Sequence[_Stated],
) -> _Stated | None:
    """The sentence's value that the claim's ``quantity`` stands for, when that is sure.

    The claim's values of this kind that agree with one of the sentence's are paired with it
    first. Of the rest: one value of the claim and one of the sentence (perhaps stated twice)
    pair up; else the sentence's value whose near words are closest to the claim's number's
    (`_closeness`), clearly closer than any other of its values, and closer to this number than
    to any other unpaired number of the claim (each is the other's best)."""
    free_stated = list(stated)
    free_claim: list[tuple[Quantity, Near]] = []
    for mine, mine_near in claim_same:
        match = next((theirs for theirs in free_stated if _admits(mine, theirs.quantity)), None)
        if match is None:
            free_claim.append((mine, mine_near))
        else:
            free_stated.remove(match)
    # A bound pairs with a bound of its direction, a value with a value (`_conflict`).
    if quantity.bound in BOUNDS:
        free_stated = [theirs for theirs in free_stated if theirs.quantity.bound == quantity.bound]
    else:
        exact = [theirs for theirs in free_stated if theirs.quantity.bound not in BOUNDS]
        free_stated = exact or free_stated
    # Equality, not identity: the claim is read again for each citation, and the content
    # rules' reading (`read_quantities`) gives new objects for the values it re-kinds.
    if all(mine != quantity for mine, _ in free_claim) or not free_stated:
        return None
    if len(free_claim) == 1 and len({theirs.quantity.text for theirs in free_stated}) == 1:
        return free_stated[0]
    ranked = sorted(free_stated, key=lambda theirs: -_closeness(near, theirs.near))
    best = _closeness(near, ranked[0].near)
    if best < MIN_CLOSENESS:
        return None
    if len(ranked) > 1 and _closeness(near, ranked[1].near) * CLOSER_BY > best:
        return None
    if any(
        _closeness(other_near, ranked[0].near) >= best
        for other, other_near in free_claim
        if other != quantity
    ):
        return None
    return ranked[0]


def _conflict(quantity: Quantity, near: Near, theirs: _Stated) -> bool:
    """The paired values differ, and are surely one quantity written two ways."""
    other = theirs.quantity
    if _admits(quantity, other) or not _DIGIT.search(other.text):
        # A value in words ("almost half", "doubling") is not what a wrong digit came from.
        return False
    if (quantity.subtype == ANNUAL_CHANGE) != (other.subtype == ANNUAL_CHANGE):
        # A change per year ("EAPC = 8.1%") is no copy of the change over a period ("a 21%
        # increase from 2006 to 2009").
        return False
    if quantity.low is not None and other.low is not None and not _ends_agreeing(quantity, other):
        # A copying slip changes one end of a range: "approximately 11-15%" keeps neither end
        # of "5 to <10%" and is a figure of its own.
        return False
    if quantity.low is not None and other.low is None and not _end_near(quantity, other.value):
        # A range neither end of which lies near the single value ("approximately 11-15%"
        # beside "approximately 1.4%") is a figure of its own: a slip changes one number.
        return False
    # A bound is no value: "up to 40%" or "~50%" beside "49.4%" or "A1C <7.0%" is a claim
    # about a range; two bounds of one direction ("fewer than 10%", "less than 14%") conflict.
    if quantity.bound in BOUNDS and (
        quantity.bound != other.bound
        or (
            _closeness(near, theirs.near) < MIN_CLOSENESS
            and not (meaningful(quantity.context & other.context) and _wide_close(quantity, other))
        )
    ):
        # Two bounds are one quantity only with words near both: "over the age of 70" and a
        # writer's own "patients aged >65 years of age" are not; a word in the clause of each
        # does for two close values ("reduce ... by up to 34 percent", "reduce peak attack
        # rates by up to 40%").
        return False
    if (
        other.bound in BOUNDS
        and quantity.bound != other.bound
        and not (quantity.bound == EXACT and quantity.low is None and _close_value(quantity, other))
    ):
        # An exact value beside a bound conflicts only as a copy of it gone wrong: ">18 months"
        # written "81 months" or "23 months"; an exact 1.5% is within "at most 17%" and says
        # something else.
        return False
    if other.bound in BOUNDS and quantity.bound != other.bound and _within(quantity, other):
        # A value the bound admits is a copy of it only when close: "23 months" for ">18
        # months"; "10 rounds" is what "at least 5 cycles" allows, not a wrong copy of it.
        mine, bound = abs(quantity.value), abs(other.value)
        if not _permuted(quantity, other) and (
            not min(mine, bound) or max(mine, bound) / min(mine, bound) > WIDE_CLOSE_FACTOR
        ):
            return False
    # The same confidence interval, copied with the estimate, makes one quantity whatever the
    # words ("50,600 (95% CI: 49,100-62,900)" for "56,000 (95% CI: 49,100-62,900)").
    if not (_same_ci(quantity, other) and quantity.kind == other.kind):
        if quantity.kind == COUNT and not (quantity.head & other.head):
            # Counts without a shared counted thing ("61 cases", "22 sequons"): a specific
            # value, and words near both.
            if not _specific_count(quantity) or _closeness(near, theirs.near) < MIN_COUNT_CLOSENESS:
                return False
        elif not comparable(quantity, other):
            return False
    if quantity.kind == YEAR and not (
        meaningful(quantity.context & other.context)
        or _closeness(near, theirs.near)
        or (
            (_dated(near) or quantity.subtype == DATED)
            and (_dated(theirs.near) or other.subtype == DATED)
        )
    ):
        return False
    return _plausible_miscopy(quantity, other)


def _end_near(quantity: Quantity, value: float) -> bool:
    """An end of the range ``quantity`` within `WIDE_CLOSE_FACTOR` of ``value``."""
    ends = (quantity.low, quantity.high)
    return any(
        end is not None
        and min(abs(end), abs(value)) > 0
        and max(abs(end), abs(value)) / min(abs(end), abs(value)) <= WIDE_CLOSE_FACTOR
        for end in ends
    )


def _same_ci(quantity: Quantity, other: Quantity) -> bool:
    """Both values carry a confidence interval, and its two ends agree (within their rounding)."""
    if quantity.ci is None or other.ci is None:
        return False
    slack = quantity.tolerance + other.tolerance
    return all(
        _windows_overlap(mine, theirs, slack)
        for mine, theirs in zip(quantity.ci, other.ci, strict=True)
    )


def _within(quantity: Quantity, bound: Quantity) -> bool:
    """The value lies on the side of the bound it admits (10 for "at least 5")."""
    if bound.bound == LOWER:
        return quantity.value >= bound.value
    return quantity.value <= bound.value


def _dated(near: Near) -> bool:
    """A month next to the year ("March 2016", "February 23, 2020"): a date either way."""
    return any(
        value in _MONTH_STEMS and distance <= DATE_DISTANCE for value, distance in near.items()
    )


def _same_kind(quantity: Quantity, other: Quantity) -> bool:
    return other.role == quantity.role and other.kind == quantity.kind


def _unopened_end(text: str) -> int:
    """Where a parenthesis closed that the text never opened ends (0 if none): a claim cut from
    the middle of a sentence ("161,000, 359,000) confirmed cases.") begins inside brackets,
    where numbers are a CI's bounds or an aside, not what the claim states."""
    depth = 0
    end = 0
    for index, char in enumerate(text):
        if char in "([":
            depth += 1
        elif char in ")]":
            if depth:
                depth -= 1
            else:
                end = index + 1
    return end


def _specific_count(quantity: Quantity) -> bool:
    """A count that is no coincidence of wording: two significant digits or decimals ("two
    patterns", "transcript 2" are not)."""
    digits = _digits(quantity.text.split(".")[0].split(",")[0])
    return len(digits) >= MIN_SPECIFIC_DIGITS or "." in quantity.text


def _is_label(text: str, quantity: Quantity) -> bool:
    """A number that names rather than measures: "Figure 5C", "Table 2", "type 2", "phase 3",
    a count glued to a capital ("16S gene"), a power of ten whose superscript the text layer
    lost ("2.5×104"), or a year cited in parentheses ("(Crossley et al., 2014)", "Smith,
    2011;")."""
    before = text[max(0, quantity.start - LABEL_LOOKBEHIND) : quantity.start]
    after = text[quantity.end : quantity.end + 2]
    if _IN_BRACKETS_BEFORE.search(before) and _IN_BRACKETS_AFTER.match(text, quantity.end):
        return True  # a citation marker of the source's own: "[9]", "[2, 3]"
    if _LABEL_BEFORE.search(before):
        return True
    # A power of ten whose superscript the text lost ("2.5×104", "1 × 106"): "×10..." after a
    # number; a factor such as "IC ×1160" is a value.
    if _POWER_BEFORE.search(before) and quantity.text.startswith("10"):
        return True
    if _POWER_AFTER.match(text, quantity.end):
        return True
    if quantity.kind == COUNT and _GLUED_CAPITAL_AFTER.match(text, quantity.end):
        return True  # "16S gene pyrosequencing" is no count of 16 genes
    if quantity.kind == YEAR and _CITED_YEAR_BEFORE.search(before):
        return True
    decade = re.fullmatch(r"\d{4}", quantity.text) and after[:1] in ("s", "'", "’")
    return bool(decade)  # "the late 1980s"


def _counting(source: SourceText, quantity: Quantity) -> np.ndarray:
    """Per sentence, whether it counts the claim's counted thing ("108 participants" for "125
    participants")."""
    counting = np.zeros(len(source.sentences), dtype=bool)
    for index, other in source.quantities():
        if other.kind == COUNT and other.role == quantity.role and quantity.head & other.head:
            counting[index] = True
    return counting


def _anchors(source: SourceText, claimed: Sequence[Quantity], quantity: Quantity) -> np.ndarray:
    """Per sentence, how many of the claim's other values it states (a year counts half, a
    small count or a value in words not at all): the sentence the claim took its other
    numbers from likely holds this one too."""
    anchors = np.zeros(len(source.sentences))
    others = [
        other
        for other in claimed
        if other != quantity
        and _DIGIT.search(other.text)
        and (other.kind == YEAR or _specific_count(other))
        and not (other.kind == COUNT and abs(other.value) < MIN_ANCHOR_COUNT)
    ]
    if not others:
        return anchors
    for other in others:
        seen: set[int] = set()
        for index, theirs in source.quantities():
            if (
                index not in seen
                and other.kind == theirs.kind
                and other.role == theirs.role
                and _admits(other, theirs)
            ):
                seen.add(index)
                anchors[index] += YEAR_ANCHOR if other.kind == YEAR else 1.0
    return np.minimum(anchors, MAX_ANCHORS)


def _anywhere(source: SourceText, quantity: Quantity) -> bool:
    """Any sentence of the source states the claim's value, whatever it is about (rounded,
    truncated, or, for a bare count, the same number of anything); a single value by a range
    only at one of its ends. A range is stated by the same range, or by values at both its
    ends: one value inside it ("7%" or "10%" for "6%-10%"), or a range overlapping it
    ("7-7.5%"), is not it."""
    ends: set[float] = set()
    for _, other in source.quantities():
        if other.role == quantity.role and other.kind == quantity.kind and _admits(quantity, other):
            if quantity.low is None and other.low is not None:
                # A range states a single value at its ends, not inside it: "5.1 percent" is
                # not stated by a CI "(2.58-5.70%)".
                if _ends_at(other, quantity):
                    return True
                continue
            if quantity.low is None or (
                other.low is not None and _ends_agreeing(quantity, other) == 2
            ):
                return True
            ends.update(_ends_at(quantity, other))
            if len(ends) == 2:
                return True
        written = _written(other)
        if quantity.kind == COUNT and written is not None:
            if abs(written - quantity.value) <= quantity.tolerance:
                return True
    return False


def _ends_at(quantity: Quantity, other: Quantity) -> list[float]:
    """The ends of the range ``quantity`` the single value ``other`` states (within their
    rounding)."""
    if other.low is not None:
        return []
    slack = quantity.tolerance + other.tolerance
    ends = (quantity.low or 0.0, quantity.high or 0.0)
    return [end for end in ends if _windows_overlap(end, other.value, slack)]


def _unpaired(
    quantity: Quantity,
    near: Near,
    claim_same: Sequence[tuple[Quantity, Near]],
    stated: Sequence[_Stated],
) -> list[_Stated]:
    """The sentence's values the claim's number may be a wrong copy of, when no single one is
    surely meant (several of the kind: "reduced by 66%, 86%, and 95%, respectively") but the
    claim's value is stated nowhere in the source: the unpaired values it could conflict with
    and lies close to (`_close_value`); the closest to its words first."""
    free = [
        theirs
        for theirs in stated
        if not any(_admits(mine, theirs.quantity) for mine, _ in claim_same)
    ]
    close = [
        theirs
        for theirs in free
        if _conflict(quantity, near, theirs)
        and _close_value(quantity, theirs.quantity)
        and (
            len(claim_same) == 1
            or quantity.bound in BOUNDS  # paired with a bound of its direction only
            or _wide_close(quantity, theirs.quantity)
        )
    ]
    return sorted(close, key=lambda theirs: -_closeness(near, theirs.near))


def _wide_close(quantity: Quantity, theirs: Quantity) -> bool:
    """Its digits in another order, or within `WIDE_CLOSE_FACTOR`: of a claim stating several
    values of the kind, one the sentence does not state is as likely another study's figure
    ("a 21% increase in incidence ..., driven by a 34% increase ... and 48% increase" beside
    the source's 34%, 48% and 12.2%)."""
    if _permuted(quantity, theirs):
        return True
    mine, other = abs(quantity.value), abs(theirs.value)
    return min(mine, other) > 0 and max(mine, other) / min(mine, other) <= WIDE_CLOSE_FACTOR


def _close_value(quantity: Quantity, theirs: Quantity) -> bool:
    """A value a copying slip could have made of the source's: its digits in another order,
    within `CLOSE_SHARE` of it, or a year within `CLOSE_YEARS`; of two ranges sharing one end,
    the other ends ("eight to 41 minutes" for "8 to 14 min")."""
    if _permuted(quantity, theirs):
        return True
    if quantity.low is not None and theirs.low is not None and _ends_agreeing(quantity, theirs):
        slack = quantity.tolerance + theirs.tolerance
        end = -1 if abs(quantity.low - theirs.low) <= slack else 0
        mine, other = (quantity.high, theirs.high) if end else (quantity.low, theirs.low)
        written = (_FIRST_NUMERAL.findall(quantity.text), _FIRST_NUMERAL.findall(theirs.text))
        # The changed end's digits as written (a range's end in words has none).
        legible = all(written) and (end == -1 or all(len(numerals) == 2 for numerals in written))
        if legible and sorted(_digits(written[0][end])) == sorted(_digits(written[1][end])):
            return True
        return _close_number(quantity.kind, mine or 0.0, other or 0.0)
    return _close_number(quantity.kind, quantity.value, theirs.value)


def _close_number(kind: str, mine: float, other: float) -> bool:
    if kind == YEAR:
        return abs(mine - other) <= CLOSE_YEARS
    mine, other = abs(mine), abs(other)
    return min(mine, other) > 0 and max(mine, other) / min(mine, other) <= 1 + CLOSE_SHARE


def _as_written(text: str, quantity: Quantity) -> str:
    """The value as its sentence writes it, a bound with its qualifier (">18 months")."""
    if quantity.bound not in BOUNDS:
        return quantity.text
    cue = _BOUND_CUE.search(text[max(0, quantity.start - BOUND_CUE_CHARS) : quantity.start])
    trailing = _TRAILING_CUE.match(text, quantity.end)
    return (cue.group() if cue else "") + quantity.text + (trailing.group() if trailing else "")


def _listed(texts: Sequence[str]) -> str:
    unique = list(dict.fromkeys(texts))
    if len(unique) <= 1:
        return unique[0] if unique else ""
    return ", ".join(unique[:-1]) + " or " + unique[-1]


def _source_wide(
    source: SourceText,
    quantity: Quantity,
    near: Near,
    alignment: np.ndarray,
    claim_same: Sequence[tuple[Quantity, Near]],
    by_sentence: Mapping[int, Sequence[Quantity]],
) -> tuple[int, _Stated] | None:
    """Where the best-aligned sentences gave no sure conflict: the one value in the whole
    source the claim's value is a wrong copy of. The claim's value is stated nowhere in the
    source, and it is the claim's only value of its kind; every sentence stating a same-kind
    value it could be a copy of (`_wide_copy`, `_conflict`) is a candidate, scored by how well it
    aligns with the claim around the number and by the words near both numbers; the best is
    meant when it aligns at least `WIDE_MIN_ALIGNMENT`, holds only that one such value, and
    is clearly better than any other candidate (by `CLOSER_BY`). A paraphrase's matching
    sentence that the retriever did not rank, or that states its value among words of its own,
    is found this way; a number the source states nowhere near the claim's words is not."""
    if quantity.bound in BOUNDS or _anywhere(source, quantity):
        return None
    if len(claim_same) > 1:
        # Several values of the kind that the best-aligned sentences did not pair: another
        # study's figures ("46% and 4% in type 1 diabetes, and 25% and 0.5% in type 2"), or
        # two that could each be the wrong copy ("6 months, 16 months" for "12 months").
        return None
    if quantity.kind == YEAR or (quantity.kind == COUNT and not quantity.head):
        # A year, or a bare number, says too little of what it dates or counts to be matched
        # with one far from the claim's words ("Yau et al. (2012)" and "in 2010").
        return None
    scored: list[tuple[float, int, list[_Stated]]] = []
    for index, found in by_sentence.items():
        kind = [other for other in found if _same_kind(quantity, other)]
        if not kind:
            continue
        text = normalise_numerals(source.sentence_text(index))
        kind = [other for other in kind if not _is_label(text, other)]
        close = [
            theirs
            for theirs in _sentence_values(source, index, kind)
            # A range is no wrong copy of a single value, nor a value of a range.
            if (theirs.quantity.low is None) == (quantity.low is None)
            and not any(_admits(mine, theirs.quantity) for mine, _ in claim_same)
            and _wide_copy(quantity, near, theirs)
            and _conflict(quantity, near, theirs)
        ]
        if close:
            closest = max(_closeness(near, theirs.near) for theirs in close)
            score = float(alignment[index]) + CLOSENESS_WEIGHT * min(closest, CLOSENESS_CAP)
            scored.append((score, index, close))
    if not scored:
        return None
    scored.sort(key=lambda item: -item[0])
    score, index, close = scored[0]
    if alignment[index] < WIDE_MIN_ALIGNMENT or len({t.quantity.text for t in close}) != 1:
        return None
    theirs = close[0]
    rivals = [
        item for item in scored[1:] if {t.quantity.text for t in item[2]} != {theirs.quantity.text}
    ]
    if rivals and rivals[0][0] * CLOSER_BY > score:
        # Another value of the source is about as likely the one copied.
        return None
    return index, theirs


def _by_order(
    source: SourceText,
    quantity: Quantity,
    near: Near,
    claimed: Sequence[Quantity],
    claim_stems: frozenset[str],
    by_sentence: Mapping[int, Sequence[Quantity]],
    alignment: np.ndarray,
    rivals: Sequence[tuple[Quantity, Near]] = (),
    claim: str = "",
) -> tuple[int, _Stated] | None:
    """The value a sentence pairs with the claim's by order alone (`ordered_lists`): "one
    week, two weeks, or three weeks earlier ... reduced by 66%, 86%, and 95%, respectively"
    for a claim of "71 percent ... three weeks earlier". The sentence says "respectively" and
    holds one list of the claim value's kind; the claim states exactly one item of a list of
    as many values (another of its values: "three weeks") or names exactly one word of a
    series of as many words ("IgG, IgA, or IgM"). The value at that place, if the claim's
    could be a wrong copy of it (`_close_value`), is meant; where several sentences pair the
    claim so, only one value may come of them (the best-aligned sentence is shown)."""
    anchors = [other for other in claimed if other != quantity]
    found: list[tuple[float, int, Quantity]] = []
    for index, stated in by_sentence.items():
        if alignment[index] < WIDE_MIN_ALIGNMENT:
            continue
        text = normalise_numerals(source.sentence_text(index))
        if not pairs_by_order(text):
            continue
        lists = value_lists(text, [other for other in stated if not _is_label(text, other)])
        targets = [items for items in lists if _same_kind(quantity, items[0])]
        if len(targets) != 1:
            continue
        [target] = targets
        copies_list = any(_admits(rival, item) for rival, _ in rivals for item in target)
        if rivals and not copies_list and not _nearest_to_list(source, index, target, near, rivals):
            continue
        places: set[int] = set()
        clause_places: set[int] = set()  # the places of anchors in the claim value's clause
        for other in [*lists, *year_spans(text, stated)]:
            if other is target or len(other) != len(target):
                continue
            for anchor in anchors:
                at = [
                    i for i, o in enumerate(other) if _same_kind(anchor, o) and _admits(anchor, o)
                ]
                if len(at) == 1:
                    places.add(at[0])
                    if _same_clause(claim, anchor, quantity):
                        clause_places.add(at[0])
        if len(places) > 1 and len(clause_places) == 1:
            # A claim listing pairs ("56,000 (...) in 2003, 47,800 (...) in 2008") names the
            # place by the value in this one's clause.
            places = clause_places
        for series in word_series(text, stated):
            if len(series) < len(target):
                continue
            # "onset of symptoms, IgG, IgA, or IgM": the series' last items pair.
            at = [i for i, item in enumerate(series[-len(target) :]) if item in claim_stems]
            if len(at) == 1:
                places.add(at[0])
        if len(places) == 1:
            place = places.pop()
            if any(_admits(rival, target[place]) for rival, _ in rivals):
                continue  # the place is another claim value's, stated right
            found.append((float(alignment[index]), index, target[place]))
    if not found or len({theirs.text for _, _, theirs in found}) != 1:
        return None
    _, index, theirs = max(found, key=lambda item: item[0])
    [stated_value] = _sentence_values(source, index, [theirs])
    # A year's place in the list says what it dates, as the words near both would (`_conflict`
    # asks a year for those): "56,000 (...) in 2003" for "56,000 (...) ... in 2007, ...".
    near = stated_value.near if quantity.kind == YEAR else near
    if not _close_value(quantity, theirs) or not _conflict(quantity, near, stated_value):
        return None
    return index, stated_value


def _pairs_by_order_at(source: SourceText, sentence: int) -> bool:
    return sentence >= 0 and pairs_by_order(source.sentence_text(sentence))


def _in_year_span(
    source: SourceText, quantity: Quantity, by_sentence: Mapping[int, Sequence[Quantity]]
) -> bool:
    """A year inside a span of years whose values the source gives year by year ("2008" of "for
    2006 through 2009 ... 19.8, 22.5, 19.0, and 19.0 ..., respectively"); a period ("from 1990
    to 2015") states no year inside it."""
    return any(
        any(year.value == quantity.value for year in span)
        for index, stated in by_sentence.items()
        if _pairs_by_order_at(source, index)
        for span in year_spans(source.sentence_text(index), stated)
    )


def _same_clause(text: str, one: Quantity, other: Quantity) -> bool:
    """No clause break between two values of ``text``."""
    start, end = min(one.end, other.end), max(one.start, other.start)
    return bool(text) and _CLAUSE_BREAK.search(text, start, end) is None


def _nearest_to_list(
    source: SourceText,
    index: int,
    target: Sequence[Quantity],
    near: Near,
    rivals: Sequence[tuple[Quantity, Near]],
) -> bool:
    """Of the claim's several values of the list's kind, none stated in the list, this one is the
    list's: its near words are the closest to the list's ("Incidence
    estimates of 13.2 per 100,000 ... for the US and of 17 per 100,000 for France" beside "the
    rate ... was estimated to be 19.8 (...), 22.5 (...) ... per 100,000")."""
    listed: Near = {}
    for stated in _sentence_values(source, index, list(target)):
        for value, distance in stated.near.items():
            listed[value] = min(distance, listed.get(value, distance))
    mine = _closeness(near, listed)
    # Where no claim value is stated in the list, the claim misstates its value at the named
    # place whichever of them is shown: the closest is enough.
    return mine >= MIN_CLOSENESS and all(
        mine > _closeness(rival_near, listed) for _, rival_near in rivals
    )


def _range_end_copied(
    source: SourceText, quantity: Quantity, stated: Sequence[_Stated]
) -> _Stated | None:
    """A claim's range made of the best-aligned sentence's two values, one of them copied
    wrong: "between 2.2 percent and 2.8 percent" of "was 1.5% (...), and the population-weighted
    prevalence was 2.81%"; "1.90% to 4.16%" of "ranged from 2.49% (95CI 1.80-3.17%) to 4.16%".
    The sentence states exactly two single values of the kind; one end of the range agrees
    with one of them, the other end is stated nowhere in the source and is a close copy of the
    other value (`_close_number`): that value is returned."""
    singles = [
        theirs
        for theirs in stated
        if theirs.quantity.low is None
        and theirs.quantity.bound == EXACT
        and _DIGIT.search(theirs.quantity.text)
    ]
    if len({theirs.quantity.text for theirs in singles}) != 2:
        return None
    ends = [
        replace(quantity, value=end, low=None, high=None) for end in (quantity.low, quantity.high)
    ]
    for kept, changed in ((ends[0], ends[1]), (ends[1], ends[0])):
        agreeing = {t.quantity.text for t in singles if _admits(kept, t.quantity)}
        others = [t for t in singles if t.quantity.text not in agreeing]
        if (
            len(agreeing) == 1
            and len({t.quantity.text for t in others}) == 1
            and not _admits(changed, others[0].quantity)
            and (
                _close_number(quantity.kind, changed.value, others[0].quantity.value)
                # "between 5.1 percent and 2.8 percent" for the sentence's 1.5% and 2.81%
                or sorted(_digits(f"{changed.value:g}")) == sorted(_digits(others[0].quantity.text))
            )
            and not _anywhere(source, changed)
        ):
            return others[0]
    return None


def _more_precise(quantity: Quantity, stated: Sequence[Quantity]) -> bool:
    """The claim's value has more decimals than any value of its kind the sentence states: a
    wrong copy keeps the digits it was copied from, so a claim's "7.76% vs. 13.79%" beside a
    sentence's "13% ... vs. 23%" is the writer's own figure (the study's tables, a
    computation), not a copy of the sentence's."""
    if quantity.low is not None:
        return False
    mine = _decimals(quantity.text)
    return all(_decimals(other.text) < mine for other in stated if _same_kind(quantity, other))


def _wide_copy(quantity: Quantity, near: Near, theirs: _Stated) -> bool:
    """A value found away from the claim's best-aligned sentences is its original only when a
    copying slip makes the one of the other: the same digits in another order, or words near
    both numbers (`WIDE_MIN_CLOSENESS`) and values within `WIDE_CLOSE_FACTOR` (a claim about
    another study's "10 days" is no copy of the source's "5 days")."""
    if _permuted(quantity, theirs.quantity):
        return True
    if _closeness(near, theirs.near) < WIDE_MIN_CLOSENESS or not _close_value(
        quantity, theirs.quantity
    ):
        return False
    if quantity.low is not None:
        return True  # two ranges sharing an end (`_close_value`)
    mine, other = abs(quantity.value), abs(theirs.quantity.value)
    return min(mine, other) > 0 and max(mine, other) / min(mine, other) <= WIDE_CLOSE_FACTOR


def check_numbers(
    source: SourceText,
    claim: str,
    values: Sequence[Quantity],
    coverage: np.ndarray,
    config: ContentRulesConfig,
    ranks: Mapping[int, int] | None = None,
) -> list[Finding]:
    """Findings for the claim's ``values`` (already attributed to this citation); ``claim`` is
    the citing sentence with its markers blanked out and numerals normalised; ``coverage`` the
    claim's share in each source sentence (`SourceText.coverage`); ``ranks`` the sentences the
    retriever ranked for the claim, with their rank (`evidence.ranked_sentences`)."""
    retrieved = np.zeros(len(source.sentences))
    for index, rank in (ranks or {}).items():
        retrieved[index] = EVIDENCE_BONUS / rank
    findings: list[Finding] = []
    opened = _unopened_end(claim)
    everything = [
        quantity
        for quantity in claim_values(claim)
        if not _is_label(claim, quantity) and quantity.start >= opened
    ]
    words = folded_words(claim)
    stems = frozenset(content_stems(words))
    nears = {id(q): _near(words, q.start, q.end) for q in everything}
    by_sentence: dict[int, list[Quantity]] = {}
    for index, other in source.quantities():
        by_sentence.setdefault(index, []).append(other)
    for quantity in values:
        if _is_label(claim, quantity) or quantity.start < opened:
            continue
        near = nears.get(id(quantity)) or _near(words, quantity.start, quantity.end)
        alignment = _alignment(source, near, coverage)
        alignment = alignment + ANCHOR_BONUS * _anchors(source, everything, quantity)
        alignment = alignment + retrieved
        if quantity.kind == COUNT and quantity.head:
            alignment = alignment + HEAD_BONUS * _counting(source, quantity)
        ranked = np.flatnonzero((coverage >= config.number_min_coverage) | (retrieved > 0))
        ranked = ranked[np.argsort(-alignment[ranked], kind="stable")]
        aligned = [int(i) for i in ranked[: config.number_sentences]]
        # The sentences best aligned with the claim that state values of this kind; of these,
        # the one where such a value stands among the claim number's own words is meant.
        # The retriever's passages are candidates whatever their rank among these; a value the
        # claim's number could be a wrong copy of (`_close_value`) marks the sentence it is from.
        candidates: list[tuple[float, int, list[_Stated]]] = []
        lexical = 0
        for index in (int(i) for i in ranked):
            if alignment[index] < config.number_min_alignment:
                break
            if lexical >= config.number_sentences and not retrieved[index]:
                continue
            kind = [o for o in by_sentence.get(index, ()) if _same_kind(quantity, o)]
            if kind:
                text = normalise_numerals(source.sentence_text(index))
                kind = [o for o in kind if not _is_label(text, o)]
            if kind:
                values_here = _sentence_values(source, index, kind)
                closest = max(_closeness(near, theirs.near) for theirs in values_here)
                score = alignment[index] + CLOSENESS_WEIGHT * min(closest, CLOSENESS_CAP)
                if any(_close_value(quantity, theirs.quantity) for theirs in values_here):
                    score += CLOSE_VALUE_BONUS
                candidates.append((score, index, values_here))
                lexical += 1
        holding = [max(candidates, key=lambda c: c[0])[1:]] if candidates else []
        if _stated_somewhere(source, quantity, coverage, aligned + [i for i, _ in holding]):
            continue
        if quantity.kind == YEAR and (
            _anywhere(source, quantity) or _in_year_span(source, quantity, by_sentence)
        ):
            # A year the source states anywhere is one of its dates, whatever the claim dates
            # by it: a year says too little of what it dates to tell a wrong copy from another.
            continue
        if not holding:
            if (
                config.number_not_in_source
                and _is_specific(quantity)
                and not any(
                    other.kind == quantity.kind and values_agree(quantity, other)
                    for _, other in source.quantities()
                )
            ):
                findings.append(
                    Finding(
                        rule=NUMBER_NOT_IN_SOURCE.code,
                        message=f"The claim's {quantity.text} is stated nowhere in the source.",
                        expected=quantity.text,
                        claim_span=(quantity.start, quantity.end),
                        key=quantity.text,
                    )
                )
                continue
            holding = [(-1, [])]  # no sentence of the kind among the best aligned
        sentence, stated = holding[0]
        same_kind = [
            (mine, nears[id(mine)])
            for mine in everything
            if mine.role == quantity.role and mine.kind == quantity.kind
        ]
        found = []
        unsure = False
        if sentence >= 0 and not _derived(quantity, by_sentence[sentence], everything):
            theirs = _partner(quantity, near, same_kind, stated)
            if theirs is not None and _conflict(quantity, near, theirs):
                found = [theirs]
            unsure = theirs is None and alignment[sentence] >= STRONG_ALIGNMENT
        if not found:
            # The place in a list is as sure a pairing as shared words: the value may be
            # stated elsewhere about something else.
            rivals = [(mine, mine_near) for mine, mine_near in same_kind if mine != quantity]
            ordered = _by_order(
                source, quantity, near, everything, stems, by_sentence, alignment, rivals, claim
            )
            if ordered is not None and not _derived(quantity, by_sentence[ordered[0]], everything):
                sentence, found = ordered[0], [ordered[1]]
        if (
            not found
            and unsure
            and not _anywhere(source, quantity)
            and not (len(same_kind) > 1 and _pairs_by_order_at(source, sentence))
        ):
            # Of a claim's several values beside a list paired by order, the one with no place
            # named is another thing's figure ("17 per 100,000 for France").
            found = _unpaired(quantity, near, same_kind, stated)
        if (
            not found
            and quantity.low is not None
            and quantity.bound == EXACT
            and holding[0][0] >= 0
        ):
            copied = _range_end_copied(source, quantity, holding[0][1])
            if copied is not None:
                sentence, found = holding[0][0], [copied]
        if not found:
            wide = _source_wide(source, quantity, near, alignment, same_kind, by_sentence)
            if wide is None or _derived(quantity, by_sentence[wide[0]], everything):
                continue
            sentence, found = wide[0], [wide[1]]
        if _more_precise(quantity, by_sentence[sentence]):
            continue
        text = normalise_numerals(source.sentence_text(sentence))
        said = _listed([_as_written(text, theirs.quantity) for theirs in found])
        mine = _as_written(claim, quantity)
        findings.append(
            Finding(
                rule=NUMBER_CONFLICT.code,
                message=f"The claim says {mine} where the source's matching sentence says {said}.",
                expected=mine,
                found=said,
                differences=[Difference(field="number", expected=mine, found=said)],
                evidence=[_evidence(source, sentence)],
                claim_span=(quantity.start, quantity.end),
                key=quantity.text,
            )
        )
    return findings
