"""Planning gives a citation whose marker names no reference entry the `reference_missing`
verdict, naming the entries it nearly matched; it never links it to one of them."""

from citeproof.pipeline import REFERENCE_MISSING, SOURCE_MISSING
from citeproof.retriever.planning import decide
from citeproof.retriever.settings import RetrieverSettings

REFERENCE = {
    "id": 1,
    "ordinal": 1,
    "label": "Tanaka2022",
    "raw": "Tanaka, H., Weber, R., and Novak, P. 2022. Aerosols indoors. Journal of Air.",
    "authors": '["Tanaka", "Weber", "Novak"]',
    "year": 2022,
    "year_suffix": None,
    "title": "Aerosols indoors",
    "venue": "Journal of Air",
    "doi": None,
    "arxiv_id": None,
}


def _citation(citation_id: int, reference_id: int | None, candidates: list[str]) -> dict:
    claim = "Aerosols linger in classrooms for hours after the lesson ends (Novak, 2022)."
    return {
        "id": citation_id,
        "reference_id": reference_id,
        "claim_text": claim,
        "claim_checked": "",
        "claim_start": 100 * citation_id,
        "marker_start": 100 * citation_id + claim.index("("),
        "marker_end": 100 * citation_id + len(claim) - 1,
        "marker_text": "(Novak, 2022)",
        "candidate_labels": candidates,
        "cited": '{"names": ["Novak"], "year": 2022}',
    }


def test_unlinked_citation_is_reference_missing_with_its_candidates():
    citations = [_citation(1, None, ["Tanaka2022"]), _citation(2, None, [])]
    plan = decide([REFERENCE], citations, {}, {}, RetrieverSettings())
    assert plan.tasks == []
    (first_id, first_label, first_why), (second_id, second_label, second_why) = plan.verdicts
    assert (first_id, first_label) == (1, REFERENCE_MISSING)
    assert "Tanaka2022" in first_why
    assert (second_id, second_label) == (2, REFERENCE_MISSING)
    assert "matches no entry" in second_why


def test_linked_citation_without_a_source_stays_source_missing():
    plan = decide([REFERENCE], [_citation(1, 1, [])], {}, {}, RetrieverSettings())
    assert [label for _, label, _ in plan.verdicts] == [SOURCE_MISSING]
