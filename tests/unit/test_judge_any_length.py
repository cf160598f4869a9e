"""The offline judge reads claims and evidence of any length and shape: a claim longer than the
cross-encoder's window is read from its start (the rationale says so) instead of raising the
tokenizer's "Sequence to truncate too short" error, which made every long real citing sentence
a `judge_error`; inputs that fit the window are read exactly as before."""

from __future__ import annotations

import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citeproof.contracts.judging import JUDGE_LABELS, JudgeRequest, Passage
from citeproof.judge.backend import build_backend
from citeproof.judge.cross_encoder import MAX_TOKENS, OUTPUTS, SHORTENED_CLAIM_TOKENS
from citeproof.judge.local import LocalBackend
from citeproof.judge.settings import load_judge_settings

FINDING = (
    "Higher ultraviolet light levels were associated with lower subsequent COVID-19 growth "
    "rates across 3,235 regions in 173 countries."
)


@pytest.fixture(scope="module")
def backend() -> LocalBackend:
    built = build_backend(load_judge_settings({}))
    assert isinstance(built, LocalBackend)
    return built


def _request(claim: str, *texts: str) -> JudgeRequest:
    passages = [Passage(rank=i, page=1 + i, text=t) for i, t in enumerate(texts, start=1)]
    return JudgeRequest(claim=claim, context=None, passages=passages, citation_key="t")


def _long_claim(words: int) -> str:
    base = (
        "Ultraviolet light was associated with lower growth of COVID-19 in many regions and "
        "the association held after adjustment for temperature humidity and population density "
    ).split()
    return " ".join(base[i % len(base)] for i in range(words)) + "."


def test_a_600_word_claim_gets_a_verdict_that_says_it_read_the_start(backend):
    claim = _long_claim(600)
    read = backend._cross_encoder.claim_to_read(claim)
    assert read.shortened and read.words == 600 and 0 < read.words_read < 600
    assert claim.startswith(read.text)
    verdict = backend.judge_sync(_request(claim, FINDING))
    assert verdict.label in JUDGE_LABELS
    assert f"it read its first {read.words_read} of 600 words" in verdict.rationale


def test_a_20000_character_evidence_sentence_is_read(backend):
    sentence = ("The regional growth rates were modelled with weather covariates " * 320)[:20_000]
    verdict = backend.judge_sync(_request("Ultraviolet light lowers COVID-19 growth.", sentence))
    assert verdict.label in JUDGE_LABELS
    assert "longer than the judge reads" not in verdict.rationale


def test_a_claim_at_the_edge_of_the_window_is_read_whole_just_below_and_shortened_above(
    backend,
):
    encoder = backend._cross_encoder
    # "word" is one word piece: n words are n pieces.
    fits = " ".join(["word"] * (MAX_TOKENS - 4))
    too_long = " ".join(["word"] * (MAX_TOKENS - 3))
    assert encoder.claim_to_read(fits).text == fits
    shortened = encoder.claim_to_read(too_long)
    assert shortened.words_read == SHORTENED_CLAIM_TOKENS
    # Both are read without an error.
    assert encoder.probabilities(too_long, [FINDING]).shape == (1, OUTPUTS)
    assert encoder.probabilities(fits, [FINDING]).shape == (1, OUTPUTS)


def test_inputs_that_fit_are_read_exactly_as_before(backend):
    """The shortening touches nothing that fits: the probabilities of a claim that fits equal
    those of the raw pair encoding the judge used before."""
    encoder = backend._cross_encoder
    claim = "Ultraviolet light is associated with lower COVID-19 growth rates."
    feed = encoder._encode(claim, FINDING)
    raw = encoder._session.run(None, feed)[0][0]
    assert encoder.logits(claim, [FINDING])[0].tolist() == pytest.approx(raw.tolist(), abs=0)


ODD_TEXT = st.one_of(
    st.just(""),
    st.text(alphabet=" \t\n\r\u00a0\u2028\u200b", max_size=50),
    st.text(max_size=400),  # any code point hypothesis likes: controls, surrogates excluded
    st.text(alphabet=string.printable + "\x00\x07\x1b\u202e\ufeff\U0001f600ﬁé", max_size=2000),
    st.builds(lambda n: " ".join(["claim"] * n), st.integers(4_000, 5_000)),
    st.builds(lambda n: "x" * n, st.sampled_from([100_000, 120_000])),
)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(claim=ODD_TEXT, texts=st.lists(ODD_TEXT, max_size=30))
def test_fuzz_any_claim_and_passages_give_a_verdict(backend, claim, texts):
    verdict = backend.judge_sync(_request(claim, *texts))
    assert verdict.label in JUDGE_LABELS
    assert 0.0 <= verdict.confidence <= 1.0
    assert verdict.rationale
