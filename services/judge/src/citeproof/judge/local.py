"""The ``local`` backend: the reading judge, offline (see ``reading.py`` for how it decides).

A cross-encoder fine-tuned in this repository reads the claim against the evidence sentences, a
calibrated aggregator turns what it read into label probabilities, and each label has its own
confidence threshold. When no label clears its threshold the verdict is ``needs_review``: the judge
read the evidence and cannot tell, which is not the same as ``unsupported`` (a statement about the
source). It never answers ``partially_supported``: nothing in its training data teaches that label.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Final

import msgspec

from citeproof.contracts.judging import (
    CONTRADICTED,
    NEEDS_REVIEW,
    SUPPORTED,
    UNSUPPORTED,
    JudgeRequest,
    Passage,
    Verdict,
)
from citeproof.judge import metrics
from citeproof.judge.cross_encoder import LABELS as CE_LABELS
from citeproof.judge.cross_encoder import CrossEncoder
from citeproof.judge.passages import prepare_passages
from citeproof.judge.quotes import verify_quote
from citeproof.judge.reading import (
    Reading,
    ReadingJudgeModel,
    deciding_sentence,
    load_reading_model,
    read,
)
from citeproof.pipeline import LABEL_NAMES

BACKEND_NAME: Final = "local"
# Versions the reading code (candidates, features); part of the verdict-cache key like an LLM
# prompt version.
FEATURES_VERSION: Final = "reading-1"
# Confidence of "unsupported" when there is no evidence text at all to judge.
NO_EVIDENCE_CONFIDENCE: Final = 0.9


class Decision(msgspec.Struct, frozen=True):
    """What the judge concluded, before it becomes a verdict."""

    label: str
    confidence: float
    probabilities: dict[str, float]
    reading: Reading | None

    @property
    def abstained(self) -> bool:
        return self.label == NEEDS_REVIEW


def decide(
    model: ReadingJudgeModel,
    cross_encoder: CrossEncoder,
    claim: str,
    passages: Sequence[Passage],
    thresholds: dict[str, float],
) -> Decision:
    reading = read(cross_encoder, claim, passages)
    if reading is None:
        return Decision(UNSUPPORTED, NO_EVIDENCE_CONFIDENCE, {}, None)
    probs = model.probabilities([reading.features])[0]
    by_label = {label: float(p) for label, p in zip(model.labels, probs, strict=True)}
    top = max(by_label, key=by_label.__getitem__)
    if by_label[top] < thresholds[top]:
        return Decision(NEEDS_REVIEW, by_label[top], by_label, reading)
    return Decision(top, by_label[top], by_label, reading)


def _leading(probabilities: dict[str, float]) -> str:
    first, second = sorted(probabilities, key=probabilities.__getitem__, reverse=True)[:2]
    return (
        f"{LABEL_NAMES[first].lower()} ({probabilities[first]:.0%}) over "
        f"{LABEL_NAMES[second].lower()} ({probabilities[second]:.0%})"
    )


def rationale(decision: Decision) -> str:
    """One or two sentences saying why, and a third when the judge read a shortened claim."""
    reading = decision.reading
    said = _why(decision)
    if reading is not None and reading.claim_shortened:
        said += (
            f" The claim is longer than the judge reads at once: it read its first "
            f"{reading.claim_words_read} of {reading.claim_words} words."
        )
    return said


def _why(decision: Decision) -> str:
    if decision.reading is None:
        return (
            "No evidence text was retrieved from the cited source, so nothing supports the claim."
        )
    if decision.label == NEEDS_REVIEW:
        return (
            f"The offline judge read the evidence but could not decide: it leans "
            f"{_leading(decision.probabilities)}, below the confidence it needs for a verdict. "
            "Check this citation by hand."
        )
    if decision.label == SUPPORTED:
        return "The quoted source sentence states what the claim says."
    if decision.label == CONTRADICTED:
        return (
            "The quoted source sentence addresses the claim but says something incompatible with "
            "it (a negation, an opposite direction or a different number)."
        )
    return (
        "None of the retrieved source sentences states the claim; the source does not appear "
        "to say this."
    )


class LocalBackend:
    """The offline judge. CPU-bound work runs in a thread so the event loop stays responsive."""

    name = BACKEND_NAME
    prompt_version = FEATURES_VERSION
    # It decides from the claim and the passages alone (the verdict cache key leaves the
    # context sentence out for it).
    reads_context = False

    def __init__(
        self,
        model_path: Path,
        *,
        abstain_below: float | None = None,
        max_passages: int,
        max_passage_chars: int,
        threads: int = 1,
        cross_encoder: CrossEncoder | None = None,
    ) -> None:
        self._model = load_reading_model(model_path)
        self._cross_encoder = cross_encoder or CrossEncoder(threads=threads)
        # One override for every label, for operators who want the judge more or less cautious.
        self._thresholds = (
            dict(self._model.thresholds)
            if abstain_below is None
            else dict.fromkeys(self._model.labels, abstain_below)
        )
        self._max_passages = max_passages
        self._max_passage_chars = max_passage_chars
        # Names what produced the verdict, down to the shipped weights (a retrained model is
        # another model for the verdict cache).
        self.model = f"minilm-cross-encoder@{self._model.cross_encoder_sha256[:10]}"

    def _passages(self, request: JudgeRequest) -> list[Passage]:
        return prepare_passages(request.passages, self._max_passages, self._max_passage_chars)

    def decide(self, request: JudgeRequest) -> Decision:
        """The judge's decision with all label probabilities (for inspection and tests)."""
        return decide(
            self._model,
            self._cross_encoder,
            request.claim,
            self._passages(request),
            self._thresholds,
        )

    def judge_sync(self, request: JudgeRequest) -> Verdict:
        started = time.perf_counter()
        passages = self._passages(request)
        decision = decide(
            self._model, self._cross_encoder, request.claim, passages, self._thresholds
        )
        quote = None
        quote_rank = None
        if decision.reading is not None and decision.label != UNSUPPORTED:
            # needs_review also shows the sentence its leading label rests on, for the reviewer.
            leading = max(
                (SUPPORTED, CONTRADICTED), key=lambda k: decision.probabilities.get(k, 0.0)
            )
            label = decision.label if decision.label != NEEDS_REVIEW else leading
            sentence = deciding_sentence(decision.reading, CE_LABELS.index(label))
            quote, quote_rank = sentence.text, sentence.passage_rank
        verdict = Verdict(
            label=decision.label,
            confidence=round(decision.confidence, 4),
            rationale=rationale(decision),
            quote=quote,
            quote_page=None,
            backend=self.name,
            model=self.model,
            prompt_version=self.prompt_version,
            latency_ms=0.0,
            prompt_tokens=0,
            completion_tokens=0,
        )
        verdict = verify_quote(verdict, passages, quote_rank)
        elapsed = time.perf_counter() - started
        metrics.REQUESTS.labels(self.name, "ok").inc()
        metrics.REQUEST_SECONDS.labels(self.name).observe(elapsed)
        return msgspec.structs.replace(verdict, latency_ms=round(elapsed * 1000, 2))

    async def judge(self, request: JudgeRequest) -> Verdict:
        return await asyncio.to_thread(self.judge_sync, request)

    async def aclose(self) -> None:
        return None
