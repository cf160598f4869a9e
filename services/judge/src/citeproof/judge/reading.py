"""The reading judge: the cross-encoder reads the claim against individual source sentences, a
small calibrated model aggregates what it read, and the judge abstains when it cannot decide.

1. Candidates (the cheap prefilter): the evidence sentences, ranked by passage rank and by how many
   of the claim's content words they contain; the best ``MAX_CANDIDATES`` are read alone, and the
   two best together (evidence is often two sentences: a finding and its number).
2. The cross-encoder gives each candidate P(supported / unsupported / contradicted).
3. Aggregation (``AGGREGATE_FEATURES``): support comes from the best candidate; contradiction from a
   candidate that contradicts with confidence; whether the claim's quantities agree with the
   deciding sentence's (``quantities``: a mismatch counts only for the same quantity); the cues of
   a minimal edit (a negation on one side, opposite direction words about the same things); how
   much of the claim the sentences cover. A multinomial logistic regression over these,
   temperature-calibrated, both fitted on held-out training data.
4. Abstention: each label has its own confidence threshold (chosen on held-out training folds so a
   definite label is right often enough); below it the verdict is ``needs_review`` and the
   rationale names the two leading labels.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

import msgspec
import numpy as np

from citeproof.contracts.judging import Passage
from citeproof.judge import cues
from citeproof.judge.evidence import EvidenceSentence, evidence_sentences
from citeproof.text.quantities import compare_quantities

MODEL_FORMAT_VERSION: Final = 2
MAX_CANDIDATES: Final = 5
CE_SUPPORTED, CE_UNSUPPORTED, CE_CONTRADICTED = 0, 1, 2

AGGREGATE_FEATURES: Final = (
    "sup_max",
    "con_max",
    "uns_min",
    "sup_top",
    "con_top",
    "sup_minus_con_max",
    "lex_recall_best",
    "lex_recall_all",
    "quantity_agree",
    "quantity_conflict",
    "negation_mismatch",
    "direction_agree_local",
    "direction_conflict_local",
    "vector_max",
    "has_vector",
    "log_candidates",
)


class Candidate(msgspec.Struct, frozen=True):
    """One text the cross-encoder reads: a sentence, or two read together."""

    text: str
    members: tuple[int, ...]  # indices into the evidence sentences


class Reading(msgspec.Struct, frozen=True):
    """What the cross-encoder read, and the features the aggregator sees."""

    sentences: list[EvidenceSentence]
    candidates: list[Candidate]
    probabilities: list[list[float]]  # per candidate, cross-encoder LABELS order
    features: list[float]
    # Words of the claim the cross-encoder read, of how many (fewer for a claim too long for
    # its window: it reads the start).
    claim_words_read: int = 0
    claim_words: int = 0

    @property
    def claim_shortened(self) -> bool:
        return self.claim_words_read < self.claim_words


def _relevance(claim_stems: set[str], text: str) -> float:
    return len(claim_stems & cues.content_stems(text)) / max(len(claim_stems), 1)


def candidates(claim: str, sentences: Sequence[EvidenceSentence]) -> list[Candidate]:
    """The prefilter: which sentences (and which pair) the expensive model reads."""
    claim_stems = cues.content_stems(claim)
    ranks = sorted({s.passage_rank for s in sentences})
    scored = sorted(
        range(len(sentences)),
        # Lexical coverage first; the retriever's order breaks ties and favours its best passage.
        key=lambda i: (
            -round(_relevance(claim_stems, sentences[i].text), 1),
            ranks.index(sentences[i].passage_rank),
            i,
        ),
    )
    chosen = scored[:MAX_CANDIDATES]
    result = [Candidate(sentences[i].text, (i,)) for i in chosen]
    if len(chosen) >= 2:
        first, second = sorted(chosen[:2])
        result.append(
            Candidate(f"{sentences[first].text} {sentences[second].text}", (first, second))
        )
    return result


def _quantity_votes(claim: str, text: str) -> tuple[float, float]:
    """(agree, conflict) between the claim's quantities and one text's, same quantity only."""
    comparison = compare_quantities(claim, text)
    return float(bool(comparison.agree)), float(bool(comparison.conflict))


def aggregate_features(
    claim: str,
    sentences: Sequence[EvidenceSentence],
    chosen: Sequence[Candidate],
    probs: np.ndarray,
    vector_scores: Sequence[float] = (),
) -> list[float]:
    """``vector_scores``: the retriever's claim/passage embedding similarities, when it gave
    them (a topical neighbour of the right source reads "on topic" to the cross-encoder; how
    close it is in meaning tells a mis-citation apart)."""
    claim_stems = cues.content_stems(claim)
    top = int(np.argmax(1.0 - probs[:, CE_UNSUPPORTED]))
    best_lex = max(_relevance(claim_stems, c.text) for c in chosen)
    all_lex = _relevance(claim_stems, " ".join(s.text for s in sentences))
    agree, conflict = _quantity_votes(claim, chosen[top].text)
    # The cues of a minimal edit, between the claim and the sentence the model found most on
    # topic: a negation on one side only, opposite direction words about the same things.
    claim_tokens = cues.tokens(claim)
    top_tokens = cues.tokens(chosen[top].text)
    negation_mismatch = (cues.count_in(cues.NEGATIONS, claim_tokens) > 0) != (
        cues.count_in(cues.NEGATIONS, top_tokens) > 0
    )
    direction_agree, direction_conflict = cues.local_direction_votes(claim_tokens, top_tokens)
    return [
        float(probs[:, CE_SUPPORTED].max()),
        float(probs[:, CE_CONTRADICTED].max()),
        float(probs[:, CE_UNSUPPORTED].min()),
        float(probs[top, CE_SUPPORTED]),
        float(probs[top, CE_CONTRADICTED]),
        float((probs[:, CE_SUPPORTED] - probs[:, CE_CONTRADICTED]).max()),
        best_lex,
        all_lex,
        agree,
        conflict,
        float(negation_mismatch),
        float(min(direction_agree, 2)),
        float(min(direction_conflict, 2)),
        max(vector_scores, default=0.0),
        float(bool(vector_scores)),
        math.log1p(len(chosen)),
    ]


def read(cross_encoder: Any, claim: str, passages: Sequence[Passage]) -> Reading | None:
    """Read the claim against the passages' sentences; None when there is no evidence text."""
    sentences = evidence_sentences(passages)
    if not sentences:
        return None
    chosen = candidates(claim, sentences)
    probs = cross_encoder.probabilities(claim, [c.text for c in chosen])
    claim_read = cross_encoder.claim_to_read(claim)
    return Reading(
        sentences=sentences,
        candidates=chosen,
        probabilities=probs.round(6).tolist(),
        claim_words_read=claim_read.words_read,
        claim_words=claim_read.words,
        features=aggregate_features(
            claim,
            sentences,
            chosen,
            probs,
            [p.vector_score for p in passages if p.vector_score is not None],
        ),
    )


