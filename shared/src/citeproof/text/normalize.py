"""Text normalisation shared by thesis analysis, linking and retrieval.

Everything here produces text for *comparison* (matching names, titles, tokens). Never store the
normalised form as a quote or claim: spans always point into the original text.
"""

from __future__ import annotations

import re
import unicodedata

# Letters that Unicode does not decompose into base letter + combining mark.
_UNDECOMPOSABLE = str.maketrans(
    {
        "ß": "ss",
        "æ": "ae",
        "Æ": "AE",
        "ø": "o",
        "Ø": "O",
        "œ": "oe",
        "Œ": "OE",
        "ł": "l",
        "Ł": "L",
        "đ": "d",
        "Đ": "D",
        "ð": "d",
        "þ": "th",
        "ı": "i",
        "ﬁ": "fi",
        "ﬂ": "fl",
        "ﬀ": "ff",
        "ﬃ": "ffi",
        "ﬄ": "ffl",
        "‘": "'",
        "’": "'",
        "“": '"',
        "”": '"',
        "–": "-",
        "—": "-",
        "‐": "-",
        "‑": "-",
        "−": "-",
    }
)

# A hyphen at a line end inside a word: "ci-\ntation" -> "citation".
_LINE_BREAK_HYPHEN = re.compile(r"(?<=[a-zà-ÿ])-\s*\n\s*(?=[a-zà-ÿ])")
_WHITESPACE = re.compile(r"\s+")
_NON_WORD = re.compile(r"[^0-9a-z]+")


def fold_diacritics(text: str) -> str:
    """``"Müller–Šimić"`` -> ``"Muller-Simic"``: strip accents, expand ligatures, ASCII dashes."""
    decomposed = unicodedata.normalize("NFKD", text.translate(_UNDECOMPOSABLE))
    return "".join(char for char in decomposed if not unicodedata.combining(char))


def dehyphenate(text: str) -> str:
    """Join words split by a hyphen at a line break. Changes offsets: comparison use only."""
    return _LINE_BREAK_HYPHEN.sub("", text)


def collapse_whitespace(text: str) -> str:
    return _WHITESPACE.sub(" ", text).strip()


def comparison_key(text: str) -> str:
    """Lower-case ASCII words separated by single spaces, for fuzzy matching of titles/names."""
    folded = fold_diacritics(dehyphenate(text)).lower()
    return _NON_WORD.sub(" ", folded).strip()
