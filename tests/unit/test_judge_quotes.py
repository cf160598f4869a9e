"""Quote verification: verbatim modulo rendering, paged, or the verdict is downgraded."""

from __future__ import annotations

import pytest

from citeproof.contracts.judging import Passage, Verdict
from citeproof.judge.quotes import DOWNGRADED_CONFIDENCE_CAP, find_quote, verify_quote

PASSAGES = [
    Passage(
        rank=1,
        page=3,
        text="We enrolled 412 adults.\nThe vaccine reduced symptomatic infec-\ntion by 62% in "
        "older adults, compared with placebo.",
    ),
    Passage(
        rank=2,
        page=7,
        text="Long-\nterm follow-up showed “no serious adverse events” in the ﬁrst cohort.",
    ),
]


def verdict(label: str, quote: str | None, confidence: float = 0.9) -> Verdict:
    return Verdict(
        label=label,
        confidence=confidence,
        rationale="Because.",
        quote=quote,
        quote_page=None,
        backend="test",
        model="m",
        prompt_version="p",
        latency_ms=1.0,
        prompt_tokens=0,
        completion_tokens=0,
    )


def test_exact_quote_is_kept_and_paged() -> None:
    checked = verify_quote(verdict("supported", "We enrolled 412 adults."), PASSAGES)
    assert checked.label == "supported"
    assert checked.quote == "We enrolled 412 adults."
    assert checked.quote_page == 3
    assert checked.downgraded_from is None


def test_line_break_hyphenation_and_whitespace_are_tolerated() -> None:
    quote = "The vaccine reduced symptomatic infection by 62% in older adults"
    checked = verify_quote(verdict("supported", quote), PASSAGES)
    assert checked.label == "supported"
    # The stored quote is the source's own text, line break and hyphen included.
    assert checked.quote == ("The vaccine reduced symptomatic infec-\ntion by 62% in older adults")
    assert checked.quote_page == 3


def test_hyphenated_compound_across_a_line_break_and_typography() -> None:
    quote = 'Long-term follow-up showed "no serious adverse events" in the first cohort'
    match = find_quote(quote, PASSAGES)
    assert match is not None
    assert match.page == 7
    assert match.text.startswith("Long-\nterm") and match.text.endswith("ﬁrst cohort")


def test_wrapping_quotes_and_trailing_ellipsis_are_ignored() -> None:
    checked = verify_quote(verdict("contradicted", "“We enrolled 412 adults…”"), PASSAGES)
    assert checked.label == "contradicted"
    assert checked.quote == "We enrolled 412 adults"


@pytest.mark.parametrize(
    ("quote", "reason"),
    [
        ("The vaccine reduced symptomatic infection by 75% in older adults", "not found verbatim"),
        ("The vaccine cut symptomatic infection by 62%", "not found verbatim"),
        ("we enrolled 412 adults.", "not found verbatim"),
        ("412 adults", "shorter than"),
        (None, "no quote"),
    ],
)
def test_unverifiable_quote_downgrades(quote: str | None, reason: str) -> None:
    checked = verify_quote(verdict("supported", quote, confidence=0.95), PASSAGES)
    assert checked.label == "needs_review"
    assert checked.downgraded_from == "supported"
    assert reason in (checked.downgrade_reason or "")
    assert checked.confidence == DOWNGRADED_CONFIDENCE_CAP
    assert checked.quote is None and checked.quote_page is None
    assert checked.rationale.startswith("Downgraded from supported")


def test_preferred_passage_decides_the_page_of_a_repeated_sentence() -> None:
    repeated = [
        Passage(rank=1, page=1, text="Masks reduced transmission in households."),
        Passage(rank=2, page=9, text="Masks reduced transmission in households."),
    ]
    assert verify_quote(verdict("supported", repeated[0].text), repeated).quote_page == 1
    assert verify_quote(verdict("supported", repeated[0].text), repeated, 2).quote_page == 9


def test_unsupported_verdict_keeps_only_a_verifiable_quote() -> None:
    kept = verify_quote(verdict("unsupported", "We enrolled 412 adults."), PASSAGES)
    assert kept.quote_page == 3 and kept.downgraded_from is None
    dropped = verify_quote(verdict("unsupported", "Something the source never says."), PASSAGES)
    assert dropped.quote is None and dropped.label == "unsupported"
    assert dropped.downgraded_from is None