def deciding_sentence(reading: Reading, label_index: int) -> EvidenceSentence:
    """The verbatim sentence behind a label: the candidate scoring highest for it; of a pair,
    the member that scores higher alone (a quote is one sentence of one passage)."""
    probs = np.asarray(reading.probabilities)
    best = reading.candidates[int(np.argmax(probs[:, label_index]))]
    if len(best.members) == 1:
        return reading.sentences[best.members[0]]
    singles = {c.members[0]: i for i, c in enumerate(reading.candidates) if len(c.members) == 1}
    member = max(best.members, key=lambda m: probs[singles[m], label_index])
    return reading.sentences[member]


class ReadingJudgeModel(msgspec.Struct, frozen=True, kw_only=True):
    """The aggregator over what the cross-encoder read, its calibration and abstention."""

    format_version: int
    labels: list[str]  # verdict labels, row order of ``weights``
    feature_names: list[str]
    mean: list[float]
    scale: list[float]
    weights: list[list[float]]
    bias: list[float]
    temperature: float
    # Per label: below this calibrated probability the label is not given (needs_review instead).
    thresholds: dict[str, float]
    cross_encoder_sha256: str
    training: dict[str, Any]

    def probabilities(self, features: Sequence[Sequence[float]]) -> np.ndarray:
        x = np.atleast_2d(np.asarray(features, dtype=np.float64))
        logits = ((x - np.asarray(self.mean)) / np.asarray(self.scale)) @ np.asarray(
            self.weights
        ).T + np.asarray(self.bias)
        scaled = logits / self.temperature
        scaled -= scaled.max(axis=1, keepdims=True)
        exp = np.exp(scaled)
        return exp / exp.sum(axis=1, keepdims=True)


class ReadingModelError(ValueError):
    """The aggregator file is missing, malformed or made for other features."""


def load_reading_model(path: Path) -> ReadingJudgeModel:
    try:
        model = msgspec.json.decode(path.read_bytes(), type=ReadingJudgeModel)
    except FileNotFoundError as exc:
        raise ReadingModelError(
            f"reading judge model not found at {path}; train it with `make train-judge`"
        ) from exc
    except msgspec.DecodeError as exc:
        raise ReadingModelError(f"reading judge model {path} is malformed: {exc}") from exc
    if model.format_version != MODEL_FORMAT_VERSION:
        raise ReadingModelError(
            f"{path} has format {model.format_version}, this code reads {MODEL_FORMAT_VERSION}"
        )
    if tuple(model.feature_names) != AGGREGATE_FEATURES:
        raise ReadingModelError(f"{path} was fitted on other features; retrain it")
    return model


def save_reading_model(model: ReadingJudgeModel, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(msgspec.json.format(msgspec.json.encode(model), indent=1) + b"\n")
