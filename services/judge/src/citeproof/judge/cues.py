"""Word lists and tokenisation for the local judge's lexical features.

Small, hand-written lists: they only have to catch the cues that flip a scientific claim (negation,
an opposite direction, a different number), and the classifier learns how much each is worth.
"""

from __future__ import annotations

import re
from typing import Final

# Shared with quantity extraction (citeproof.text.quantities); re-exported for the cues' callers.
from citeproof.text.words import NUMBER_PATTERN, STOPWORDS, parse_numeral, stem

NEGATIONS: Final = frozenset(
    {
        "no",
        "not",
        "never",
        "none",
        "neither",
        "nor",
        "without",
        "cannot",
        "lack",
        "lacks",
        "lacking",
        "absence",
        "absent",
        "fail",
        "fails",
        "failed",
        "unable",
        "nothing",
        "nobody",
        "n't",
    }
)

HEDGES: Final = frozenset(
    {
        "may",
        "might",
        "could",
        "possibly",
        "possible",
        "potential",
        "potentially",
        "likely",
        "unlikely",
        "suggest",
        "suggests",
        "suggested",
        "appear",
        "appears",
        "perhaps",
        "probably",
        "preliminary",
        "hypothesize",
        "hypothesized",
        "putative",
    }
)

# Pairs of opposite directions/qualities; each side may list several surface forms.
_OPPOSITE_PAIRS: Final = (
    (
        {
            "increase",
            "increases",
            "increased",
            "increasing",
            "rise",
            "rises",
            "rising",
            "raised",
            "raise",
            "raises",
            "elevated",
            "more",
            "greater",
            "higher",
            "high",
            "up",
            "boost",
            "boosts",
            "enhance",
            "enhances",
            "enhanced",
        },
        {
            "decrease",
            "decreases",
            "decreased",
            "decreasing",
            "decline",
            "declines",
            "declined",
            "drop",
            "drops",
            "dropped",
            "lower",
            "low",
            "less",
            "fewer",
            "reduce",
            "reduces",
            "reduced",
            "reducing",
            "reduction",
            "down",
            "diminish",
            "diminished",
        },
    ),
    ({"improve", "improves", "improved", "better"}, {"worsen", "worsens", "worsened", "worse"}),
    (
        {
            "effective",
            "efficacious",
            "efficacy",
            "beneficial",
            "benefit",
            "benefits",
            "protective",
            "protects",
            "protect",
            "safe",
            "helps",
            "help",
            "works",
        },
        {
            "ineffective",
            "harmful",
            "harm",
            "harms",
            "unsafe",
            "dangerous",
            "useless",
            "risk",
            "risky",
        },
    ),
    ({"positive", "positively"}, {"negative", "negatively"}),
    (
        {"associated", "linked", "correlated", "related", "significant", "significantly"},
        {"unassociated", "unrelated", "uncorrelated", "insignificant"},
    ),
    ({"before", "earlier", "early", "first"}, {"after", "later", "late", "last"}),
    (
        {"longer", "long", "slower", "slow"},
        {"shorter", "short", "faster", "fast", "rapid", "rapidly", "quickly", "quick"},
    ),
    (
        {"all", "always", "every", "most", "majority", "many"},
        {"some", "sometimes", "few", "minority", "rarely", "rare"},
    ),
    ({"children", "child", "young", "younger"}, {"adults", "adult", "elderly", "older", "old"}),
    ({"men", "male", "males"}, {"women", "female", "females"}),
    ({"asymptomatic"}, {"symptomatic"}),
    ({"airborne", "aerosol", "aerosols"}, {"surface", "surfaces", "droplet", "droplets"}),
)

# word -> (pair index, side) for quick lookup.
DIRECTION_OF: Final = {
    word: (pair_index, side)
    for pair_index, pair in enumerate(_OPPOSITE_PAIRS)
    for side, words in enumerate(pair)
    for word in words
}

