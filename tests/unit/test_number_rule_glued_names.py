"""CP201 number-conflict on a number that is part of a name (issue 25, false alarm of build seed
424242): "These 14 genes ..." conflicted with the "16" of the source's "16S gene
pyrosequencing". A count glued to a capital letter ("16S", "23S rRNA", "5C") names a thing
(a ribosomal subunit, a panel), as "Figure 5C" does, and is compared with nothing. Failed
before."""

from __future__ import annotations

from citeproof.retriever.content_rules import SourceText
from tests.unit.content_rules_support import conflicts, passage

MICROBIOME = SourceText.from_pages(
    [
        "Biopsies were taken from the airways of patients and of healthy donors.",
        "Bacterial communities were profiled by 16S gene amplicon sequencing of every sample.",
        "Inflammatory genes were induced in the airways of patients.",
    ]
)
EVIDENCE = [passage(MICROBIOME, "Inflammatory", 1)]


def test_a_count_glued_to_a_capital_is_a_name() -> None:
    claim = "These 14 genes are also known to shape the airway response to the infection."
    assert conflicts(MICROBIOME, claim, EVIDENCE) == []


def test_a_count_of_genes_still_conflicts() -> None:
    source = SourceText.from_pages(
        [
            "Biopsies were taken from the airways of patients and of healthy donors.",
            "In all, 16 inflammatory genes were induced in the airways of patients.",
        ]
    )
    claim = "In all, 14 inflammatory genes were induced in the airways of patients."
    assert conflicts(source, claim, [passage(source, "In all", 1)]) == [("14", "16")]
