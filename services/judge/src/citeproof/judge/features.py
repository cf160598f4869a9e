"""Features of (claim, evidence) for the local judge.

The evidence is cut into sentences (the unit a quote is made of). The features say how close the
best sentences are to the claim in meaning (MiniLM embeddings) and in words, and whether the cues
that turn a matching sentence into a contradiction are there: a negation on one side only, an
opposite direction word, a number the evidence does not have, and whether the evidence is closer
to the claim's opposite ("flip gain"). The same code builds training rows and serves inference, so
the two cannot drift apart.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from typing import Final

import msgspec
import numpy as np

from citeproof.contracts.judging import Passage
from citeproof.judge import cues
from citeproof.text.sentences import split_sentences

# Sentences shorter than this many characters (headings, "Abstract", page furniture) are skipped.
MIN_SENTENCE_CHARS: Final = 20

Embed = Callable[[list[str]], np.ndarray]

FEATURE_NAMES: Final = (
    "sim_max",
    "sim_joined",
    "flip_gain",
    "has_flip",
    "lex_recall_best",
    "lex_recall_all",
    "lex_precision_best",
    "bigram_recall_all",
    "claim_has_number",
    "number_recall",
    "number_conflict",
    "negation_claim",
    "negation_best",
    "negation_mismatch",
    "hedge_claim",
    "hedge_best",
    "direction_conflict_best",
    "direction_conflict_all",
    "direction_agree",
    "direction_agree_local",
    "direction_conflict_local",
    "log_sentences",
    "log_claim_words",
    "sim_x_negation_mismatch",
    "sim_x_direction_conflict",
    "sim_x_direction_conflict_local",
    "sim_x_number_conflict",
    "sim_x_flip_gain",
    "sim_x_lex_missing",
)


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


def _bigrams(words: list[str]) -> set[tuple[str, str]]:
    return set(itertools.pairwise(words))


def _direction_conflicts(claim_dirs: set[tuple[int, int]], evidence_tokens: list[str]) -> int:
    evidence_dirs = cues.directions(evidence_tokens)
    return sum(
        1
        for pair, side in claim_dirs
        if (pair, 1 - side) in evidence_dirs and (pair, side) not in evidence_dirs
    )


class FeatureRow(msgspec.Struct, frozen=True):
    values: list[float]
    best_sentence: int
    similarities: list[float]


def texts_to_embed(claim: str, sentences: Sequence[str]) -> list[str]:
    """Every text ``compute_features`` embeds, in its order (lets training embed in bulk first)."""
    texts = [claim, " ".join(sentences), *sentences]
    flipped_claim = cues.flipped(claim)
    if flipped_claim is not None:
        texts.append(flipped_claim)
    return texts


def compute_features(claim: str, sentences: Sequence[str], embed: Embed) -> FeatureRow:
    """Feature vector (in FEATURE_NAMES order) of ``claim`` against evidence ``sentences``."""
    if not sentences:
        raise ValueError("at least one evidence sentence is needed")
    flipped_claim = cues.flipped(claim)
    joined = " ".join(sentences)
    vectors = embed(texts_to_embed(claim, sentences))
    claim_vec, joined_vec = vectors[0], vectors[1]
    sentence_vecs = vectors[2 : 2 + len(sentences)]
    sims = sentence_vecs @ claim_vec
    order = np.argsort(-sims)
    best = int(order[0])
    sim_max = float(sims[best])
    sim_joined = float(joined_vec @ claim_vec)
    if flipped_claim is not None:
        flip_gain = float(sentence_vecs[best] @ vectors[-1]) - sim_max
    else:
        flip_gain = 0.0

    claim_tokens = cues.tokens(claim)
    best_text = sentences[best]
    best_tokens = cues.tokens(best_text)
    all_tokens = cues.tokens(joined)
    claim_stems = cues.content_stems(claim)
    best_stems = cues.content_stems(best_text)
    all_stems = cues.content_stems(joined)
    lex_recall_best = len(claim_stems & best_stems) / max(len(claim_stems), 1)
    lex_recall_all = len(claim_stems & all_stems) / max(len(claim_stems), 1)
    lex_precision_best = len(claim_stems & best_stems) / max(len(best_stems), 1)
    claim_bigrams = _bigrams([cues.stem(t) for t in claim_tokens])
    all_bigrams = _bigrams([cues.stem(t) for t in all_tokens])
    bigram_recall_all = len(claim_bigrams & all_bigrams) / max(len(claim_bigrams), 1)

    claim_numbers = cues.numbers(claim)
    evidence_numbers = cues.numbers(joined)
    number_recall = (
        len(claim_numbers & evidence_numbers) / len(claim_numbers) if claim_numbers else 1.0
    )
    number_conflict = float(bool(claim_numbers - evidence_numbers) and bool(evidence_numbers))

    negation_claim = min(cues.count_in(cues.NEGATIONS, claim_tokens), 2)
    negation_best = min(cues.count_in(cues.NEGATIONS, best_tokens), 2)
    negation_mismatch = float((negation_claim > 0) != (negation_best > 0))
    hedge_claim = min(cues.count_in(cues.HEDGES, claim_tokens), 2)
    hedge_best = min(cues.count_in(cues.HEDGES, best_tokens), 2)

    claim_dirs = cues.directions(claim_tokens)
    direction_conflict_best = _direction_conflicts(claim_dirs, best_tokens)
    direction_conflict_all = _direction_conflicts(claim_dirs, all_tokens)
    direction_agree = len(claim_dirs & cues.directions(best_tokens))
    local_agree, local_conflict = cues.local_direction_votes(claim_tokens, all_tokens)

    values = [
        sim_max,
        sim_joined,
        flip_gain,
        float(flipped_claim is not None),
        lex_recall_best,
        lex_recall_all,
        lex_precision_best,
        bigram_recall_all,
        float(bool(claim_numbers)),
        number_recall,
        number_conflict,
        float(negation_claim),
        float(negation_best),
        negation_mismatch,
        float(hedge_claim),
        float(hedge_best),
        float(min(direction_conflict_best, 2)),
        float(min(direction_conflict_all, 2)),
        float(min(direction_agree, 2)),
        float(min(local_agree, 2)),
        float(min(local_conflict, 2)),
        math.log1p(len(sentences)),
        math.log1p(len(claim_tokens)),
        sim_max * negation_mismatch,
        sim_max * min(direction_conflict_best, 2),
        sim_max * min(local_conflict, 2),
        sim_max * number_conflict,
        sim_max * flip_gain,
        sim_max * (1.0 - lex_recall_best),
    ]
    return FeatureRow(values=values, best_sentence=best, similarities=[float(s) for s in sims])