# For "what if the claim said the opposite?": one representative word per side.
OPPOSITE_WORD: Final = {
    word: sorted(_OPPOSITE_PAIRS[pair_index][1 - side])[0]
    for word, (pair_index, side) in DIRECTION_OF.items()
}

NUMBER_WORDS: Final = {
    "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
    "seven": "7", "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12",
    "fifteen": "15", "twenty": "20", "thirty": "30", "forty": "40", "fifty": "50",
    "sixty": "60", "seventy": "70", "eighty": "80", "ninety": "90", "hundred": "100",
    "thousand": "1000", "million": "1000000", "billion": "1000000000", "half": "50",
    "twice": "2", "double": "2", "triple": "3",
}  # fmt: skip

_TOKEN = re.compile(r"[a-z0-9]+(?:[.,][0-9]+)*(?:'t)?|n't")


def tokens(text: str) -> list[str]:
    """Lower-case word tokens; numbers keep their decimal point."""
    return _TOKEN.findall(text.lower().replace("’", "'"))


def content_stems(text: str) -> set[str]:
    return {stem(t) for t in tokens(text) if t not in STOPWORDS and len(t) > 1}


def numbers(text: str) -> set[str]:
    """Numbers in ``text`` as canonical strings, number words included ("thirty" -> "30")."""
    found = set()
    for raw in NUMBER_PATTERN.findall(text):
        value = parse_numeral(raw)
        if value is not None:
            found.add(f"{value:g}")
    for token in tokens(text):
        if token in NUMBER_WORDS:
            found.add(NUMBER_WORDS[token])
    return found


def count_in(words: frozenset[str], text_tokens: list[str]) -> int:
    return sum(1 for t in text_tokens if t in words)


def directions(text_tokens: list[str]) -> set[tuple[int, int]]:
    return {DIRECTION_OF[t] for t in text_tokens if t in DIRECTION_OF}


# Tokens either side of a direction word that say what it is about ("higher [growth rates]").
DIRECTION_WINDOW: Final = 3


def _neighbourhood(words: list[str], index: int) -> set[str]:
    low, high = max(index - DIRECTION_WINDOW, 0), index + DIRECTION_WINDOW + 1
    return {
        stem(w)
        for w in words[low:index] + words[index + 1 : high]
        if w not in STOPWORDS and w not in DIRECTION_OF
    }


def local_direction_votes(claim_tokens: list[str], evidence_tokens: list[str]) -> tuple[int, int]:
    """(agreements, conflicts) of the claim's direction words with the evidence, by context.

    A claim direction word conflicts when the evidence uses the opposite word about the same
    things (shared neighbouring words) more than it uses the same word: "associated with higher
    growth" against "higher UV levels were associated with lower growth" is a conflict, although
    the evidence contains "higher" too.
    """
    agree = conflict = 0
    for i, word in enumerate(claim_tokens):
        if word not in DIRECTION_OF:
            continue
        pair, side = DIRECTION_OF[word]
        around = _neighbourhood(claim_tokens, i)
        same = opposite = 0
        for j, other in enumerate(evidence_tokens):
            if DIRECTION_OF.get(other, (None, None))[0] != pair:
                continue
            overlap = len(around & _neighbourhood(evidence_tokens, j))
            if DIRECTION_OF[other][1] == side:
                same = max(same, overlap)
            else:
                opposite = max(opposite, overlap)
        if opposite > same:
            conflict += 1
        elif same > opposite:
            agree += 1
    return agree, conflict


def flipped(text: str) -> str | None:
    """The claim with its direction words swapped and its negations dropped, or None if neither.

    Used to ask the embedding model whether the evidence is closer to the opposite claim.
    """
    changed = False
    out = []
    for word in re.split(r"(\W+)", text):
        lower = word.lower()
        if lower in OPPOSITE_WORD:
            out.append(OPPOSITE_WORD[lower])
            changed = True
        elif lower in {"not", "no", "never"}:
            changed = True
        else:
            out.append(word)
    return "".join(out) if changed else None
