"""Rule CP301 page-mismatch (warning): the cited page holds nothing that bears on the claim, and
another page clearly does.

How much a page bears on the claim: the best sentence on it, or pair of adjacent sentences (a
claim often condenses two), scored by the IDF-weighted share of the claim's content words it
holds. Scores come from the source's stem postings of the claim's own words; only the few best
sentences of the document are looked at closer.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from citeproof.contracts.findings import FROM_SOURCE_TEXT, Difference, Evidence, Finding
from citeproof.pipeline import PAGE_MISMATCH
from citeproof.retriever.content_rules.config import ContentRulesConfig
from citeproof.retriever.content_rules.evidence import RankedPassage, ranked_sentences
from citeproof.retriever.content_rules.pages import CitedPages, printed_if_different, shown_page
from citeproof.retriever.content_rules.source import SourceText

# Sentences (best single scores) whose pairs with their neighbours are scored.
PAIRED_CANDIDATES = 30


def page_scores(
    source: SourceText, claim_stems: Sequence[str], coverage: np.ndarray
) -> dict[int, tuple[float, int, int]]:
    """Per PDF page: (score, first sentence, last sentence) of its best sentence or pair."""
    unique = list(dict.fromkeys(claim_stems))
    weights = {value: source.idf(value) for value in unique}
    total = sum(weights.values()) or 1.0
    best: dict[int, tuple[float, int, int]] = {}

    def offer(score: float, first: int, last: int) -> None:
        page = source.sentence_pages[first]
        if score > best.get(page, (0.0, 0, 0))[0]:
            best[page] = (score, first, last)

    candidates = np.flatnonzero(coverage > 0)
    for index in candidates:
        offer(float(coverage[index]), int(index), int(index))
    order = candidates[np.argsort(-coverage[candidates], kind="stable")][:PAIRED_CANDIDATES]
    for index in (int(i) for i in order):
        for neighbour in (index - 1, index + 1):
            if not 0 <= neighbour < len(source.sentences):
                continue
            if source.sentence_pages[neighbour] != source.sentence_pages[index]:
                continue
            stems = source.sentence_stems[index] | source.sentence_stems[neighbour]
            score = sum(weight for value, weight in weights.items() if value in stems) / total
            offer(score, min(index, neighbour), max(index, neighbour))
    return best


def _retrieved_pages(
    source: SourceText, passages: Sequence[RankedPassage], config: ContentRulesConfig
) -> dict[int, tuple[float, RankedPassage]]:
    """Per PDF page, the best of the retriever's passages on it: its similarity to the claim
    (`vector_score`) and a bonus for its rank (`page_rank_weight` / rank), with the passage.
    The page is the one the retriever found the passage on: a sentence the source prints twice
    (an abstract's sentence again in the body) is found first where it is printed first."""
    best: dict[int, tuple[float, RankedPassage]] = {}
    for passage in passages:
        page = passage.page
        if page is None:
            ranks = ranked_sentences(source.text, source.sentences, [passage])
            page = source.sentence_pages[min(ranks)] if ranks else None
        if page is None:
            continue
        value = config.page_vector_weight * (passage.vector_score or 0.0)
        value += config.page_rank_weight / passage.rank
        if value > best.get(page, (-1.0, passage))[0]:
            best[page] = (value, passage)
    return best


def check_page(
    source: SourceText,
    claim_stems: Sequence[str],
    coverage: np.ndarray,
    cited: CitedPages | None,
    config: ContentRulesConfig,
    passages: Sequence[RankedPassage] = (),
) -> list[Finding]:
    """With the retriever's passages, a page bears on the claim by its best sentence's share
    of the claim's words (`page_scores`) plus its best passage's similarity and rank
    (`_retrieved_pages`): the cited page holds nothing about the claim when another page
    bears on it by `page_evidence_margin` more. Without them (a retrieval that found nothing),
    by the words alone: the cited page below `page_nothing_below`, another page from
    `page_clearly_above` and by `page_margin` more."""
    if cited is None or not (cited.pages or cited.outside) or not source.page_starts:
        return []
    if len(set(claim_stems)) < config.page_min_content_words:
        return []
    scores = page_scores(source, claim_stems, coverage)
    retrieved = _retrieved_pages(source, passages, config) if passages else {}
    bearing = {page: entry[0] for page, entry in scores.items()}
    for page, (value, _) in retrieved.items():
        bearing[page] = bearing.get(page, 0.0) + value
    on_cited = max((bearing[p] for p in cited.pages if p in bearing), default=0.0)
    others = [(value, page) for page, value in bearing.items() if page not in cited.pages]
    if not others:
        return []
    best_score, best_page = max(others)
    if retrieved:
        if best_score - on_cited < config.page_evidence_margin:
            return []
    elif not (
        on_cited < config.page_nothing_below
        and best_score >= config.page_clearly_above
        and best_score - on_cited >= config.page_margin
    ):
        return []
    where = shown_page(source, best_page)
    if best_page in retrieved:
        shown = retrieved[best_page][1].text
    else:
        _, first, last = scores[best_page]
        shown = source.text[source.sentences[first][0] : source.sentences[last][1]]
    return [
        Finding(
            rule=PAGE_MISMATCH.code,
            message=(
                f"The cited {cited.describe()} holds nothing about the claim"
                + (" (the source has no such page)" if cited.outside else "")
                + f"; {where} does."
            ),
            expected=cited.describe(),
            found=where,
            differences=[Difference(field="page", expected=cited.describe(), found=where)],
            evidence=[
                Evidence(
                    origin=FROM_SOURCE_TEXT,
                    text=shown,
                    page=best_page,
                    printed_page=printed_if_different(source, best_page),
                    document_id=source.document_id,
                )
            ],
        )
    ]
