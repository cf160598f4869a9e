"""Whether a page of a seeded source bears on a claim (issue 25, rule 3: a pinpoint is wrong
"when the cited page holds nothing that bears on the claim and another page clearly does").

The generator's wrong pinpoints must point to such a page: a page picked at random may hold an
abstract's conclusion restating the very result the claim paraphrases, and a rule that stays
silent there is right. The measure is deliberately plain and independent of the rule's own
scorer (no retriever, no IDF weights): the words that tie the claim to its evidence sentences
(content words the claim and its evidence share, less those most of the source's sentences
print) and the claim's specific numbers. A page bears on the claim when one of its sentences,
or two in a row, holds such a number or enough of those words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from citeproof.text.words import NUMBER_PATTERN, STOPWORDS, stem

_WORD: Final = re.compile(r"[^\W\d_]{3,}")
# A word printed in more than this share of the source's sentences says nothing about which
# page the claim came from ("covid", "infection" in this corpus).
COMMON_SHARE: Final = 0.2
# A sentence (or pair) bears on the claim from this share of the tying words, and at least
# MIN_SHARED of them.
SHARED_SHARE: Final = 0.34
MIN_SHARED: Final = 2


def _stems(text: str) -> set[str]:
    return {
        stem(word)
        for word in (match.group(0).casefold() for match in _WORD.finditer(text))
        if word not in STOPWORDS
    }


def _specific_numbers(text: str) -> set[str]:
    """Numbers a claim states that a page holding nothing about it would rarely print: two
    digits or more, or a decimal (not "1" or "2", not a name's digits such as COVID-19)."""
    found = set()
    for match in NUMBER_PATTERN.finditer(text):
        raw = match.group(0).rstrip(".,")
        if len(raw.replace(",", "").replace(".", "")) >= 2 or "." in raw:
            found.add(raw)
    return found


def tying_words(claim: str, evidence: Sequence[str], source: Sequence[str]) -> set[str]:
    """The claim's content stems its evidence shares, without those common in the source
    (the claim's own distinctive stems when it shares fewer than two with its evidence)."""
    counts: dict[str, int] = {}
    for sentence in source:
        for value in _stems(sentence):
            counts[value] = counts.get(value, 0) + 1
    limit = COMMON_SHARE * max(len(source), 1)
    claim_stems = {value for value in _stems(claim) if counts.get(value, 0) <= limit}
    evidence_stems = set().union(*(_stems(sentence) for sentence in evidence))
    shared = claim_stems & evidence_stems
    return shared if len(shared) >= MIN_SHARED else claim_stems


def bears_on(
    claim: str, evidence: Sequence[str], page: Sequence[str], source: Sequence[str]
) -> bool:
    """Whether the page (its sentences, in order) bears on the claim whose evidence sentences
    are given; `source` is every sentence of the source (for how common a word is)."""
    numbers = _specific_numbers(claim)
    if any(numbers & _specific_numbers(sentence) for sentence in page):
        return True
    tying = tying_words(claim, evidence, source)
    if not tying:
        return False
    # A claim tied to its evidence by one word: that word on the page is enough.
    needed = min(len(tying), max(MIN_SHARED, SHARED_SHARE * len(tying)))
    stems = [_stems(sentence) & tying for sentence in page]
    for index, held in enumerate(stems):
        pair = held | stems[index + 1] if index + 1 < len(stems) else held
        if len(held) >= needed or len(pair) >= needed:
            return True
    return False
