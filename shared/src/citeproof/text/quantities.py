"""Numbers with what they measure, and whether a claim's numbers agree with the evidence's.

A claim rounds ("43 percent" for 43.2%), says it in words ("one in five", "two thirds", "a
dozen", "doubled"), bounds it ("more than 0.3%", "at least", "almost") or gives a range; the
evidence adds confidence intervals ("1.5 (95% CI 1.2–1.9)"), sample sizes ("n = 104") and years.
`extract_quantities` reads all of these into `Quantity` values on one scale per unit kind (percent
for proportions, days for durations, ...), and `compare_quantities` decides for every claim
quantity whether the evidence agrees, conflicts or says nothing about it.

A mismatch is a conflict only when the same quantity is meant: the same unit kind (a percentage
against a percentage, never against a year, a sample size or a CI bound) and a shared content
word near both numbers ("asymptomatic", "mortality"). Anything less is `UNRELATED`: a sentence
that mentions 2020 and 104 patients says nothing about a claim's 43 percent.

Pure Python, a single regex pass per sentence, extraction cached per text: comparing one claim
with one evidence sentence takes tens of microseconds.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Final

from citeproof.text.words import NUMBER_PATTERN, STOPWORDS, parse_numeral
from citeproof.text.words import stem as _uncached_stem

# The same few hundred words recur in every sentence of a corpus.
stem = lru_cache(maxsize=65536)(_uncached_stem)

# --- relations and kinds -----------------------------------------------------------------------
AGREE: Final = "agree"
CONFLICT: Final = "conflict"
UNRELATED: Final = "unrelated"

PERCENT: Final = "percent"  # proportions, rates "per 1,000", per mille: all on the percent scale
PERCENTAGE_POINTS: Final = "percentage_points"
RATIO: Final = "ratio"  # odds/risk/hazard ratios and fold changes
TEMPERATURE: Final = "temperature"
DURATION: Final = "duration"  # in days
MASS: Final = "mass"  # in mg
LENGTH: Final = "length"  # in m
VOLUME: Final = "volume"  # in ml
COUNT: Final = "count"  # a number of things, compared only when the things are the same
YEAR: Final = "year"

# Roles: only VALUE quantities are compared; the rest are read so that they are not mistaken
# for values (a CI's bounds, its "95%", a p-value).
VALUE: Final = "value"
SAMPLE_SIZE: Final = "sample_size"
CI_LEVEL: Final = "ci_level"
SPREAD: Final = "spread"  # CI / IQR / range bounds and ± terms, attached to their value
P_VALUE: Final = "p_value"

# Bounds a qualifier puts on the number.
EXACT: Final = "exact"
LOWER: Final = "lower"  # more than, at least, over
UPPER: Final = "upper"  # less than, at most, up to
APPROX: Final = "approx"  # about, some, almost, one in five

# --- tolerances and windows --------------------------------------------------------------------
# "about 40%", "almost half", "one in five": agree within this share of the value.
APPROX_SHARE: Final = 0.1
# Integers from here on with trailing zeros ("8,000", "43,000") are read as rounded to their last
# non-zero digit; smaller ones ("100 percent", "40 cities") are taken as written.
ROUND_THOUSANDS_FROM: Final = 1000
# Content words either side of a number that say what it measures.
CONTEXT_WORDS: Final = 6
# Tokens before a number searched for a qualifier ("more than") or a ratio name ("odds ratio").
LOOKBEHIND_TOKENS: Final = 4
# A ratio's name ("the hazard ratio for death was 1.5") at most this many tokens back.
RATIO_NAME_TOKENS: Final = 7
# A conflict needs the evidence sentence to mention more than this share of the words around the
# claim's number: "mortality was 12% among ventilated patients" is not contradicted by
# "ventilated patients were 65% male", which shares the population but not what was measured.
MIN_CONFLICT_COVERAGE: Final = 0.5
# ... unless the numbers share this many context words nearby ("population", "Manaus").
STRONG_SHARED_CONTEXT: Final = 2
# Relative slack under which two intervals count as merely touching.
TOUCH_EPSILON: Final = 1e-9
# Stems at least this long match inside longer words ("symptom" in "asymptomatic").
MIN_INFIX_STEM: Final = 5
# A CI or IQR belongs to the value at most this many tokens before it.
SPREAD_ATTACH_TOKENS: Final = 8
YEAR_RANGE: Final = (1900, 2100)
# Words too common in this literature to show that two numbers measure the same thing.
GENERIC_CONTEXT: Final = frozenset(
    stem(word)
    for word in """sars cov covid coronavirus disease patient patients people person persons
    participant participants study studies case cases total overall group groups rate rates
    respectively among compared cohort sample samples proportion percentage percent number
    estimated reported observed approximately nearly almost about around roughly some least
    most less more than notably significantly per cent ci confidence interval fold times ratio
    odds""".split()
)
# Tokens that end a clause: a number's context does not reach across them.
_CLAUSE_ENDS: Final = frozenset({";", ".", ":"})

# The months, lower-cased: their names and the abbreviations a date prints ("Sept. 3").
MONTH_NAMES: Final = tuple(
    "january february march april may june july august september october november december".split()
)
MONTH_ABBREVIATIONS: Final = tuple("jan feb mar apr jun jul aug sep sept oct nov dec".split())
_MONTHS: Final = frozenset(MONTH_NAMES + MONTH_ABBREVIATIONS)

CARDINALS: Final = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90, "dozen": 12, "a": 1, "an": 1,
}  # fmt: skip
_TENS: Final = frozenset({"twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty",
                          "ninety"})  # fmt: skip
SCALES: Final = {"hundred": 100, "thousand": 1_000, "million": 1_000_000,
                 "billion": 1_000_000_000}  # fmt: skip
DENOMINATORS: Final = {
    "half": 2, "halves": 2, "third": 3, "thirds": 3, "quarter": 4, "quarters": 4, "fourth": 4,
    "fourths": 4, "fifth": 5, "fifths": 5, "sixth": 6, "sixths": 6, "seventh": 7, "sevenths": 7,
    "eighth": 8, "eighths": 8, "ninth": 9, "ninths": 9, "tenth": 10, "tenths": 10,
}  # fmt: skip
# Words that state a fold change by themselves.
FOLD_WORDS: Final = {
    "doubled": 2, "doubling": 2, "double": 2, "doubles": 2, "twice": 2, "tripled": 3,
    "tripling": 3, "triple": 3, "triples": 3, "quadrupled": 4, "halved": 0.5, "halving": 0.5,
}  # fmt: skip

_LOWER_CUES: Final = ("more than", "greater than", "higher than", "older than", "over", "above",
                      "exceeding",
                      "in excess of", "at least", "no less than", "not less than", "upwards of",
                      "a minimum of", "just over", ">", "≥", ">=")  # fmt: skip
_UPPER_CUES: Final = ("less than", "fewer than", "lower than", "younger than", "under", "below",
                      "at most",
                      "up to", "no more than", "not more than", "a maximum of", "just under",
                      "<", "≤", "<=")  # fmt: skip
_APPROX_CUES: Final = ("about", "around", "approximately", "approx", "roughly", "some", "nearly",
                       "almost", "close to", "circa", "ca", "an estimated", "estimated", "~", "∼",
                       "≈", "on the order of")  # fmt: skip
# "55 years or younger", "10 or more": bounds written after the number.
_TRAILING_UPPER: Final = frozenset({"younger", "less", "fewer", "lower", "below", "under"})
_TRAILING_LOWER: Final = frozenset({"older", "more", "greater", "higher", "above", "over"})
# "58 and older", "65 and over": after "and", only these (an "and more" may start a new phrase).
_TRAILING_AFTER_AND: Final = frozenset({"older", "younger", "over", "above"})
# "those 58 and older", "aged 85 or over": a bare number bounded by an age is an age in years.
_AGE_WORDS: Final = frozenset({"older", "younger"})
# Longest first: "no more than" is an upper bound although it ends in "more than".
_QUALIFIERS: Final = sorted(
    [(cue, LOWER) for cue in _LOWER_CUES]
    + [(cue, UPPER) for cue in _UPPER_CUES]
    + [(cue, APPROX) for cue in _APPROX_CUES],
    key=lambda item: -len(item[0].split()),
)
_RATIO_NAMES: Final = {
    "or": "or", "aor": "or", "odds ratio": "or", "adjusted odds ratio": "or",
    "rr": "rr", "arr": "rr", "relative risk": "rr", "risk ratio": "rr", "irr": "rr",
    "incidence rate ratio": "rr", "hr": "hr", "ahr": "hr", "hazard ratio": "hr",
}  # fmt: skip
# Ratio names that are abbreviations: read only as written in capitals ("OR", not "or").
_RATIO_ABBREVIATIONS: Final = frozenset(name for name in _RATIO_NAMES if " " not in name)
# Cue lists keyed by their last word, so a number's preceding token picks the few to try.
_QUALIFIERS_BY_LAST_WORD: Final[dict[str, list[tuple[str, str]]]] = {}
for _cue, _bound in _QUALIFIERS:
    _QUALIFIERS_BY_LAST_WORD.setdefault(_cue.split()[-1], []).append((_cue, _bound))
_RATIO_NAMES_BY_LAST_WORD: Final[dict[str, list[tuple[str, str]]]] = {}
for _name, _subtype in _RATIO_NAMES.items():
    _RATIO_NAMES_BY_LAST_WORD.setdefault(_name.split()[-1], []).append((_name, _subtype))
_SPREAD_NAMES: Final = ("ci", "confidence interval", "credible interval", "cri", "iqr",
                        "interquartile range", "range", "sd", "se")  # fmt: skip
_SAMPLE_NAMES: Final = frozenset({"n"})
_RANGE_SEPARATORS: Final = frozenset({"-", "–", "—", "to", "‒", "−"})

# (unit kind, factor to the kind's scale) by the unit's surface form (lower-cased).
UNITS: Final = {
    "%": (PERCENT, 1.0), "percent": (PERCENT, 1.0), "pct": (PERCENT, 1.0),
    "‰": (PERCENT, 0.1), "°c": (TEMPERATURE, 1.0), "°": (TEMPERATURE, 1.0),
    "degrees": (TEMPERATURE, 1.0), "degree": (TEMPERATURE, 1.0),
    "second": (DURATION, 1 / 86400), "seconds": (DURATION, 1 / 86400),
    "minute": (DURATION, 1 / 1440), "minutes": (DURATION, 1 / 1440), "min": (DURATION, 1 / 1440),
    "hour": (DURATION, 1 / 24), "hours": (DURATION, 1 / 24), "h": (DURATION, 1 / 24),
    "hr": (DURATION, 1 / 24), "hrs": (DURATION, 1 / 24),
    "day": (DURATION, 1.0), "days": (DURATION, 1.0), "d": (DURATION, 1.0),
    "week": (DURATION, 7.0), "weeks": (DURATION, 7.0), "wk": (DURATION, 7.0),
    "month": (DURATION, 30.44), "months": (DURATION, 30.44), "mo": (DURATION, 30.44),
    "year": (DURATION, 365.25), "years": (DURATION, 365.25), "yr": (DURATION, 365.25),
    "yrs": (DURATION, 365.25),
    "ng": (MASS, 1e-6), "µg": (MASS, 1e-3), "μg": (MASS, 1e-3), "mcg": (MASS, 1e-3),
    "mg": (MASS, 1.0), "g": (MASS, 1e3), "kg": (MASS, 1e6),
    "nm": (LENGTH, 1e-9), "µm": (LENGTH, 1e-6), "μm": (LENGTH, 1e-6), "mm": (LENGTH, 1e-3),
    "cm": (LENGTH, 1e-2), "m": (LENGTH, 1.0), "km": (LENGTH, 1e3),
    "ml": (VOLUME, 1.0), "µl": (VOLUME, 1e-3), "μl": (VOLUME, 1e-3), "l": (VOLUME, 1e3),
}  # fmt: skip
# Hour abbreviations read as a unit after a space too ("24 h").
_SPACED_HOURS: Final = frozenset({"h", "hr"})
# First words (before any hyphen) that can start a number written in words.
_NUMBERISH: Final = frozenset(set(CARDINALS) | set(SCALES) | set(FOLD_WORDS) | {"half"})
# Words that never say what a number measures.
_NOT_CONTENT: Final = frozenset(STOPWORDS | set(UNITS) | set(CARDINALS) | set(SCALES)
                                | set(DENOMINATORS))  # fmt: skip

_TOKEN = re.compile(
    rf"(?P<num>{NUMBER_PATTERN.pattern})"
    r"|(?P<word>[^\W\d_][\w'’]*(?:-[\w'’]+)*)"
    r"|(?P<sym>[%‰°<>≤≥~∼≈=±–—‒−\-()\[\]:;,/.!?])"
)
_WORD_NUMBER_PARTS = re.compile(r"[-\s]+")
_DIGIT = re.compile(r"\d")


@dataclass(frozen=True)
class Quantity:
    """One number of a sentence with what it measures.

    `value` is on the kind's scale (percent for PERCENT: "one in five" is 20.0; days for
    DURATION); `low`/`high` hold a range's ends (a CI is attached as `ci`, not as the range);
    `tolerance` is what the writing leaves open (rounding to the digits written, or
    `APPROX_SHARE` for words like "about" and fractions).
    """

    value: float
    kind: str
    text: str
    start: int
    end: int
    role: str = VALUE
    bound: str = EXACT
    tolerance: float = 0.0
    low: float | None = None
    high: float | None = None
    ci: tuple[float, float] | None = None
    subtype: str | None = None  # "or" / "rr" / "hr" / "fold" for ratios
    head: frozenset[str] = frozenset()  # stems of the counted thing ("cities") for COUNT
    context: frozenset[str] = frozenset()  # stems of content words near the number

    def interval(self) -> tuple[float, float]:
        """The values this quantity admits, given its bound, range and tolerance."""
        low = self.low if self.low is not None else self.value
        high = self.high if self.high is not None else self.value
        if self.bound == LOWER:
            return low, math.inf
        if self.bound == UPPER:
            return -math.inf, high
        return low - self.tolerance, high + self.tolerance


@dataclass(frozen=True)
class QuantityMatch:
    """What the evidence says about one claim quantity."""

    claim: Quantity
    relation: str
    evidence: Quantity | None = None
    shared_context: frozenset[str] = frozenset()


@dataclass(frozen=True)
class QuantityComparison:
    matches: tuple[QuantityMatch, ...] = field(default_factory=tuple)

    @property
    def agree(self) -> int:
        return sum(match.relation == AGREE for match in self.matches)

    @property
    def conflict(self) -> int:
        return sum(match.relation == CONFLICT for match in self.matches)

    @property
    def unrelated(self) -> int:
        return sum(match.relation == UNRELATED for match in self.matches)

    @property
    def relation(self) -> str | None:
        """CONFLICT if any claim quantity conflicts, else AGREE if any agrees, else UNRELATED;
        None when the claim has no quantity to compare."""
        if not self.matches:
            return None
        if self.conflict:
            return CONFLICT
        return AGREE if self.agree else UNRELATED


# --- tokenising ---------------------------------------------------------------------------------


class _Token:
    __slots__ = ("end", "kind", "lower", "start", "text")

    def __init__(self, kind: str, text: str, start: int, end: int) -> None:
        self.kind = kind  # num / word / sym
        self.text = text
        self.lower = text.lower().replace("’", "'")
        self.start = start
        self.end = end


@lru_cache(maxsize=8192)
def _analysed(text: str) -> tuple[list[_Token], list[int]]:
    """The tokens of `text` and the positions of its content words (cached: a passage is
    compared with many claims)."""
    tokens = [_Token(m.lastgroup or "sym", m.group(), m.start(), m.end())
              for m in _TOKEN.finditer(text)]  # fmt: skip
    return tokens, _content_positions(tokens)


def _decimals(raw: str) -> int:
    """Digits after the decimal mark as written ("43.2" -> 1, "1,840" -> 0)."""
    if re.fullmatch(r"\d{1,3}(,\d{3})+", raw):
        return 0
    match = re.search(r"[.,](\d+)$", raw)
    return len(match.group(1)) if match else 0


def _word_number(words: list[str]) -> float | None:
    """Value of number words ("seven", "twenty-five", "a dozen", "two hundred")."""
    total, current, seen = 0.0, 0.0, False
    for word in words:
        if word in CARDINALS:
            current += CARDINALS[word] if word not in ("a", "an") else 0
            if word in ("a", "an"):
                current = max(current, 0)
                continue
            seen = True
        elif word in SCALES:
            current = max(current, 1) * SCALES[word]
            if SCALES[word] >= 1000:
                total, current = total + current, 0.0
            seen = True
        else:
            return None
    return total + current if seen else None


# --- extraction ---------------------------------------------------------------------------------


@dataclass
class _Raw:
    """A number found in the token stream before its unit and role are known."""

    value: float
    first: int  # token index range [first, last]
    last: int
    decimals: int
    approx: bool = False
    kind: str | None = None
    subtype: str | None = None
    tolerance_share: float = 0.0


def _phrase_before(tokens: list[_Token], index: int, count: int) -> list[str]:
    """The lower-cased texts of up to `count` tokens before `index`, nearest last."""
    return [t.lower for t in tokens[max(0, index - count) : index]]


@lru_cache(maxsize=256)
def _words_of(phrase: str) -> list[str]:
    return phrase.split()


def _ends_with(words: list[str], phrase: str) -> bool:
    parts = _words_of(phrase)
    return len(words) >= len(parts) and words[len(words) - len(parts) :] == parts


def _qualifier(tokens: list[_Token], index: int) -> str:
    before = [w for w in _phrase_before(tokens, index, LOOKBEHIND_TOKENS) if w not in (",",)]
    if tokens[index].kind == "word" and before and before[-1] in ("a", "an"):
        # "more than a hundred million", "about a thousand": the article of a number in words
        # stands between the cue and the number.
        before = [w for w in _phrase_before(tokens, index - 1, LOOKBEHIND_TOKENS) if w != ","]
    for cue, bound in _QUALIFIERS_BY_LAST_WORD.get(before[-1] if before else "", ()):
        if _ends_with(before, cue):
            return bound
    return EXACT


def _trailing_qualifier(tokens: list[_Token], last: int) -> str:
    """A bound written after the number: "55 years or younger", "65 or older", "10 or more"."""
    after = [t.lower for t in tokens[last + 1 : last + 3]]
    if len(after) == 2 and (
        after[0] == "or" or (after[0] == "and" and after[1] in _TRAILING_AFTER_AND)
    ):
        if after[1] in _TRAILING_UPPER:
            return UPPER
        if after[1] in _TRAILING_LOWER:
            return LOWER
    return EXACT


def _bounded_age(tokens: list[_Token], last: int) -> bool:
    """A bare number bounded by an age after it: "those 58 and older", "65 or younger"."""
    after = [t.lower for t in tokens[last + 1 : last + 3]]
    return len(after) == 2 and after[0] in ("or", "and") and after[1] in _AGE_WORDS


def _ratio_name(tokens: list[_Token], index: int) -> str | None:
    """ "OR 2.3", "odds ratio of 2.3", "the hazard ratio for death was 1.5": the nearest ratio
    name in the number's clause, at most `RATIO_NAME_TOKENS` tokens back."""
    before: list[str] = []
    for position in range(index - 1, max(0, index - RATIO_NAME_TOKENS) - 1, -1):
        token = tokens[position]
        if token.lower in _CLAUSE_ENDS and not (token.lower == ":" and position == index - 1):
            break  # "RR: 0.30" names its ratio across the colon
        # "OR 2.3" names an odds ratio; the word "or" ("55 years or younger, 7") does not.
        abbreviation = token.lower in _RATIO_ABBREVIATIONS and not token.text.isupper()
        before.insert(0, "" if abbreviation else token.lower)
    for end in range(len(before), 0, -1):
        for name, subtype in _RATIO_NAMES_BY_LAST_WORD.get(before[end - 1], ()):
            if _ends_with(before[:end], name):
                return subtype
    return None


