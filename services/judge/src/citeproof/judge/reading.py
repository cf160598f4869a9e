"""The reading judge: the cross-encoder reads the claim against the source's sentences as a whole,
a small calibrated model turns what it read into label probabilities, and the judge says
``needs_review`` only when no label is more likely than not.

1. Windows (``windows``): the evidence sentences the cross-encoder reads with the claim, as one
   text of up to its window (``cross_encoder.MAX_TOKENS``). A cited document that fits is read
   whole, in its order — the way the reader was trained on Citation-Integrity (a citing sentence
   against every sentence of its cited paper). A longer source (the retriever's passages) is read
   as the sentences that share most of the claim's words (the retriever's order breaks ties),
   best first into the first window, the next into a second (``MAX_WINDOWS``), each in source
   order.
2. The cross-encoder has two heads (``cross_encoder.HEADS``): Citation-Integrity's (accurate /
   irrelevant / not accurate as written) and NLI's (supported / not settled / contradicted).
3. Aggregation (``AGGREGATE_FEATURES``): both heads on the window most on topic, the best
   Citation-Integrity support of any window, how much of the claim the evidence holds (word
   overlap), whether the claim's quantities agree or conflict with the window's (same quantity
   only), a negation or an opposite direction between them, a hedged claim, and what the parser
   knows about the marker (several works: only part of the sentence is this source's; other
   markers in the sentence). A multinomial logistic regression over these, temperature-calibrated,
   both fitted out of fold on citing papers the reader never saw.
4. The verdict is the most probable label; ``needs_review`` when even that one is below
   ``undecided_below`` (0.5: no label more likely than not). The probability that the citation is
   not supported as written (1 - P(supported)) puts it in a risk band by the model's limits.
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
from citeproof.judge.bands import BandLimits
from citeproof.judge.evidence import EvidenceSentence, evidence_sentences
from citeproof.text.quantities import compare_quantities

MODEL_FORMAT_VERSION: Final = 4
# Windows read per citation: a document that fits is one; a long source's best sentences two.
MAX_WINDOWS: Final = 2
# Texts the second reader (``cross_encoder.sentence_reader``) reads per citation: the sentences
# sharing most of the claim's words, each alone, and the best two together (evidence is often two
# sentences: a finding and its number). Its training situation: a claim against one or two
# sentences.
MAX_SENTENCES_READ: Final = 5
# Cross-encoder outputs: per head (Citation-Integrity, NLI) supported, unsupported, contradicted.
CE_SUPPORTED, CE_UNSUPPORTED, CE_CONTRADICTED = 0, 1, 2
CITINT_HEAD, NLI_HEAD = 0, 1
# Probabilities are read as logs, floored here (a logistic regression over log-probabilities
# combines heads the way evidence combines).
LOG_FLOOR: Final = 1e-4

AGGREGATE_FEATURES: Final = (
    "cit_log_sup",
    "cit_log_uns",
    "cit_log_con",
    "cit_sup_max",
    "nli_log_sup",
    "nli_log_uns",
    "nli_log_con",
    "lex_recall_best",
    "lex_recall_all",
    "quantity_agree",
    "quantity_conflict",
    "negation_mismatch",
    "direction_conflict_local",
    "hedged_claim",
    "several_works",
    "other_markers",
    "log_claim_words",
    "claim_shortened",
    "windows_read",
    "vector_max",
    "has_vector",
    # The second reader (one head: supported / not settled / contradicted) over its sentences.
    "sent_sup_max",
    "sent_con_max",
    "sent_uns_min",
    "sent_sup_top",
    "sent_con_top",
    "sent_sup_minus_con_max",
)


class Window(msgspec.Struct, frozen=True):
    """One text the cross-encoder reads with the claim: some evidence sentences, in order."""

    text: str
    members: tuple[int, ...]  # indices into the evidence sentences


class Reading(msgspec.Struct, frozen=True):
    """What the cross-encoder read, and the features the aggregator sees."""

    sentences: list[EvidenceSentence]
    windows: list[Window]
    # Per window: both heads' probabilities (``cross_encoder.OUTPUTS`` order).
    probabilities: list[list[float]]
    features: list[float]
    # What the second reader read (``sentence_texts``) and its probabilities per text.
    sentence_texts: list[Window] = []
    sentence_probabilities: list[list[float]] = []
    # The window the judge found most on topic (its verdict rests on it).
    best: int = 0
    # Words of the claim the cross-encoder read, of how many (fewer for a claim too long for
    # its window: it reads the start).
    claim_words_read: int = 0
    claim_words: int = 0

    @property
    def claim_shortened(self) -> bool:
        return self.claim_words_read < self.claim_words


def relevance(claim_stems: set[str], text: str) -> float:
    """Share of the claim's content words (crude stems) that ``text`` holds."""
    return len(claim_stems & cues.content_stems(text)) / max(len(claim_stems), 1)


