"""CP301 page-mismatch false alarms of the seeded findings benchmark (issue 25, rule 3; seed
424242 and build seeds 3 and 11): citations whose pinpoint names the right page. Each test
failed before its fix."""

from __future__ import annotations

from citeproof.pipeline import PAGE_MISMATCH, QUOTE_NOT_FOUND
from citeproof.retriever.content_rules import CitationInput, SourceText, check_citation
from citeproof.retriever.content_rules.evidence import RankedPassage
from tests.unit.content_rules_support import passage


def _rules(source: SourceText, citation: CitationInput) -> set[str]:
    return {finding.rule for finding in check_citation(source, citation)}


PAGES = [
    "Methods. Sera were collected from 46 patients and analysed by mass spectrometry.",
    "Results. Severe patients showed protein changes in their sera, implicating macrophages.",
    "Discussion. Early detection of severe patients remains a challenge for many clinicians.",
]


def test_a_misquotation_leaves_its_page_to_the_quotation_rule() -> None:
    """A quotation with a word changed, cited to the page the original is on: CP101 reports it
    with the closest passage and its page. The page rule judged the quoted words as a
    paraphrase, found the retriever's best passage on another page and added a CP301 (seed
    424242: a changed word in a table caption's quotation)."""
    source = SourceText.from_pages(PAGES, ["1", "2", "3"])
    claim = (
        "The authors wrote that “early recognition of severe patients remains a challenge for "
        "many clinicians” (p. 3)."
    )
    evidence = [passage(source, "protein changes", 1, 0.8)]
    citation = CitationInput(claim=claim, pinpoint_pages=["3"], evidence=evidence)
    rules = _rules(source, citation)
    assert QUOTE_NOT_FOUND.code in rules
    assert PAGE_MISMATCH.code not in rules


def test_a_passage_printed_twice_counts_on_the_page_the_retriever_found_it_on() -> None:
    """A sentence the source prints twice (an abstract's sentence again in the body): the
    retriever's passage names its page, and the page rule counted it on the page of the first
    copy instead (seeds 11 and 424242: 32 of 4,730 passages), so the cited page holding it
    seemed to hold nothing."""
    repeated = "Microglia sense lipid damage through the TREM2 receptor in this mouse model."
    pages = [
        f"Abstract. {repeated} Other findings are summarised here briefly.",
        "Methods. Sera were collected from 46 patients and analysed by mass spectrometry.",
        f"Results. Antibodies were measured weekly. {repeated} Survival improved markedly.",
    ]
    source = SourceText.from_pages(pages, ["11", "12", "13"])
    passage = RankedPassage(text=repeated, rank=1, page=3, vector_score=0.8, fused_score=0.8)
    claim = "The receptor TREM2 lets microglia sense damaged lipids in mice (p. 13)."
    citation = CitationInput(claim=claim, pinpoint_pages=["13"], evidence=[passage])
    assert PAGE_MISMATCH.code not in _rules(source, citation)