def _numbers(tokens: list[_Token]) -> list[_Raw]:
    """Every number of the sentence: digits (with a scale word), number words, fractions
    ("one in five", "two thirds"), fold changes ("2.5-fold", "doubled")."""
    found: list[_Raw] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        raw: _Raw | None = None
        if token.kind == "num":
            value = parse_numeral(token.text)
            if value is not None:
                raw = _Raw(value, i, i, _decimals(token.text))
                if raw.decimals == 0 and value >= ROUND_THOUSANDS_FROM and value.is_integer():
                    # "8,000 tests" is a round figure, as likely 8,276 as 8,000.
                    digits = str(int(value))
                    zeros = len(digits) - len(digits.rstrip("0"))
                    raw.tolerance_share = 0.5 * 10**zeros / value
                nxt = tokens[i + 1] if i + 1 < len(tokens) else None
                if nxt is not None and nxt.lower in SCALES:
                    raw.value *= SCALES[nxt.lower]
                    raw.last = i + 1
                    raw.tolerance_share = 0.5 * 10 ** (-raw.decimals) / max(value, 1e-9)
        elif token.kind == "word":
            raw = _word_raw(tokens, i)
        if raw is None:
            i += 1
            continue
        raw = _fraction_or_fold(tokens, raw)
        found.append(raw)
        i = raw.last + 1
    return found


