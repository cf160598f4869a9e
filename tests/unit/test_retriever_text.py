"""Query building (marker stripping), BM25 tokenisation and evidence units."""

from __future__ import annotations

import pytest

from citeproof.retriever.bm25_terms import stem, tokenize
from citeproof.retriever.index import page_at, split_units
from citeproof.retriever.query import build_query, strip_markers, strip_spans, word_count


@pytest.mark.parametrize(
    ("claim", "expected"),
    [
        ("Heat islands raise night temperatures [12].", "Heat islands raise night temperatures."),
        ("Heat islands [3–5, 9] raise temperatures.", "Heat islands raise temperatures."),
        ("Trees cool streets [1], [2].", "Trees cool streets."),
        (
            "Trees cool streets (Smith et al., 2020a; Jones, 2019, p. 4).",
            "Trees cool streets.",
        ),
        ("Smith et al. (2020) showed that trees cool streets.", "showed that trees cool streets."),
        ("As shown before (ibid.), trees cool streets.", "As shown before, trees cool streets."),
        # Not markers: a percentage in brackets and a parenthesis without a year stay.
        (
            "Trees cool streets (by 3 degrees) in summer.",
            "Trees cool streets (by 3 degrees) in summer.",
        ),
    ],
)
def test_markers_are_stripped(claim: str, expected: str) -> None:
    assert strip_markers(claim) == expected


def test_known_marker_spans_are_cut_first() -> None:
    claim = "Jones and Smith found that trees cool streets."
    # The analysis says "Jones and Smith" is a narrative marker (offsets into the claim).
    assert strip_markers(claim, [(0, 15)]) == "found that trees cool streets."


def test_strip_spans_merges_overlaps() -> None:
    assert strip_spans("abcdefgh", [(1, 3), (2, 5), (7, 8)]).split() == ["a", "fg"]


def test_word_count_and_query() -> None:
    assert word_count("See.") == 1
    assert word_count("Trees cool streets.") == 3
    assert build_query("Claim.", "Context.", use_context=False) == "Claim."
    assert build_query("Claim.", "Context.", use_context=True) == "Context. Claim."
    assert build_query("Claim.", None, use_context=True) == "Claim."


def test_tokenize_folds_stems_and_keeps_negations() -> None:
    assert tokenize("The Müller-type detectors did NOT detect it.") == [
        "muller", "type", "detector", "not", "detect",
    ]  # fmt: skip
    assert tokenize("COVID-19 spreads") == ["covid", "19", "spread"]
    assert stem("infections") == stem("infection") == "infect"
    assert stem("shading") == stem("shade")


def test_units_glue_short_sentences_and_cut_long_ones() -> None:
    text = "Results. Trees cooled the streets by three degrees. Yes."
    spans = split_units(text, min_chars=20, max_chars=1000)
    assert [text[s:e] for s, e in spans] == [
        "Results. Trees cooled the streets by three degrees. Yes."
    ]
    long_text = "word " * 100
    spans = split_units(long_text.strip(), min_chars=10, max_chars=120)
    assert all(e - s <= 120 for s, e in spans)
    assert "".join(long_text.strip()[s:e] for s, e in spans) == long_text.strip()


def test_page_at_uses_page_starts_within_the_chunk_span() -> None:
    starts = [0, 100, 250]
    assert page_at(50, starts, 1, 2) == 1
    assert page_at(100, starts, 1, 2) == 2
    assert page_at(300, starts, 1, 2) == 2  # clamped to the chunk's last page
    assert page_at(300, None, 2, 3) == 2
    assert page_at(10, starts, 3, 3) == 3
