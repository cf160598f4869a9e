"""The offline local judge (the reading judge): its shipped files, and sane decisions on clear
cases."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from citeproof.contracts.judging import JudgeRequest, Passage
from citeproof.judge import cues
from citeproof.judge.backend import build_backend
from citeproof.judge.cross_encoder import DEFAULT_MODEL_PATH, DEFAULT_TOKENIZER_PATH
from citeproof.judge.evidence import evidence_sentences
from citeproof.judge.local import FEATURES_VERSION, LocalBackend
from citeproof.judge.reading import (
    AGGREGATE_FEATURES,
    ReadingModelError,
    candidates,
    load_reading_model,
)
from citeproof.judge.settings import DEFAULT_LOCAL_MODEL_PATH, load_judge_settings

UV_ABSTRACT = (
    "Understanding the role of environmental factors in viral spread is important. "
    "Higher ultraviolet light levels were associated with lower subsequent COVID-19 growth rates "
    "across 3,235 regions in 173 countries. "
    "Temperature and humidity showed weaker associations."
)
NEANDERTHAL = (
    "A genomic segment on chromosome 3 is associated with severe COVID-19 and hospitalisation. "
    "We show that the risk is conferred by a segment inherited from Neanderthals, which is "
    "carried by about 50% of people in South Asia."
)
UV_CLAIM = "Ultraviolet light is associated with lower COVID-19 growth rates."
ROUNDED_43_PERCENT = (
    "Some 43 percent of people with confirmed SARS-CoV-2 infections have no symptoms."
)
VO_STUDY = (
    "We tested the population of Vo at two consecutive time points. "
    "Notably, 43.2% (95% CI 32.2-54.7%) of the confirmed SARS-CoV-2 infections detected across "
    "the two surveys were asymptomatic. "
    "The mean serial interval was 6.9 days."
)


@pytest.fixture(scope="module")
def backend() -> LocalBackend:
    """The judge as shipped: per-label thresholds, needs_review below them."""
    built = build_backend(load_judge_settings({}))
    assert isinstance(built, LocalBackend)
    return built


@pytest.fixture(scope="module")
def reader() -> LocalBackend:
    """The same judge never abstaining: what the model itself reads into clear cases."""
    built = build_backend(load_judge_settings({"CITEPROOF_JUDGE_LOCAL_ABSTAIN_BELOW": "0"}))
    assert isinstance(built, LocalBackend)
    return built


def request(claim: str, *texts: str) -> JudgeRequest:
    passages = [Passage(rank=i, page=10 + i, text=t) for i, t in enumerate(texts, start=1)]
    return JudgeRequest(claim=claim, context=None, passages=passages, citation_key="t")


def test_shipped_files_are_small_documented_and_belong_together() -> None:
    raw = json.loads(DEFAULT_LOCAL_MODEL_PATH.read_text())
    assert DEFAULT_LOCAL_MODEL_PATH.stat().st_size < 100_000
    assert tuple(raw["feature_names"]) == AGGREGATE_FEATURES
    assert set(raw["labels"]) == {"supported", "unsupported", "contradicted"}
    assert set(raw["thresholds"]) == set(raw["labels"])
    # A threshold above 1 means the label is never given (it could not reach its precision floor).
    assert all(0.0 < t <= 1.01 for t in raw["thresholds"].values())
    assert raw["temperature"] > 0
    # The aggregator was fitted on this exact cross-encoder graph.
    shipped = hashlib.sha256(DEFAULT_MODEL_PATH.read_bytes()).hexdigest()
    assert raw["cross_encoder_sha256"] == shipped
    assert DEFAULT_MODEL_PATH.stat().st_size <= 30 * 1024 * 1024
    assert DEFAULT_TOKENIZER_PATH.is_file()
    training = raw["training"]
    assert training["held_out_abstracts"] > 0
    assert 0.0 < training["out_of_fold_document_level_with_abstention"]["macro_f1"] <= 1.0
    assert training["reliability_out_of_fold"]


def test_an_aggregator_for_other_features_is_refused(tmp_path: Path) -> None:
    raw = json.loads(DEFAULT_LOCAL_MODEL_PATH.read_text())
    raw["feature_names"] = raw["feature_names"][:-1]
    stale = tmp_path / "stale.json"
    stale.write_text(json.dumps(raw))
    with pytest.raises(ReadingModelError, match="retrain"):
        load_reading_model(stale)
    with pytest.raises(ReadingModelError, match="make train-judge"):
        load_reading_model(tmp_path / "missing.json")


def test_the_prefilter_reads_a_bounded_number_of_candidates() -> None:
    many = " ".join(f"Sentence number {i} is about something else entirely." for i in range(40))
    passages = [Passage(rank=1, text=many + " " + UV_ABSTRACT)]
    chosen = candidates("Ultraviolet light lowers COVID-19 growth.", evidence_sentences(passages))
    assert len(chosen) <= 6
    # The sentence that shares the claim's words is among what the model reads.
    assert any("ultraviolet light levels" in c.text for c in chosen)


async def test_restated_finding_is_supported_with_a_verbatim_paged_quote(
    reader: LocalBackend,
) -> None:
    verdict = await reader.judge(
        request("Ultraviolet light is associated with lower COVID-19 growth rates.", UV_ABSTRACT)
    )
    assert verdict.label == "supported", verdict
    assert verdict.quote is not None and verdict.quote in UV_ABSTRACT
    assert "ultraviolet light levels were associated with lower" in verdict.quote
    assert verdict.quote_page == 11
    assert (verdict.backend, verdict.prompt_version) == ("local", FEATURES_VERSION)
    assert verdict.model.startswith("minilm-cross-encoder@")
    assert verdict.prompt_tokens == 0 and verdict.latency_ms > 0


async def test_the_shipped_judge_does_not_contradict_a_rounded_percentage(
    backend: LocalBackend,
) -> None:
    verdict = await backend.judge(request(ROUNDED_43_PERCENT, VO_STUDY))
    assert verdict.label != "contradicted", verdict


async def test_the_shipped_judge_does_not_call_a_miscited_source_supported(
    backend: LocalBackend,
) -> None:
    verdict = await backend.judge(request(UV_CLAIM, NEANDERTHAL))
    assert verdict.label in ("unsupported", "needs_review"), verdict
    assert verdict.downgraded_from is None


# What the model itself reads, abstention off. Both fail with the shipped cross-encoder (it
# reads "43 percent" against "43.2%" as a different number, and a fluent unrelated abstract as
# support); docs/judge.md lists them among its known errors. The shipped thresholds keep both
# from reaching a user as a definite verdict (the two tests above).
@pytest.mark.xfail(strict=True, reason="known model error, see docs/judge.md")
async def test_the_model_reads_a_rounded_percentage_as_agreeing(reader: LocalBackend) -> None:
    verdict = await reader.judge(request(ROUNDED_43_PERCENT, VO_STUDY))
    assert verdict.label != "contradicted", verdict


@pytest.mark.xfail(strict=True, reason="known model error, see docs/judge.md")
async def test_the_model_reads_an_unrelated_abstract_as_unsupported(reader: LocalBackend) -> None:
    verdict = await reader.judge(request(UV_CLAIM, NEANDERTHAL))
    assert verdict.label == "unsupported", verdict


async def test_the_opposite_direction_shifts_towards_contradicted(reader: LocalBackend) -> None:
    opposite = request(
        "Ultraviolet light is associated with higher COVID-19 growth rates.", UV_ABSTRACT
    )
    same = request("Ultraviolet light is associated with lower COVID-19 growth rates.", UV_ABSTRACT)
    decisions = [reader.decide(r) for r in (opposite, same)]
    assert decisions[0].probabilities["contradicted"] > decisions[1].probabilities["contradicted"]
    assert decisions[1].probabilities["supported"] > decisions[0].probabilities["supported"]


async def test_abstention_is_needs_review_naming_the_two_leading_labels() -> None:
    cautious = LocalBackend(
        DEFAULT_LOCAL_MODEL_PATH, abstain_below=0.999, max_passages=8, max_passage_chars=2000
    )
    verdict = await cautious.judge(
        request("Ultraviolet light is associated with lower COVID-19 growth rates.", UV_ABSTRACT)
    )
    assert verdict.label == "needs_review"
    assert "could not decide" in verdict.rationale
    assert "supported" in verdict.rationale and " over " in verdict.rationale
    assert verdict.confidence < 0.999
    # The reviewer is shown the sentence the leading label rests on, verbatim.
    assert verdict.quote is None or verdict.quote in UV_ABSTRACT


async def test_a_label_the_model_cannot_back_is_needs_review(backend: LocalBackend) -> None:
    """The shipped thresholds come from held-out training data; a label whose precision could
    not reach its floor there is never given: the verdict says needs_review instead."""
    raw = json.loads(DEFAULT_LOCAL_MODEL_PATH.read_text())
    req = request("Ultraviolet light is associated with lower COVID-19 growth rates.", UV_ABSTRACT)
    decision = backend.decide(req)
    verdict = await backend.judge(req)
    top = max(decision.probabilities, key=decision.probabilities.__getitem__)
    if decision.probabilities[top] < raw["thresholds"][top]:
        assert verdict.label == "needs_review"
        assert verdict.rationale.startswith("The offline judge read the evidence")
    else:
        assert verdict.label == top


async def test_no_evidence_text_is_unsupported(backend: LocalBackend) -> None:
    verdict = await backend.judge(request("Masks work.", "   "))
    assert verdict.label == "unsupported"
    assert "No evidence text" in verdict.rationale


async def test_the_same_request_gets_the_same_verdict(backend: LocalBackend) -> None:
    req = request("Ultraviolet light is associated with lower COVID-19 growth rates.", UV_ABSTRACT)
    first, second = await backend.judge(req), await backend.judge(req)
    assert (first.label, first.confidence, first.quote) == (
        second.label,
        second.confidence,
        second.quote,
    )


def test_cue_helpers() -> None:
    assert cues.numbers("thirty minutes, 1,200 people and 3.5%") == {"30", "1200", "3.5"}
    assert cues.content_stems("The infections rose") == {"infection", "rose"}
    evidence = cues.tokens("Higher UV levels were associated with lower COVID-19 growth rates.")
    opposite = cues.tokens("UV is associated with higher COVID-19 growth rates.")
    same = cues.tokens("UV is associated with lower COVID-19 growth rates.")
    # "higher" appears in the evidence too, but about UV levels, not about growth rates.
    assert cues.local_direction_votes(opposite, evidence)[1] == 1
    assert cues.local_direction_votes(same, evidence)[1] == 0