def _word_raw(tokens: list[_Token], i: int) -> _Raw | None:
    word = tokens[i].lower
    if word.split("-", 1)[0] not in _NUMBERISH and not word.endswith("fold"):
        return None
    if word in FOLD_WORDS:
        return _Raw(FOLD_WORDS[word], i, i, 0, approx=True, kind=RATIO, subtype="fold")
    parts = _WORD_NUMBER_PARTS.split(word)
    # "twofold", "two-fold", "three-fold"
    if parts[-1] == "fold" or (
        len(parts) == 1 and word.endswith("fold") and word[:-4] in CARDINALS
    ):
        base = _word_number(parts[:-1]) if parts[-1] == "fold" else CARDINALS[word[:-4]]
        if base:
            return _Raw(float(base), i, i, 0, kind=RATIO, subtype="fold")
        return None
    # "two-thirds"
    if len(parts) == 2 and parts[1] in DENOMINATORS and parts[0] in CARDINALS:
        share = CARDINALS[parts[0]] / DENOMINATORS[parts[1]] * 100
        return _Raw(share, i, i, 0, approx=True, kind=PERCENT)
    if word in ("a", "an"):
        next_word = tokens[i + 1].lower if i + 1 < len(tokens) else ""
        if next_word == "dozen":
            return _Raw(12.0, i, i + 1, 0)
        if next_word in DENOMINATORS and next_word not in ("half", "halves"):
            return _Raw(100 / DENOMINATORS[next_word], i, i + 1, 0, approx=True, kind=PERCENT)
        return None
    if word == "half":
        next_word = tokens[i + 1].lower if i + 1 < len(tokens) else ""
        prev = tokens[i - 1].lower if i else ""
        if next_word in ("of", "the") or prev in ("a", "one"):
            return _Raw(50.0, i, i, 0, approx=True, kind=PERCENT)
        return None
    if not all(part in CARDINALS or part in SCALES for part in parts) or word in ("a", "an"):
        return None
    # Consecutive number words: "twenty five", "two hundred".
    words, last = list(parts), i
    while last + 1 < len(tokens):
        nxt = _WORD_NUMBER_PARTS.split(tokens[last + 1].lower)
        if all((p in CARDINALS and p not in ("a", "an")) or p in SCALES for p in nxt) and (
            words[-1] in _TENS or nxt[0] in SCALES
        ):
            words.extend(nxt)
            last += 1
        else:
            break
    value = _word_number(words)
    if value is None:
        return None
    # "one" is as often a pronoun ("one of the ...", "one study") as a number.
    if words == ["one"] and not _counts_something(tokens, last):
        return None
    return _Raw(value, i, last, 0)


