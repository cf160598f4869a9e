"""The offline local judge: its shipped model file, and sane verdicts on clear cases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citeproof.contracts.judging import JudgeRequest, Passage
from citeproof.judge import cues
from citeproof.judge.backend import build_backend
from citeproof.judge.features import FEATURE_NAMES
from citeproof.judge.local import FEATURES_VERSION, LocalBackend
from citeproof.judge.local_model import ModelFileError, load_model
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


@pytest.fixture(scope="module")
def backend() -> LocalBackend:
    built = build_backend(load_judge_settings({}))
    assert isinstance(built, LocalBackend)
    return built


def request(claim: str, *texts: str) -> JudgeRequest:
    passages = [Passage(rank=i, page=10 + i, text=t) for i, t in enumerate(texts, start=1)]
    return JudgeRequest(claim=claim, context=None, passages=passages, citation_key="t")


def test_shipped_model_file_is_small_documented_and_matches_the_features() -> None:
    raw = json.loads(DEFAULT_LOCAL_MODEL_PATH.read_text())
    assert DEFAULT_LOCAL_MODEL_PATH.stat().st_size < 100_000
    assert tuple(raw["feature_names"]) == FEATURE_NAMES
    assert set(raw["labels"]) == {"supported", "unsupported", "contradicted"}
    assert len(raw["training"]["data_sha256"]) == 64
    out_of_fold = raw["training"]["metrics"]["out_of_fold"]
    assert 0.0 < out_of_fold["all"]["macro_f1"] <= 1.0
    assert raw["temperature"] > 0 and 0 < raw["abstain_below"] < 1


def test_a_model_for_other_features_is_refused(tmp_path: Path) -> None:
    raw = json.loads(DEFAULT_LOCAL_MODEL_PATH.read_text())
    raw["feature_names"] = raw["feature_names"][:-1]
    stale = tmp_path / "stale.json"
    stale.write_text(json.dumps(raw))
    with pytest.raises(ModelFileError, match="retrain"):
        load_model(stale)
    with pytest.raises(ModelFileError, match="make train-judge"):
        load_model(tmp_path / "missing.json")


def test_probabilities_are_a_distribution() -> None:
    model = load_model(DEFAULT_LOCAL_MODEL_PATH)
    probs = model.probabilities([[0.5] * len(FEATURE_NAMES), [0.0] * len(FEATURE_NAMES)])
    assert probs.shape == (2, 3)
    assert probs.sum(axis=1) == pytest.approx([1.0, 1.0])


async def test_restated_finding_is_supported_with_a_verbatim_paged_quote(
    backend: LocalBackend,
) -> None:
    verdict = await backend.judge(
        request("Ultraviolet light is associated with lower COVID-19 growth rates.", UV_ABSTRACT)
    )
    assert verdict.label == "supported", verdict
    assert verdict.quote is not None and verdict.quote in UV_ABSTRACT
    assert "ultraviolet light levels were associated with lower" in verdict.quote
    assert verdict.quote_page == 11
    assert verdict.confidence >= 0.45
    assert (verdict.backend, verdict.prompt_version) == ("local", FEATURES_VERSION)
    assert verdict.model.startswith("logreg-minilm-features@")
    assert verdict.prompt_tokens == 0 and verdict.latency_ms > 0


async def test_a_miscited_source_is_unsupported(backend: LocalBackend) -> None:
    verdict = await backend.judge(
        request("Ultraviolet light is associated with lower COVID-19 growth rates.", NEANDERTHAL)
    )
    assert verdict.label == "unsupported", verdict
    assert verdict.quote is None and verdict.downgraded_from is None


async def test_the_opposite_direction_shifts_towards_contradicted(backend: LocalBackend) -> None:
    opposite = request(
        "Ultraviolet light is associated with higher COVID-19 growth rates.", UV_ABSTRACT
    )
    same = request("Ultraviolet light is associated with lower COVID-19 growth rates.", UV_ABSTRACT)
    decisions = [backend.decide(r) for r in (opposite, same)]
    assert decisions[0].probabilities["contradicted"] > decisions[1].probabilities["contradicted"]
    # Only a shift, not a flip: the classifier misses many contradictions (see docs/judge.md).


async def test_abstention_says_it_could_not_decide(tmp_path: Path) -> None:
    cautious = LocalBackend(
        DEFAULT_LOCAL_MODEL_PATH, abstain_below=0.999, max_passages=8, max_passage_chars=2000
    )
    verdict = await cautious.judge(
        request("Ultraviolet light is associated with lower COVID-19 growth rates.", UV_ABSTRACT)
    )
    assert verdict.label == "unsupported" and verdict.quote is None
    assert "could not decide" in verdict.rationale
    assert verdict.confidence < 0.999


async def test_no_evidence_text_is_unsupported(backend: LocalBackend) -> None:
    verdict = await backend.judge(request("Masks work.", "   "))
    assert verdict.label == "unsupported"
    assert "No evidence text" in verdict.rationale


def test_cue_helpers() -> None:
    assert cues.numbers("thirty minutes, 1,200 people and 3.5%") == {"30", "1200", "3.5"}
    flipped = cues.flipped("Vaccines do not increase risk.")
    assert flipped is not None and "not" not in flipped and "increase" not in flipped
    assert cues.DIRECTION_OF[flipped.split()[2]] == (0, 1)
    assert cues.flipped("Vaccines work.") is None
    assert cues.content_stems("The infections rose") == {"infection", "rose"}
    evidence = cues.tokens("Higher UV levels were associated with lower COVID-19 growth rates.")
    opposite = cues.tokens("UV is associated with higher COVID-19 growth rates.")
    same = cues.tokens("UV is associated with lower COVID-19 growth rates.")
    # "higher" appears in the evidence too, but about UV levels, not about growth rates.
    assert cues.local_direction_votes(opposite, evidence)[1] == 1
    assert cues.local_direction_votes(same, evidence)[1] == 0
