"""The ``local`` backend: an offline, calibrated classifier over claim/evidence features.

It is not a language model. It scores hand-made features (see ``features.py``) with a logistic
regression trained on Check-COVID, and says so in every verdict's ``model`` field. Its confidence is
the calibrated probability of the label; when no label reaches the model's abstention threshold it
does not guess between "supported" and "contradicted": it answers ``unsupported`` and says in the
rationale that it could not decide, with that label's own (low) probability as confidence. It never
answers ``partially_supported``: nothing in its training data teaches that label.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Final

import msgspec

from citeproof.contracts.judging import (
    CONTRADICTED,
    SUPPORTED,
    UNSUPPORTED,
    JudgeRequest,
    Passage,
    Verdict,
)
from citeproof.judge import cues, metrics
from citeproof.judge.embedding import embed_texts
from citeproof.judge.features import (
    FEATURE_NAMES,
    Embed,
    EvidenceSentence,
    FeatureRow,
    compute_features,
    evidence_sentences,
)
from citeproof.judge.local_model import LocalJudgeModel, load_model
from citeproof.judge.passages import prepare_passages
from citeproof.judge.quotes import verify_quote

BACKEND_NAME: Final = "local"
# Versions the feature code; part of the verdict-cache key like an LLM prompt version.
FEATURES_VERSION: Final = "local-features-1"
# Confidence of "unsupported" when there is no evidence text at all to judge.
NO_EVIDENCE_CONFIDENCE: Final = 0.9


class Decision(msgspec.Struct, frozen=True):
    """What the classifier concluded, before it becomes a verdict."""

    label: str
    confidence: float
    probabilities: dict[str, float]
    abstained: bool
    best: EvidenceSentence | None
    features: list[float]


def featurise(claim: str, passages: Sequence[Passage], embed: Embed) -> tuple[FeatureRow, list]:
    sentences = evidence_sentences(passages)
    if not sentences:
        return FeatureRow(values=[], best_sentence=-1, similarities=[]), sentences
    return compute_features(claim, [s.text for s in sentences], embed), sentences


def decide(
    model: LocalJudgeModel,
    claim: str,
    passages: Sequence[Passage],
    embed: Embed,
    abstain_below: float,
) -> Decision:
    row, sentences = featurise(claim, passages, embed)
    if not sentences:
        return Decision(UNSUPPORTED, NO_EVIDENCE_CONFIDENCE, {}, False, None, [])
    probs = model.probabilities([row.values])[0]
    by_label = {label: float(p) for label, p in zip(model.labels, probs, strict=True)}
    top = max(by_label, key=by_label.__getitem__)
    abstained = by_label[top] < abstain_below
    label = UNSUPPORTED if abstained else top
    return Decision(
        label=label,
        confidence=by_label[label],
        probabilities=by_label,
        abstained=abstained,
        best=sentences[row.best_sentence],
        features=row.values,
    )


def _feature(decision: Decision, name: str) -> float:
    return decision.features[FEATURE_NAMES.index(name)] if decision.features else 0.0


def rationale(decision: Decision, claim: str) -> str:
    """One sentence saying why, from the features that drove the decision."""
    if decision.best is None:
        return (
            "No evidence text was retrieved from the cited source, so nothing supports the claim."
        )
    similarity = _feature(decision, "sim_max")
    if decision.abstained:
        shares = ", ".join(f"{k} {v:.0%}" for k, v in sorted(decision.probabilities.items()))
        return (
            "The offline judge could not decide between the labels "
            f"({shares}); treat this citation as unverified and check it by hand."
        )
    if decision.label == SUPPORTED:
        return (
            f"The closest source sentence (similarity {similarity:.2f}) states the claim's content "
            "without a conflicting negation, direction or number."
        )
    if decision.label == CONTRADICTED:
        reasons = []
        if _feature(decision, "negation_mismatch"):
            reasons.append("a negation on one side only")
        if _feature(decision, "direction_conflict_all"):
            reasons.append("an opposite direction or quality word")
        if _feature(decision, "number_conflict"):
            claim_numbers = ", ".join(sorted(cues.numbers(claim)))
            reasons.append(f"numbers the source does not state ({claim_numbers})")
        if _feature(decision, "flip_gain") > 0:
            reasons.append("wording closer to the claim's opposite")
        why = (
            "; ".join(reasons) if reasons else "wording that differs in a way typical of refutation"
        )
        return (
            f"The closest source sentence (similarity {similarity:.2f}) addresses the claim but "
            f"disagrees with it: {why}."
        )
    return (
        f"No retrieved passage states the claim (best sentence similarity {similarity:.2f}); "
        "the source does not appear to say this."
    )


class LocalBackend:
    """The offline judge. CPU-bound work runs in a thread so the event loop stays responsive."""

    name = BACKEND_NAME
    prompt_version = FEATURES_VERSION

    def __init__(
        self,
        model_path: Path,
        *,
        abstain_below: float | None = None,
        max_passages: int,
        max_passage_chars: int,
        embed: Embed = embed_texts,
    ) -> None:
        self._model = load_model(model_path)
        self._abstain_below = self._model.abstain_below if abstain_below is None else abstain_below
        self._max_passages = max_passages
        self._max_passage_chars = max_passage_chars
        self._embed = embed
        # Names what produced the verdict: a logistic regression over MiniLM-based features, and
        # which trained weights (a retrained model is another model for the verdict cache).
        file_hash = hashlib.sha256(model_path.read_bytes()).hexdigest()[:10]
        self.model = f"logreg-minilm-features@{file_hash}"

    def _passages(self, request: JudgeRequest) -> list[Passage]:
        return prepare_passages(request.passages, self._max_passages, self._max_passage_chars)

    def decide(self, request: JudgeRequest) -> Decision:
        """The classifier's decision with all label probabilities (for inspection and tests)."""
        return decide(
            self._model, request.claim, self._passages(request), self._embed, self._abstain_below
        )

    def judge_sync(self, request: JudgeRequest) -> Verdict:
        started = time.perf_counter()
        passages = self._passages(request)
        decision = decide(self._model, request.claim, passages, self._embed, self._abstain_below)
        quote = None
        quote_rank = None
        if decision.best is not None and decision.label in (SUPPORTED, CONTRADICTED):
            quote = decision.best.text
            quote_rank = decision.best.passage_rank
        verdict = Verdict(
            label=decision.label,
            confidence=round(decision.confidence, 4),
            rationale=rationale(decision, request.claim),
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
        latency_ms = elapsed * 1000
        return msgspec.structs.replace(verdict, latency_ms=round(latency_ms, 2))

    async def judge(self, request: JudgeRequest) -> Verdict:
        return await asyncio.to_thread(self.judge_sync, request)

    async def aclose(self) -> None:
        return None