def _counts_something(tokens: list[_Token], last: int) -> bool:
    nxt = tokens[last + 1].lower if last + 1 < len(tokens) else ""
    return nxt in ("in", "out") or nxt in UNITS or nxt in DENOMINATORS


def _fraction_or_fold(tokens: list[_Token], raw: _Raw) -> _Raw:
    """Extend a number into "one in five", "1 out of every 4", "two thirds", "2.5-fold",
    "3 times"."""
    j = raw.last + 1
    if j >= len(tokens) or raw.kind is not None:
        return raw
    nxt = tokens[j].lower
    if nxt in ("in", "out"):
        k = j + 1
        if nxt == "out" and k < len(tokens) and tokens[k].lower == "of":
            k += 1
        if k < len(tokens) and tokens[k].lower == "every":
            k += 1
        if k < len(tokens):
            denominator = _denominator(tokens, k)
            if (
                denominator is not None
                and raw.value < denominator[0]
                and (denominator[0] < YEAR_RANGE[0] or tokens[k].kind == "word")
            ):
                return _Raw(raw.value / denominator[0] * 100, raw.first, denominator[1], 0,
                            approx=True, kind=PERCENT)  # fmt: skip
    if nxt in DENOMINATORS and nxt not in ("half", "halves") and raw.value < DENOMINATORS[nxt]:
        return _Raw(raw.value / DENOMINATORS[nxt] * 100, raw.first, j, 0, approx=True,
                    kind=PERCENT)  # fmt: skip
    if nxt in ("fold", "-fold") or (
        nxt == "-" and j + 1 < len(tokens) and tokens[j + 1].lower == "fold"
    ):
        last = j if nxt != "-" else j + 1
        return _Raw(raw.value, raw.first, last, raw.decimals, kind=RATIO, subtype="fold")
    if (
        nxt == "times"
        and j + 1 < len(tokens)
        and tokens[j + 1].lower
        in ("higher", "more", "greater", "lower", "as", "the", "increased", "larger", "faster")
    ):
        return _Raw(raw.value, raw.first, j, raw.decimals, kind=RATIO, subtype="fold")
    return raw