def windows(
    claim: str, sentences: Sequence[EvidenceSentence], budget: int, count_tokens: Any
) -> list[Window]:
    """The texts to read (see the module docstring): the whole evidence when its sentences fit
    ``budget`` word pieces, else the best sentences by claim-word overlap in up to
    ``MAX_WINDOWS`` windows, each in source order. ``count_tokens(text)``: word pieces of a
    text. A sentence longer than the budget goes alone into a window (the reader cuts it)."""
    lengths = [count_tokens(s.text) for s in sentences]
    if sum(lengths) <= budget:
        return [_window(sentences, range(len(sentences)))]
    claim_stems = cues.content_stems(claim)
    ranks = sorted({s.passage_rank for s in sentences})
    ranked = sorted(
        range(len(sentences)),
        # Word overlap first; the retriever's order breaks ties and favours its best passage.
        key=lambda i: (
            -round(relevance(claim_stems, sentences[i].text), 1),
            ranks.index(sentences[i].passage_rank),
            i,
        ),
    )
    result: list[Window] = []
    remaining = ranked
    while remaining and len(result) < MAX_WINDOWS:
        chosen: list[int] = []
        used = 0
        skipped: list[int] = []
        for index in remaining:
            if not chosen or used + lengths[index] <= budget:
                chosen.append(index)
                used += lengths[index]
            else:
                skipped.append(index)
        result.append(_window(sentences, sorted(chosen)))
        remaining = skipped
    return result


def sentence_texts(claim: str, sentences: Sequence[EvidenceSentence]) -> list[Window]:
    """What the second reader reads: the ``MAX_SENTENCES_READ`` sentences sharing most of the
    claim's words (the retriever's order breaks ties), each alone, then the best two together
    in source order."""
    claim_stems = cues.content_stems(claim)
    ranks = sorted({s.passage_rank for s in sentences})
    ranked = sorted(
        range(len(sentences)),
        key=lambda i: (
            -round(relevance(claim_stems, sentences[i].text), 1),
            ranks.index(sentences[i].passage_rank),
            i,
        ),
    )[:MAX_SENTENCES_READ]
    result = [_window(sentences, (i,)) for i in ranked]
    if len(ranked) >= 2:
        result.append(_window(sentences, sorted(ranked[:2])))
    return result


def sentence_features(probs: np.ndarray) -> list[float]:
    """The second reader's features over its texts (``probs``: one row of supported /
    unsupported / contradicted per text): best support, strongest contradiction, least
    irrelevance, support and contradiction of the text most on topic, and the widest margin of
    support over contradiction."""
    top = int(np.argmin(probs[:, CE_UNSUPPORTED]))
    return [
        float(probs[:, CE_SUPPORTED].max()),
        float(probs[:, CE_CONTRADICTED].max()),
        float(probs[:, CE_UNSUPPORTED].min()),
        float(probs[top, CE_SUPPORTED]),
        float(probs[top, CE_CONTRADICTED]),
        float((probs[:, CE_SUPPORTED] - probs[:, CE_CONTRADICTED]).max()),
    ]


def _window(sentences: Sequence[EvidenceSentence], members: Sequence[int]) -> Window:
    return Window(" ".join(sentences[i].text for i in members), tuple(members))


def _log(p: float) -> float:
    return math.log(max(p, LOG_FLOOR))


def aggregate_features(
    claim: str,
    sentences: Sequence[EvidenceSentence],
    chosen: Sequence[Window],
    probs: np.ndarray,
    *,
    best: int,
    claim_shortened: bool,
    marker_works: int = 1,
    other_markers: int = 0,
    vector_scores: Sequence[float] = (),
    sentence_probs: np.ndarray,
) -> list[float]:
    """``probs``: per window, both heads' probabilities. ``vector_scores``: the retriever's
    claim/passage embedding similarities, when it gave them. ``sentence_probs``: the second
    reader's probabilities per text it read."""
    claim_stems = cues.content_stems(claim)
    cit = probs[best, :3]
    nli = probs[best, 3:6]
    text = chosen[best].text
    comparison = compare_quantities(claim, text)
    claim_tokens = cues.tokens(claim)
    window_tokens = cues.tokens(text)
    negation_mismatch = (cues.count_in(cues.NEGATIONS, claim_tokens) > 0) != (
        cues.count_in(cues.NEGATIONS, window_tokens) > 0
    )
    _, direction_conflict = cues.local_direction_votes(claim_tokens, window_tokens)
    return [
        _log(float(cit[CE_SUPPORTED])),
        _log(float(cit[CE_UNSUPPORTED])),
        _log(float(cit[CE_CONTRADICTED])),
        float(probs[:, CE_SUPPORTED].max()),
        _log(float(nli[CE_SUPPORTED])),
        _log(float(nli[CE_UNSUPPORTED])),
        _log(float(nli[CE_CONTRADICTED])),
        relevance(claim_stems, text),
        relevance(claim_stems, " ".join(s.text for s in sentences)),
        float(bool(comparison.agree)),
        float(bool(comparison.conflict)),
        float(negation_mismatch),
        float(min(direction_conflict, 2)),
        float(cues.count_in(cues.HEDGES, claim_tokens) > 0),
        float(marker_works > 1),
        float(min(other_markers, 3)),
        math.log1p(len(claim.split())),
        float(claim_shortened),
        float(len(chosen)),
        max(vector_scores, default=0.0),
        float(bool(vector_scores)),
        *sentence_features(sentence_probs),
    ]


