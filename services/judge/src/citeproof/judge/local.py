"""The ``local`` backend: the reading judge, offline (see ``reading.py`` for how it decides).

A cross-encoder fine-tuned in this repository reads the claim against the evidence sentences, a
calibrated aggregator turns what it read into label probabilities, and the verdict is the most
probable label with its probability. Only when no label is more likely than not (the model file's
``undecided_below``) is it ``needs_review``: the judge read the evidence and cannot tell, which is
not the same as ``unsupported`` (a statement about the source). Every verdict carries the
probability that the citation is not supported as written and its risk band. "Not accurate as
written" (an overstatement, a wrong detail, the opposite) is answered ``contradicted``; it never
answers ``partially_supported``.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Final

import msgspec
import numpy as np

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
from citeproof.judge.bands import band_of
from citeproof.judge.cross_encoder import CrossEncoder
from citeproof.judge.cross_encoder import sentence_reader as make_sentence_reader
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
# Versions the reading code (windows, features); part of the verdict-cache key like an LLM
# prompt version.
FEATURES_VERSION: Final = "reading-2"
# Confidence of "unsupported" when there is no evidence text at all to judge.
NO_EVIDENCE_CONFIDENCE: Final = 0.9


class Readers(msgspec.Struct, frozen=True):
    """The two cross-encoders the judge reads with (``reading.read``)."""

    windows: CrossEncoder  # the reader of whole windows (Citation-Integrity and NLI heads)
    sentences: CrossEncoder  # the reader of single sentences (Check-COVID NLI)


class Decision(msgspec.Struct, frozen=True):
    """What the judge concluded, before it becomes a verdict."""

    label: str
    confidence: float
    probabilities: dict[str, float]
    reading: Reading | None
    # P(the citation is not supported as written) and its risk band.
    problem_probability: float
    band: str
    # The most probable label, also when the judge is undecided (``label`` is then
    # needs_review): the label ``confidence`` is the calibrated probability of.
    leading: str

    @property
    def abstained(self) -> bool:
        return self.label == NEEDS_REVIEW


def decide(
    model: ReadingJudgeModel,
    readers: Readers,
    request: JudgeRequest,
    passages: Sequence[Passage],
    undecided_below: float,
) -> Decision:
    reading = read(
        readers.windows,
        readers.sentences,
        request.claim,
        passages,
        marker_works=request.marker_works,
        other_markers=request.other_markers,
    )
    if reading is None:
        problem = 1.0 - (1.0 - NO_EVIDENCE_CONFIDENCE) / 3
        return Decision(
            UNSUPPORTED, NO_EVIDENCE_CONFIDENCE, {}, None, problem,
            band_of(problem, model.bands), UNSUPPORTED,
        )  # fmt: skip
    probs = model.probabilities([reading.features])[0]
    by_label = {label: float(p) for label, p in zip(model.labels, probs, strict=True)}
    shares = model.decision_shares(probs)[0]
    decided = model.labels[int(np.argmax(shares))]
    problem = 1.0 - by_label[SUPPORTED]
    band = band_of(problem, model.bands)
    # Undecided only when no label leads on the decision's scale; never a label withheld. The
    # confidence is the decided label's calibrated probability.
    label = NEEDS_REVIEW if float(shares.max()) < undecided_below else decided
    return Decision(label, by_label[decided], by_label, reading, problem, band, decided)


def model_digest(model_path: Path, model: ReadingJudgeModel) -> str:
    """SHA-256 over both readers' graphs (as the model file records them) and the aggregator
    file itself."""
    digest = hashlib.sha256()
    digest.update(model.cross_encoder_sha256.encode())
    digest.update(model.sentence_reader_sha256.encode())
    digest.update(model_path.read_bytes())
    return digest.hexdigest()


def _leading(probabilities: dict[str, float]) -> str:
    first, second = sorted(probabilities, key=probabilities.__getitem__, reverse=True)[:2]
    return (
        f"{LABEL_NAMES[first].lower()} ({probabilities[first]:.0%}) over "
        f"{LABEL_NAMES[second].lower()} ({probabilities[second]:.0%})"
    )


def rationale(decision: Decision, quote: str | None = None) -> str:
    """One or two sentences saying why, and one more when the judge read a shortened claim."""
    reading = decision.reading
    said = _why(decision, quote)
    if reading is not None and reading.claim_shortened:
        said += (
            f" The claim is longer than the judge reads at once: it read its first "
            f"{reading.claim_words_read} of {reading.claim_words} words."
        )
    return said


def _why(decision: Decision, quote: str | None) -> str:
    if decision.reading is None:
        return (
            "No evidence text was retrieved from the cited source, so nothing supports the claim."
        )
    chance = f"{decision.problem_probability:.0%} likely not supported as written"
    pointer = (
        "the quoted sentence is the closest the source comes to the claim"
        if quote
        else "no single source sentence could be quoted"
    )
    if decision.label == NEEDS_REVIEW:
        return (
            f"The offline judge could not decide: it leans {_leading(decision.probabilities)} "
            f"({chance}); {pointer}. Check this citation against the source."
        )
    if decision.label == SUPPORTED:
        return f"The source backs the claim as written ({chance}); {pointer}."
    if decision.label == CONTRADICTED:
        return (
            "The source does not back the claim as written: it says something different, "
            f"less, or not this ({chance}); {pointer}."
        )
    return (
        "The source does not bear on the claim: none of its sentences addresses what the claim "
        f"says ({chance}); {pointer}."
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
        sentence_reader: CrossEncoder | None = None,
    ) -> None:
        self._model = load_reading_model(model_path)
        self._cross_encoder = cross_encoder or CrossEncoder(threads=threads)
        self._readers = Readers(
            self._cross_encoder, sentence_reader or make_sentence_reader(threads=threads)
        )
        # The model's own limit unless an operator sets another (0 = never undecided).
        self._undecided_below = (
            self._model.undecided_below if abstain_below is None else abstain_below
        )
        self._max_passages = max_passages
        self._max_passage_chars = max_passage_chars
        # Names what produced the verdict, down to the shipped weights and the aggregator that
        # decides over them (a retrained or recalibrated model is another model for the
        # verdict cache).
        self.model = f"minilm-two-readers@{model_digest(model_path, self._model)[:10]}"

    def _passages(self, request: JudgeRequest) -> list[Passage]:
        return prepare_passages(request.passages, self._max_passages, self._max_passage_chars)

    def decide(self, request: JudgeRequest) -> Decision:
        """The judge's decision with all label probabilities (for inspection and tests)."""
        return decide(
            self._model,
            self._readers,
            request,
            self._passages(request),
            self._undecided_below,
        )

    def judge_sync(self, request: JudgeRequest) -> Verdict:
        return self.judge_with_decision(request)[0]

    def judge_with_decision(self, request: JudgeRequest) -> tuple[Verdict, Decision]:
        """The verdict and the decision behind it (benchmarks read the leading label)."""
        started = time.perf_counter()
        passages = self._passages(request)
        decision = decide(self._model, self._readers, request, passages, self._undecided_below)
        quote = None
        quote_rank = None
        if decision.reading is not None:
            # Every verdict points at the sentence it rests on (needs_review too, for the
            # reviewer; for `unsupported` it is the closest the source comes).
            sentence = deciding_sentence(decision.reading, request.claim)
            quote, quote_rank = sentence.text, sentence.passage_rank
        verdict = Verdict(
            label=decision.label,
            confidence=round(decision.confidence, 4),
            rationale=rationale(decision, quote),
            quote=quote,
            quote_page=None,
            backend=self.name,
            model=self.model,
            prompt_version=self.prompt_version,
            latency_ms=0.0,
            prompt_tokens=0,
            completion_tokens=0,
            problem_probability=round(decision.problem_probability, 4),
            band=decision.band,
        )
        verdict = verify_quote(verdict, passages, quote_rank)
        elapsed = time.perf_counter() - started
        metrics.REQUESTS.labels(self.name, "ok").inc()
        metrics.REQUEST_SECONDS.labels(self.name).observe(elapsed)
        return msgspec.structs.replace(verdict, latency_ms=round(elapsed * 1000, 2)), decision

    async def judge(self, request: JudgeRequest) -> Verdict:
        return await asyncio.to_thread(self.judge_sync, request)

    async def aclose(self) -> None:
        return None
