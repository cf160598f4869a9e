"""The retriever's ranked evidence for a claim, as the content rules read it.

The retrieve stage ranks the source's sentences for each claim (fused vector and BM25 scores,
`citeproof.retriever.retrieval`) before the content rules run: its best passages are the
sentences that bear on the claim by meaning, not only by shared words - a paraphrase ("A 69%
match was found with coronavirus samples taken from horseshoe bats") ranks its evidence ("96%
identical at the whole-genome level to a bat coronavirus") first although the two share few
words. The number rule aligns a claim's number with them first; the page rule asks whether
the cited page holds any of them.

A passage's text is a slice of the stored text the rules' `SourceText` is built from (a
sentence of one chunk), so it is found there verbatim; a passage found nowhere (a source
parsed again since) is left out.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class RankedPassage:
    """One of the retriever's evidence passages for the claim (best first)."""

    text: str
    rank: int  # 1 = the retriever's best
    page: int | None = None  # PDF page (1-based)
    vector_score: float | None = None
    fused_score: float | None = None


def ranked_sentences(
    text: str,
    sentences: Sequence[tuple[int, int]],
    passages: Sequence[RankedPassage],
) -> dict[int, int]:
    """Sentence index -> the best rank of a passage that holds it or lies in it (a passage
    may be a part of a long sentence, or two short sentences glued together)."""
    starts = [start for start, _ in sentences]
    ranks: dict[int, int] = {}
    for passage in passages:
        needle = passage.text.strip()
        if not needle:
            continue
        at = text.find(needle)
        if at < 0:
            continue
        end = at + len(needle)
        first = max(bisect.bisect_right(starts, at) - 1, 0)
        for index in range(first, len(sentences)):
            start, stop = sentences[index]
            if start >= end:
                break
            if stop > at:
                ranks[index] = min(ranks.get(index, passage.rank), passage.rank)
    return ranks