def _denominator(tokens: list[_Token], k: int) -> tuple[float, int] | None:
    token = tokens[k]
    if token.kind == "num":
        value = parse_numeral(token.text)
        return (value, k) if value else None
    value = _word_number(_WORD_NUMBER_PARTS.split(token.lower))
    return (value, k) if value else None


def _unit(tokens: list[_Token], raw: _Raw) -> tuple[str | None, float, int]:
    """(kind, factor to the kind's scale, last token index) of the unit after a number."""
    j = raw.last + 1
    if j >= len(tokens):
        return None, 1.0, raw.last
    first = tokens[j].lower
    second = tokens[j + 1].lower if j + 1 < len(tokens) else ""
    if first == "per" and second in ("cent", "mille", "thousand"):
        return PERCENT, (1.0 if second == "cent" else 0.1), j + 1
    if first == "per" and tokens[j + 1 : j + 2] and tokens[j + 1].kind == "num":
        denominator = parse_numeral(tokens[j + 1].text) or 0
        last = j + 1
        # "per 100 000": a thousands group written with a space.
        if j + 2 < len(tokens) and re.fullmatch(r"\d{3}", tokens[j + 2].text):
            denominator = denominator * 1000 + float(tokens[j + 2].text)
            last = j + 2
        if denominator >= 10:
            return PERCENT, 100 / denominator, last
    if first in ("percentage", "percent") and second in ("point", "points"):
        return PERCENTAGE_POINTS, 1.0, j + 1
    if first == "pp":
        return PERCENTAGE_POINTS, 1.0, j
    if first == "°" and second in ("c", "celsius"):
        return TEMPERATURE, 1.0, j + 1
    if first in ("degrees", "degree") and second in ("c", "celsius", "centigrade"):
        return TEMPERATURE, 1.0, j + 1
    if first in UNITS and (
        tokens[j].start == tokens[raw.last].end
        or len(first) > 2
        or first in ("%", "‰")
        # "for 24 h", "12 hr": an hour abbreviated after a space is still hours (a lone "m",
        # "g" or "d" after a number may be a panel or a variable; "h" after a number is not).
        or first in _SPACED_HOURS
    ):
        kind, factor = UNITS[first]
        return kind, factor, j
    return None, 1.0, raw.last


def _spread_start(tokens: list[_Token], index: int) -> int | None:
    """If a CI/IQR/range/± introduction ends right before `index`, where its numbers start."""
    words = [t.lower for t in tokens[max(0, index - 6) : index]]
    stripped = [w for w in words if w not in (":", "=", ",", "(", "[", "of", "was", "is")]
    if stripped and stripped[-1] == "±":
        return index
    for name in _SPREAD_NAMES:
        if _ends_with(stripped, name):
            return index
    return None


def _content_positions(tokens: list[_Token]) -> list[int]:
    """Tokens that can say what a number measures: words of three letters or more that are not
    stop words, units or number words, and carry no digit (a name such as SARS-CoV-2)."""
    return [
        i
        for i, t in enumerate(tokens)
        if t.kind == "word"
        and len(t.lower) > 2
        and t.lower not in _NOT_CONTENT
        and not _DIGIT.search(t.lower)
    ]


