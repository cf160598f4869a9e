"""Stemming from several threads at once gives every word its own stem.

Document indexes are built in threads (`asyncio.to_thread`), two at once when two documents
miss the cache together. A snowball stemmer keeps the word it is working on in its own fields,
so one stemmer shared by those threads mixed their words up: an IndexError or AssertionError
(a chaos run's retrieve tasks failed with "string index out of range"), or silently a wrong
stem, which `stem`'s cache then kept for the life of the process (that run's verdict for one
citation differed from the calm run's)."""

from __future__ import annotations

import random
import sys
from concurrent.futures import ThreadPoolExecutor

import snowballstemmer

from citeproof.retriever import bm25_terms

ROOTS = (
    "running generalization conditional relational hopefulness organizational electricity "
    "adjustable dependence activities nationally"
).split()
SUFFIXES = ("", "s", "ing", "ness", "ation", "ly", "ed")


def _words() -> list[str]:
    rng = random.Random(7)
    words = [
        root + "".join(rng.choice("aeioulnrst") for _ in range(rng.randint(0, 6))) + suffix
        for root in ROOTS
        for suffix in SUFFIXES
        for _ in range(20)
    ]
    return list(dict.fromkeys(words))


def test_threads_stemming_at_once_each_get_their_own_words_stem() -> None:
    words = _words()
    expected = {word: snowballstemmer.stemmer("english").stemWord(word) for word in words}
    uncached = bm25_terms.stem.__wrapped__  # the cache would hide the race after one call
    failures: list[str] = []

    def stem_all(chunk: list[str]) -> list[tuple[str, str]]:
        out = []
        for word in chunk:
            try:
                out.append((word, uncached(word)))
            except (IndexError, AssertionError) as exc:
                failures.append(f"{word}: {type(exc).__name__}")
        return out

    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible
    try:
        with ThreadPoolExecutor(8) as pool:
            results = [
                pair for chunk in pool.map(stem_all, [words[i::8] for i in range(8)] * 4)
                for pair in chunk
            ]  # fmt: skip
    finally:
        sys.setswitchinterval(switch)
    assert failures == []
    wrong = [(word, got, expected[word]) for word, got in results if got != expected[word]]
    assert wrong == []
    assert len(results) == 4 * len(words)