def read(
    cross_encoder: Any,
    sentence_reader: Any,
    claim: str,
    passages: Sequence[Passage],
    *,
    marker_works: int = 1,
    other_markers: int = 0,
) -> Reading | None:
    """Read the claim against the passages' sentences with both readers (``cross_encoder``:
    windows; ``sentence_reader``: single sentences); None when there is no evidence text."""
    sentences = evidence_sentences(passages)
    if not sentences:
        return None
    claim_read = cross_encoder.claim_to_read(claim)
    chosen = windows(
        claim,
        sentences,
        cross_encoder.evidence_budget(claim_read.text),
        cross_encoder.count_tokens,
    )
    probs = cross_encoder.probabilities(claim, [w.text for w in chosen])
    # The window most on topic: the one Citation-Integrity's head finds least irrelevant.
    best = int(np.argmin(probs[:, CE_UNSUPPORTED]))
    singles = sentence_texts(claim, sentences)
    sentence_probs = sentence_reader.probabilities(claim, [t.text for t in singles])
    return Reading(
        sentences=sentences,
        windows=chosen,
        probabilities=probs.round(6).tolist(),
        sentence_texts=singles,
        sentence_probabilities=sentence_probs.round(6).tolist(),
        best=best,
        claim_words_read=claim_read.words_read,
        claim_words=claim_read.words,
        features=aggregate_features(
            claim,
            sentences,
            chosen,
            probs,
            best=best,
            claim_shortened=claim_read.shortened,
            marker_works=marker_works,
            other_markers=other_markers,
            vector_scores=[p.vector_score for p in passages if p.vector_score is not None],
            sentence_probs=sentence_probs,
        ),
    )


def deciding_sentence(reading: Reading, claim: str) -> EvidenceSentence:
    """The verbatim sentence the verdict points at: of the window the verdict rests on, the
    sentence holding most of the claim's words (the earlier one on a tie). A quote is one
    sentence of one passage."""
    claim_stems = cues.content_stems(claim)
    members = reading.windows[reading.best].members
    best = max(members, key=lambda i: (relevance(claim_stems, reading.sentences[i].text), -i))
    return reading.sentences[best]


class ReadingJudgeModel(msgspec.Struct, frozen=True, kw_only=True):
    """The aggregator over what the cross-encoder read, its calibration, abstention and bands."""

    format_version: int
    labels: list[str]  # verdict labels, row order of ``weights``
    feature_names: list[str]
    mean: list[float]
    scale: list[float]
    weights: list[list[float]]
    bias: list[float]
    temperature: float
    # The label is the one with the largest weighted probability (one weight per label, row
    # order of ``weights``): a decision as if the labels were this much more or less common
    # than in the calibration data, chosen on training folds for macro-F1 (a missed problem
    # costs more than a false alarm where most citations are accurate). The probabilities stay
    # the calibrated ones.
    decision_weights: list[float]
    # Undecided (needs_review) when the decided label's share of the weighted probabilities is
    # below this: no label more likely than not, on the decision's scale; one value for every
    # label, never a label withheld.
    undecided_below: float
    # Risk band limits, chosen on training folds (docs/judge.md).
    bands: BandLimits
    cross_encoder_sha256: str
    # The second reader's graph (``cross_encoder.SENTENCE_READER_PATH``) it was fitted on.
    sentence_reader_sha256: str
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

    def decision_shares(self, probabilities: np.ndarray) -> np.ndarray:
        """The calibrated probabilities weighted by ``decision_weights``, each row summing to 1:
        the decided label is the largest, and its share says how decided it is."""
        weighted = np.atleast_2d(probabilities) * np.asarray(self.decision_weights)
        return weighted / weighted.sum(axis=1, keepdims=True)


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
    if len(model.decision_weights) != len(model.labels) or min(model.decision_weights) <= 0:
        raise ReadingModelError(f"{path}: one positive decision weight per label is needed")
    if not 0.0 <= model.bands.fine_below <= model.bands.problem_at <= 1.0:
        raise ReadingModelError(f"{path}: band limits out of order: {model.bands}")
    return model


def save_reading_model(model: ReadingJudgeModel, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(msgspec.json.format(msgspec.json.encode(model), indent=1) + b"\n")
