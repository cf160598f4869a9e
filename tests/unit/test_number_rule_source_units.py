"""CP201 number-conflict misses on build seeds (offline evaluator, `bench.findings.number_offline`)
where the source writes its value in a way the shared reading does not give the claim's kind
(`content_rules.source.read_quantities`); failed before:
- "at 2, 4, and 7 dpi": days post infection, the claim's "day 9 post infection"."""

from __future__ import annotations

from citeproof.retriever.content_rules import SourceText
from citeproof.retriever.content_rules.source import read_quantities
from citeproof.text.quantities import DURATION
from tests.unit.content_rules_support import conflicts, passage


def test_days_post_infection_are_days() -> None:
    days = read_quantities("animals at 2, 4, and 7 dpi (n = 5 for 2 dpi)")
    assert [(q.kind, q.value) for q in days if q.kind == DURATION] == [
        (DURATION, 7.0),
        (DURATION, 2.0),
    ]
    source = SourceText.from_pages(
        [
            "Lung tissue of ACE2-transgenic mice infected with SARS-CoV-2 at 7 dpi was compared "
            "with that of mock-infected mice (0 dpi) by bulk RNA-seq."
        ]
    )
    evidence = [passage(source, "Lung tissue", 1)]
    claim = (
        "Bulk RNA-seq data of ACE2-transgenic mice infected with SARS-CoV-2 comparing day {} post "
        "infection (dpi) with mock-infected (0 dpi)."
    )
    assert conflicts(source, claim.format(9), evidence) == [("9", "7")]
    assert conflicts(source, claim.format(7), evidence) == []