def _context(tokens: list[_Token], content: list[int], first: int, last: int) -> frozenset[str]:
    """Stems of up to `CONTEXT_WORDS` content words each side, within the number's clause."""
    clause_start = max((i for i in range(first) if tokens[i].lower in _CLAUSE_ENDS), default=-1)
    clause_end = min(
        (i for i in range(last + 1, len(tokens)) if tokens[i].lower in _CLAUSE_ENDS),
        default=len(tokens),
    )
    before = [i for i in content if clause_start < i < first][-CONTEXT_WORDS:]
    after = [i for i in content if last < i < clause_end][:CONTEXT_WORDS]
    return frozenset(stem(tokens[i].lower) for i in before + after)


def _head(tokens: list[_Token], last: int) -> frozenset[str]:
    """Stems of the one or two content words right after a count ("twelve European cities")."""
    head: list[str] = []
    for token in tokens[last + 1 : last + 3]:
        if token.kind != "word" or token.lower in STOPWORDS - {"patients", "patient", "studies",
                                                               "study"}:  # fmt: skip
            break
        head.append(stem(token.lower))
    return frozenset(head)


@lru_cache(maxsize=8192)
def extract_quantities(text: str) -> tuple[Quantity, ...]:
    """Every quantity of `text` in order, with its kind, role, bound and context."""
    tokens, content = _analysed(text)
    raws = _numbers(tokens)
    out: list[Quantity] = []
    index = 0
    spread_until = -1  # token index up to which numbers are spread bounds of the last value
    consumed = -1  # last token index read as part of an earlier quantity ("per 100,000")
    while index < len(raws):
        raw = raws[index]
        if raw.first <= consumed:
            index += 1
            continue
        kind, factor, last = (raw.kind, 1.0, raw.last)
        if kind is None:
            kind, factor, last = _unit(tokens, raw)
        if kind is None and _ratio_name(tokens, raw.first) is None:
            kind, factor = _list_unit(tokens, raws, index)
        consumed = last
        role = VALUE
        prev = tokens[raw.first - 1].lower if raw.first else ""
        subtype = raw.subtype
        # "95% CI": the level of an interval, not a value.
        following = [t.lower for t in tokens[last + 1 : last + 4]]
        if (
            kind == PERCENT
            and following[:1]
            and (following[0] in ("ci", "cri", "confidence", "credible", "credibility"))
            # "95% CI"; any level before the abbreviation ("82% CI" is a level copied wrong).
            and (
                raw.value in (90, 95, 99)
                or (50 <= raw.value < 100 and following[0] in ("ci", "cri"))
            )
        ):
            out.append(_quantity(text, tokens, raw, kind, factor, last, CI_LEVEL, content))
            spread_until = raw.last + SPREAD_ATTACH_TOKENS
            index += 1
            continue
        if prev in ("p", "p-value") or (
            prev in ("=", "<", ">", "≤") and raw.first >= 2 and tokens[raw.first - 2].lower == "p"
        ):
            out.append(_quantity(text, tokens, raw, kind, factor, last, P_VALUE, content))
            index += 1
            continue
        spread = _spread_start(tokens, raw.first) is not None or raw.first <= spread_until
        used = _attach_spread(out, tokens, raws, index) if spread else 0
        if used:
            index += used
            spread_until = -1
            continue
        if prev in _SAMPLE_NAMES or (
            prev == "=" and raw.first >= 2 and tokens[raw.first - 2].lower in _SAMPLE_NAMES
        ):
            out.append(_quantity(text, tokens, raw, COUNT, 1.0, last, SAMPLE_SIZE, content))
            index += 1
            continue
        if kind is None:
            subtype = _ratio_name(tokens, raw.first)
            if subtype is not None:
                kind = RATIO
        # A range "10–20%", "10 to 20 days", "between 10 and 20": one quantity.
        if index + 1 < len(raws) and _is_range_pair(tokens, raw, raws[index + 1]):
            other = raws[index + 1]
            other_kind, other_factor, other_last = (other.kind, 1.0, other.last)
            if other_kind is None:
                other_kind, other_factor, other_last = _unit(tokens, other)
            if kind is None or kind == other_kind:
                kind, factor = other_kind or kind, other_factor
                if kind is None and subtype is not None:
                    kind = RATIO
                low, high = sorted((raw.value * factor, other.value * factor))
                base = _quantity(text, tokens, raw, kind, factor, other_last, VALUE, content)
                out.append(
                    _replace(
                        base,
                        value=(low + high) / 2,
                        low=low,
                        high=high,
                        subtype=subtype,
                        tolerance=_tolerance(other, factor, EXACT),
                    )
                )
                index += 2
                continue
        if kind is None and _bounded_age(tokens, last):
            kind, factor = UNITS["years"]
        if kind is None:
            is_year = (
                raw.decimals == 0
                and float(raw.value).is_integer()
                and YEAR_RANGE[0] <= raw.value <= YEAR_RANGE[1]
                and tokens[raw.first].kind == "num"
                and (not _head(tokens, last) or next(iter(_head(tokens, last))) in _MONTHS
                     or prev in _MONTHS or prev in ("in", "since", "by", "from", "until",
                                                    "of", "and", "to", "during"))
            )  # fmt: skip
            kind = YEAR if is_year else COUNT
            if is_year:
                # A year is exact: "2020" is no round figure standing for 2016-2024.
                raw.tolerance_share = 0.0
        quantity = _quantity(text, tokens, raw, kind, factor, last, role, content)
        out.append(_replace(quantity, subtype=subtype) if subtype else quantity)
        index += 1
    return tuple(out)


# What may stand between two numbers of a list that prints its unit once, at its end.
_LIST_SEPARATORS: Final = ([","], ["and"], [",", "and"], ["or"], [",", "or"])
# "MOI 2, 42 hour": a number right after an abbreviation in capitals is what it names (a
# multiplicity of infection, a BMI), no item of the list that follows.
_LABEL_ABBREVIATION: Final = re.compile(r"[A-Z]{2,}")


