"""Text folded for comparing a quotation with its source, forgiving only rendering.

A text becomes its words (runs of letters and digits) and each word a string of folded
characters: Unicode compatibility forms (ligatures "ﬁ", full-width letters) resolved, accents
removed, superscript digits (footnote marks: "arXiv,²") dropped. Everything between words is
dropped: spacing and line breaks, punctuation, quotation marks and dashes of any style. Words
are compared as one stream of characters, so a word broken at a line end ("exam-" + "ple"), or
one written with or without a hyphen ("well-known"), is the same word.

Two parallel streams are kept: `keys` (lower case, for finding) and `exact` (case kept, for
telling a changed first letter from a changed word). Both have one character per character, so
an offset into one is an offset into the other.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

_WORD = re.compile(r"[^\W_]+")
_SUPERSCRIPTS = frozenset("⁰¹²³⁴⁵⁶⁷⁸⁹ⁱⁿ")


@lru_cache(maxsize=4096)
def _fold_char(char: str) -> str:
    """One character as compared (may be several: "ﬁ" -> "fi"), case kept."""
    if char in _SUPERSCRIPTS:
        return ""
    decomposed = unicodedata.normalize("NFKD", char)
    return "".join(c for c in decomposed if not unicodedata.combining(c) and c.isalnum())


def _lower(text: str) -> str:
    """Lower case character by character, keeping the length (a few characters lower-case to
    two, e.g. "İ": those stay as they are)."""
    return "".join(c.lower() if len(c.lower()) == 1 else c for c in text)


@dataclass(frozen=True)
class FoldedWord:
    start: int  # span in the original text
    end: int
    exact: str  # folded, case kept
    key: str  # folded, lower case

    @property
    def all_capitals(self) -> bool:
        return len(self.exact) > 1 and self.exact.isupper()


def folded_words(text: str, start: int = 0, end: int | None = None) -> list[FoldedWord]:
    """The words of ``text[start:end]`` folded; words that fold to nothing are left out."""
    words: list[FoldedWord] = []
    for match in _WORD.finditer(text, start, len(text) if end is None else end):
        word = match.group()
        # Most words are plain ASCII: nothing to fold.
        exact = word if word.isascii() else "".join(_fold_char(char) for char in word)
        if exact:
            words.append(FoldedWord(match.start(), match.end(), exact, _lower(exact)))
    return words


def word_keys(text: str) -> list[str]:
    return [word.key for word in folded_words(text)]
