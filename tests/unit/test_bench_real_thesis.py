"""The real_thesis workload of bench-e2e is what issue 28 asks for: one thesis of >= 120
citations over >= 60 sources of 10-40 pages of real text, and an edit of five claims and one
added citation that leaves every other sentence and paragraph as it was."""

from __future__ import annotations

from bench.e2e.real_run import claim_of, recall_at_k
from bench.e2e.real_thesis import (
    CHARS_PER_PAGE,
    EDITED_CLAIMS,
    MAX_PAGES,
    MIN_PAGES,
    compose,
    thesis_spec,
)


def test_the_thesis_cites_at_least_120_times_over_60_long_sources(shared_data) -> None:
    thesis = compose("train", 5, shared_data)
    assert len(thesis.claims) >= 120 and len(thesis.sources) >= 60
    for source in thesis.sources:
        assert MIN_PAGES <= source.pages <= MAX_PAGES
        body = sum(len(p) for s in thesis.specs[source.key].sections for p in s.paragraphs)
        assert body >= (source.pages - 1) * CHARS_PER_PAGE
    # Every claim's gold passage is printed in the source it cites.
    for claim in thesis.claims:
        text = " ".join(p for s in thesis.specs[claim.source].sections for p in s.paragraphs)
        assert all(" ".join(g.split())[:60] in " ".join(text.split()) for g in claim.gold)


def test_the_edit_changes_five_claims_adds_one_and_keeps_the_rest(shared_data) -> None:
    thesis = compose("train", 5, shared_data)
    edited = thesis.edited()
    assert sum(c.key.endswith("-edited") for c in edited.claims) == EDITED_CLAIMS
    assert len(edited.claims) == len(thesis.claims) + 1
    unchanged = [c for c in edited.claims if not c.key.endswith(("-edited", "-added"))]
    assert len(unchanged) == len(thesis.claims) - EDITED_CLAIMS
    before = thesis_spec(thesis).sections
    after = thesis_spec(edited).sections
    changed = [i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b]
    assert len(changed) <= EDITED_CLAIMS + 1  # only the sections holding an edit
    assert thesis_spec(edited).references == thesis_spec(thesis).references


def test_citations_are_scored_against_the_claim_they_were_printed_from(shared_data) -> None:
    thesis = compose("train", 5, shared_data)
    claim = thesis.claims[0]
    label = str(thesis.reference_order.index(claim.source) + 1)
    assert claim_of(thesis, label, claim.text) == claim
    citations = [{"id": 1, "reference_label": label, "claim": claim.text}]
    hit = [{"citation_id": 1, "rank": 1, "text": claim.gold[0]}]
    assert recall_at_k(thesis, citations, hit)["recall_at_5"] == 1.0 / len(claim.gold)
    assert recall_at_k(thesis, citations, [])["recall_at_5"] == 0.0