def _list_unit(tokens: list[_Token], raws: list[_Raw], index: int) -> tuple[str | None, float]:
    """The unit a list prints once, after its last number ("5, 6, 12, and 16%", "3.2, 4.5 and
    6.1 times"): (kind, factor) of the first unit after the bare numbers that follow this one,
    each separated from the next by a comma, "and" or "or"; (None, 1.0) otherwise."""
    first = raws[index].first
    if first and _LABEL_ABBREVIATION.fullmatch(tokens[first - 1].text):
        return None, 1.0
    if _dates_a_month(tokens, raws[index]):
        # "by June 2020, 1 month after the peak": the year of a date, no item of a list.
        return None, 1.0
    j = index
    while j + 1 < len(raws):
        current, following = raws[j], raws[j + 1]
        between = [token.lower for token in tokens[current.last + 1 : following.first]]
        if between not in _LIST_SEPARATORS:
            break
        kind, factor = following.kind, 1.0
        if kind is None:
            kind, factor, _ = _unit(tokens, following)
        if kind is not None:
            return kind, factor
        j += 1
    return None, 1.0


def _dates_a_month(tokens: list[_Token], raw: _Raw) -> bool:
    """A whole number in `YEAR_RANGE` right after a month ("June 2020", "October of 2020", "May
    28, 2020"): the year of a date."""
    if not (
        raw.decimals == 0
        and float(raw.value).is_integer()
        and YEAR_RANGE[0] <= raw.value <= YEAR_RANGE[1]
    ):
        return False
    before = [token.lower for token in tokens[max(0, raw.first - 3) : raw.first]]
    while before and (before[-1] in (",", "of") or before[-1].isdigit()):
        before.pop()
    return bool(before) and before[-1] in _MONTHS


def _is_range_pair(tokens: list[_Token], first: _Raw, second: _Raw) -> bool:
    between = [t.lower for t in tokens[first.last + 1 : second.first]]
    unit_gap = [w for w in between if w not in _RANGE_SEPARATORS and w not in UNITS]
    separator = [w for w in between if w in _RANGE_SEPARATORS]
    if len(separator) == 1 and not unit_gap and len(between) <= 2:
        # "rose from 10% to 20%" is a change between two values; "ranged from 10 to 20" is not.
        before = [t.lower for t in tokens[max(0, first.first - 2) : first.first]]
        return not (
            separator[0] == "to"
            and before[-1:] == ["from"]
            and not (before[:1] and before[0].startswith(("rang", "vari")))
        )
    word_before = tokens[first.first - 1].lower if first.first else ""
    # "between 10 and 20", "between 1.5 percent and 2.8 percent"
    return word_before == "between" and [w for w in between if w not in UNITS] == ["and"]


def _attach_spread(out: list[Quantity], tokens: list[_Token], raws: list[_Raw], index: int) -> int:
    """Read a CI/IQR/± term at `raws[index]` as a spread of the latest value before it (a bound
    pair "1.2–1.9" or "1.2, 1.9" becomes that value's `ci`); how many numbers it used (0 when
    there is no value to attach to)."""
    target = next((i for i in range(len(out) - 1, -1, -1) if out[i].role == VALUE), None)
    if target is None:
        return 0
    raw = raws[index]
    if index + 1 < len(raws):
        other = raws[index + 1]
        between = [t.lower for t in tokens[raw.last + 1 : other.first]]
        if _is_range_pair(tokens, raw, other) or between in ([","], [";"]):
            scale = _unit_factor(tokens, other)
            low, high = sorted((raw.value * scale, other.value * scale))
            out[target] = _replace(out[target], ci=(low, high))
            return 2
    return 1


def _unit_factor(tokens: list[_Token], raw: _Raw) -> float:
    kind, factor, _ = _unit(tokens, raw)
    return factor if kind is not None else 1.0


def _tolerance(raw: _Raw, factor: float, bound: str) -> float:
    rounding: float = 0.5 * 10.0 ** (-raw.decimals) * factor
    if raw.tolerance_share:
        rounding = max(rounding, raw.tolerance_share * raw.value * factor)
    if raw.approx or bound == APPROX:
        return max(rounding, APPROX_SHARE * abs(raw.value * factor))
    return rounding


def _quantity(
    text: str,
    tokens: list[_Token],
    raw: _Raw,
    kind: str | None,
    factor: float,
    last: int,
    role: str,
    content: list[int],
) -> Quantity:
    bound = APPROX if raw.approx else EXACT
    qualifier = _qualifier(tokens, raw.first)
    if qualifier == EXACT:
        qualifier = _trailing_qualifier(tokens, last)
    if qualifier != EXACT:
        bound = qualifier
    start, end = tokens[raw.first].start, tokens[last].end
    return Quantity(
        value=raw.value * factor,
        kind=kind or COUNT,
        text=text[start:end],
        start=start,
        end=end,
        role=role,
        bound=bound,
        tolerance=_tolerance(raw, factor, bound),
        subtype=raw.subtype,
        head=_head(tokens, last) if (kind or COUNT) == COUNT else frozenset(),
        context=_context(tokens, content, raw.first, last),
    )


def _replace(quantity: Quantity, **changes: object) -> Quantity:
    values: dict[str, Any] = {
        name: getattr(quantity, name) for name in quantity.__dataclass_fields__
    }
    values.update(changes)
    return Quantity(**values)


# --- comparison ---------------------------------------------------------------------------------


def _comparable(claim: Quantity, evidence: Quantity) -> bool:
    """Could the two numbers measure the same thing at all (unit kind, role, counted thing)?"""
    if evidence.role != claim.role or claim.kind != evidence.kind:
        return False
    if claim.kind == RATIO and claim.subtype and evidence.subtype:
        return claim.subtype == evidence.subtype or "fold" in (claim.subtype, evidence.subtype)
    if claim.kind == COUNT:
        return bool(claim.head & evidence.head)
    return True


