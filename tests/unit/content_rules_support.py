"""What the content-rule tests share: a retrieved passage built from a source's own sentence, and
the number conflicts the rules find for a claim."""

from __future__ import annotations

from collections.abc import Iterable

from citeproof.pipeline import NUMBER_CONFLICT
from citeproof.retriever.content_rules import CitationInput, SourceText, check_citation
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


def conflicts(
    source: SourceText, claim: str, evidence: Iterable[RankedPassage] = ()
) -> list[tuple[str, str]]:
    """(expected, found) of each CP201 number-conflict the content rules report for ``claim``
    against ``source`` with the retriever's ``evidence``."""
    findings = check_citation(source, CitationInput(claim=claim, evidence=list(evidence)))
    return [(f.expected, f.found) for f in findings if f.rule == NUMBER_CONFLICT.code]
