"""What the content-rule tests share: a retrieved passage built from a source's own sentence."""

from __future__ import annotations

from citeproof.retriever.content_rules import SourceText
from citeproof.retriever.content_rules.evidence import RankedPassage


def passage(source: SourceText, fragment: str, rank: int, score: float = 0.7) -> RankedPassage:
    """The retriever's passage of rank ``rank`` for the one sentence of ``source`` holding
    ``fragment``, on that sentence's page."""
    [index] = [i for i in range(len(source.sentences)) if fragment in source.sentence_text(i)]
    return RankedPassage(
        text=source.sentence_text(index),
        rank=rank,
        page=source.sentence_pages[index],
        vector_score=score,
        fused_score=score,
    )
