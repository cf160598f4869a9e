"""BM25 tokenisation: folded lower-case words without stop words, Snowball-stemmed.

The same function tokenises source text and queries, so whatever it does is symmetric; it only
has to make "detects"/"detection" and "Müller"/"Muller" meet.
"""

from __future__ import annotations

import re
from functools import lru_cache

import snowballstemmer

from citeproof.text.normalize import dehyphenate, fold_diacritics

_TOKEN = re.compile(r"[a-z0-9]+(?:\.[0-9]+)?")

# Function words that carry no topical signal. Negations and quantifiers ("not", "no", "all",
# "only") are kept on purpose: they are exactly what separates a claim from its contradiction.
STOP_WORDS = frozenset(
    """a an the and or of to in on at by for with from as is are was were be been being it its
    this that these those there their they them he she his her we our you your i me my which who
    whom whose what when where why how than then so such into onto over under about also can
    could may might would should will shall do does did done has have had having via per et al
    upon within without between among both each either neither other any some more most""".split()
)

_STEMMER = snowballstemmer.stemmer("english")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """Snowball (Porter 2) English stem; cached, since the same words recur endlessly."""
    return _STEMMER.stemWord(word)


def tokenize(text: str) -> list[str]:
    text = dehyphenate(text)
    # Folding walks every character in Python; pure-ASCII text (most of it) has nothing to fold.
    folded = (text if text.isascii() else fold_diacritics(text)).lower()
    return [stem(tok) for tok in _TOKEN.findall(folded) if tok not in STOP_WORDS]