def _agrees(claim: Quantity, evidence: Quantity) -> bool:
    if claim.bound == evidence.bound and claim.bound in (LOWER, UPPER):
        # "up to 80%" against "up to 40%": two bounds agree only on the same value.
        claim, evidence = _replace(claim, bound=EXACT), _replace(evidence, bound=EXACT)
    claim_low, claim_high = claim.interval()
    low, high = evidence.interval()
    # Intervals that only touch (2020 ± 0.5 and 2021 ± 0.5) are different numbers. The margin
    # is relative to the values: values in SI units can be tiny (254 nm = 2.54e-7 m), and an
    # absolute floor would be as wide as their intervals.
    epsilon = TOUCH_EPSILON * max(abs(claim.value), abs(evidence.value))
    if claim_high <= low + epsilon or high <= claim_low + epsilon:
        return False
    # Touching intervals of two opposite bounds ("more than 5" against "less than 5") differ.
    return not (
        {claim.bound, evidence.bound} == {LOWER, UPPER} and (claim_high == low or high == claim_low)
    )


def _meaningful(stems: frozenset[str]) -> frozenset[str]:
    return frozenset(s for s in stems if s not in GENERIC_CONTEXT and not s.isdigit())


@lru_cache(maxsize=8192)
def _sentence_stems(text: str) -> frozenset[str]:
    tokens, content = _analysed(text)
    return _meaningful(frozenset(stem(tokens[i].lower) for i in content))


def _coverage(words: frozenset[str], stems: frozenset[str]) -> float:
    """Share of `words` the evidence mentions (a long stem also inside a longer word)."""
    if not words:
        return 0.0
    covered = sum(
        1
        for word in words
        if word in stems
        or (len(word) >= MIN_INFIX_STEM and any(word in other or other in word for other in stems
                                                 if len(other) >= MIN_INFIX_STEM))
    )  # fmt: skip
    return covered / len(words)


def compare_quantities(claim: str, evidence: str) -> QuantityComparison:
    """For each value in `claim` (not its CI bounds, p-values or CI levels): AGREE when a
    comparable evidence number admits it and the two sentences share a content word; CONFLICT
    when a comparable evidence number contradicts it and a content word near both numbers is
    shared (the same quantity is meant); UNRELATED otherwise."""
    evidence_quantities = extract_quantities(evidence)
    evidence_stems = _sentence_stems(evidence)
    claim_stems = _sentence_stems(claim)
    matches: list[QuantityMatch] = []
    for quantity in _claim_values(claim):
        best: QuantityMatch | None = None
        best_overlap = 0
        for other in evidence_quantities:
            if not _comparable(quantity, other):
                continue
            local = _meaningful(quantity.context & other.context)
            if _agrees(quantity, other):
                shared = local or (claim_stems & evidence_stems)
                if shared:
                    best = QuantityMatch(quantity, AGREE, other, frozenset(shared))
                    break
            elif (
                local
                and len(local) > best_overlap
                # A count already names what it counts ("cities"), compared in `_comparable`.
                and (
                    quantity.kind == COUNT
                    or len(local) >= STRONG_SHARED_CONTEXT
                    or _coverage(_meaningful(quantity.context), evidence_stems)
                    > MIN_CONFLICT_COVERAGE
                )
            ):
                best_overlap = len(local)
                best = QuantityMatch(quantity, CONFLICT, other, local)
        matches.append(best or QuantityMatch(quantity, UNRELATED))
    return QuantityComparison(tuple(matches))


_PREFERENCE: Final = {AGREE: 2, CONFLICT: 1, UNRELATED: 0}


def compare_with_sentences(claim: str, sentences: Sequence[str]) -> QuantityComparison:
    """The claim's values against several evidence sentences: for each value the best relation
    any sentence gives it (AGREE over CONFLICT over UNRELATED), so one sentence that states the
    figure outweighs another that gives a different figure for a related quantity. With no
    sentences every value is UNRELATED."""
    best: list[QuantityMatch] | None = None
    for sentence in sentences:
        matches = list(compare_quantities(claim, sentence).matches)
        if best is None:
            best = matches
            continue
        best = [
            new if _PREFERENCE[new.relation] > _PREFERENCE[old.relation] else old
            for old, new in zip(best, matches, strict=True)
        ]
    if best is None:
        best = [QuantityMatch(q, UNRELATED) for q in _claim_values(claim)]
    return QuantityComparison(tuple(best))


def _claim_values(claim: str) -> list[Quantity]:
    return [q for q in extract_quantities(claim) if q.role in (VALUE, SAMPLE_SIZE)]


# --- for callers that weigh candidates themselves (the retriever's number rule) ----------------


def comparable(claim: Quantity, evidence: Quantity) -> bool:
    """Could the two numbers measure the same thing at all (unit kind, role, counted thing)?"""
    return _comparable(claim, evidence)


def values_agree(claim: Quantity, evidence: Quantity) -> bool:
    """The evidence's value admits the claim's (rounding, bounds, ranges, tolerance)."""
    return _agrees(claim, evidence)


def meaningful(stems: frozenset[str]) -> frozenset[str]:
    """The stems that can show two numbers measure the same thing (no generic words)."""
    return _meaningful(stems)


_MIDDLE_DOT_DECIMAL = re.compile(r"(?<=\d)[·•](?=\d)")
_SPACED_THOUSANDS = re.compile(r"(?<![\d.,])(\d{1,3})[ \u00a0\u2009\u202f](?=\d{3}(?![\d.,]\d|\d))")


def normalise_numerals(text: str) -> str:
    """Numbers as `extract_quantities` reads them, character for character (offsets kept):
    a decimal middle dot ("1·3 million", The Lancet's style) becomes a point, and a space
    between digit groups ("50 000", "499 000") a thousands comma."""
    text = _MIDDLE_DOT_DECIMAL.sub(".", text)
    return _SPACED_THOUSANDS.sub(r"\1,", text)
