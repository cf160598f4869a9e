"""BM25 tokenisation: folded lower-case words without stop words, Snowball-stemmed.

The same function tokenises source text and queries, so whatever it does is symmetric; it only
has to make "detects"/"detection" and "Müller"/"Muller" meet.
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache
from typing import Any

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

# One stemmer per thread. A snowball stemmer keeps the word it is working on in its own fields,
# and document indexes are built in threads, two at once when two documents miss the cache
# together: a shared stemmer mixed their words up - an IndexError, or silently a wrong stem that
# the cache below then kept for the life of the process (a chaos run's verdict differed from the
# calm run's this way).
_STEMMERS = threading.local()


def _stemmer() -> Any:
    found = getattr(_STEMMERS, "english", None)
    if found is None:
        found = _STEMMERS.english = snowballstemmer.stemmer("english")
    return found


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """Snowball (Porter 2) English stem; cached, since the same words recur endlessly."""
    return str(_stemmer().stemWord(word))


def tokenize(text: str) -> list[str]:
    text = dehyphenate(text)
    # Folding walks every character in Python; pure-ASCII text (most of it) has nothing to fold.
    folded = (text if text.isascii() else fold_diacritics(text)).lower()
    return [stem(tok) for tok in _TOKEN.findall(folded) if tok not in STOP_WORDS]
