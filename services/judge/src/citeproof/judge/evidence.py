"""The evidence a judge reads, as sentences: the unit a quote is made of."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import msgspec

from citeproof.contracts.judging import Passage
from citeproof.text.sentences import split_sentences

# Sentences shorter than this many characters (headings, "Abstract", page furniture) are skipped.
MIN_SENTENCE_CHARS: Final = 20


class EvidenceSentence(msgspec.Struct, frozen=True):
    """A sentence of a passage, verbatim, with where it came from."""

    text: str
    passage_rank: int
    page: int | None


def evidence_sentences(passages: Sequence[Passage]) -> list[EvidenceSentence]:
    """Every sentence of the passages, verbatim, in passage-rank order."""
    sentences: list[EvidenceSentence] = []
    for passage in sorted(passages, key=lambda p: p.rank):
        for start, end in split_sentences(passage.text):
            text = passage.text[start:end]
            if len(text) >= MIN_SENTENCE_CHARS:
                sentences.append(EvidenceSentence(text, passage.rank, passage.page))
        if not any(s.passage_rank == passage.rank for s in sentences) and passage.text.strip():
            # A passage of only short fragments still counts as one unit of evidence.
            sentences.append(EvidenceSentence(passage.text.strip(), passage.rank, passage.page))
    return sentences
