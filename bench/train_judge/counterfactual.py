"""Rule-based counterfactuals: a supported claim edited so that its own evidence contradicts it.

Check-COVID's refuted claims are minimal edits of supported ones (a negation, an opposite
direction, another number), so the same edits applied to other supported pairs teach exactly the
distinction the judge must make. Each rule returns None when it does not apply; a claim gets at most
one edit, chosen with a seeded generator.
"""

from __future__ import annotations

import random
import re
from typing import Final

# Opposite pairs, both directions; whole words only, case kept for the first letter.
_OPPOSITES: Final = [
    ("increase", "decrease"), ("increases", "decreases"), ("increased", "decreased"),
    ("increasing", "decreasing"), ("higher", "lower"), ("more", "fewer"), ("greater", "smaller"),
    ("rise", "fall"), ("rises", "falls"), ("raised", "reduced"), ("reduces", "increases"),
    ("reduce", "increase"), ("reduced", "increased"), ("positive", "negative"),
    ("effective", "ineffective"), ("safe", "unsafe"), ("likely", "unlikely"),
    ("common", "rare"), ("before", "after"), ("improves", "worsens"), ("improved", "worsened"),
    ("better", "worse"), ("high", "low"), ("strong", "weak"), ("stronger", "weaker"),
    ("longer", "shorter"), ("older", "younger"), ("protective", "harmful"), ("men", "women"),
    ("children", "adults"), ("major", "minor"), ("most", "least"), ("larger", "smaller"),
    ("significant", "insignificant"), ("benefit", "harm"),
    ("enhances", "inhibits"), ("promotes", "prevents"), ("susceptible", "resistant"),
    ("severe", "mild"), ("mild", "severe"), ("symptomatic", "asymptomatic"),
]  # fmt: skip
_SWAP: Final = {a: b for a, b in _OPPOSITES} | {b: a for a, b in _OPPOSITES}
_SWAP_RE: Final = re.compile(r"\b(" + "|".join(sorted(_SWAP, key=len, reverse=True)) + r")\b", re.I)

# Auxiliaries that take "not" after them; and the negated forms that lose it.
_NEGATABLE: Final = re.compile(
    r"\b(is|are|was|were|can|could|may|might|will|would|should|has been|have been|does|do|did)"
    r"\b(?! not\b)",
    re.I,
)
_NEGATED: Final = re.compile(
    r"\b(is|are|was|were|can|could|may|might|will|would|should|does|do|did) not\b|"
    r"\b(isn't|aren't|wasn't|weren't|cannot|can't|doesn't|don't|didn't|won't)\b",
    re.I,
)
_CONTRACTIONS: Final = {
    "isn't": "is", "aren't": "are", "wasn't": "was", "weren't": "were", "cannot": "can",
    "can't": "can", "doesn't": "does", "don't": "do", "didn't": "did", "won't": "will",
}  # fmt: skip
_NUMBER: Final = re.compile(r"(?<![\w.-])(\d+(?:\.\d+)?)(?![\w.])")


def _keep_case(original: str, replacement: str) -> str:
    return replacement[:1].upper() + replacement[1:] if original[:1].isupper() else replacement


def swap_direction(claim: str, rng: random.Random) -> str | None:
    matches = list(_SWAP_RE.finditer(claim))
    if not matches:
        return None
    m = rng.choice(matches)
    word = m.group(1)
    return claim[: m.start()] + _keep_case(word, _SWAP[word.lower()]) + claim[m.end() :]


def toggle_negation(claim: str, rng: random.Random) -> str | None:
    negated = list(_NEGATED.finditer(claim))
    if negated:
        m = rng.choice(negated)
        text = m.group(0)
        if m.group(1):
            plain = m.group(1)
        else:
            plain = _keep_case(text, _CONTRACTIONS[text.lower()])
        return claim[: m.start()] + plain + claim[m.end() :]
    candidates = list(_NEGATABLE.finditer(claim))
    if not candidates:
        return None
    m = candidates[0]
    return claim[: m.end()] + " not" + claim[m.end() :]


def change_number(claim: str, rng: random.Random) -> str | None:
    numbers = [
        m for m in _NUMBER.finditer(claim) if not (1900 <= float(m.group(1)) <= 2030)
    ]  # years are context, not findings
    if not numbers:
        return None
    m = rng.choice(numbers)
    value = float(m.group(1))
    factor = rng.choice((0.3, 0.5, 2.0, 3.0))
    new = value * factor
    if "." in m.group(1):
        text = f"{new:.{len(m.group(1).split('.')[1])}f}"
    else:
        text = str(max(1, round(new))) if round(new) != value else str(int(value) + 7)
    if text == m.group(1):
        return None
    return claim[: m.start()] + text + claim[m.end() :]


RULES: Final = (swap_direction, toggle_negation, change_number)


def counterfactual(claim: str, rng: random.Random) -> str | None:
    """One edit of ``claim`` that flips its meaning, or None when no rule applies."""
    rules = list(RULES)
    rng.shuffle(rules)
    for rule in rules:
        edited = rule(claim, rng)
        if edited and edited != claim:
            return edited
    return None
