"""CP201 number-conflict and CP301 page-mismatch with the retriever's ranked evidence (issue 25,
rules 2 and 3): the shapes the seeded findings benchmark missed or raised falsely, each with
the source sentences it was seen with (Check-COVID and Citation-Integrity train text). Each
failed before: the number rule compared only a sentence stating one value of the kind with a
claim stating one, and the page rule read words alone."""

from __future__ import annotations

import pytest

from citeproof.pipeline import PAGE_MISMATCH
from citeproof.retriever.content_check import citation_input
from citeproof.retriever.content_rules import CitationInput, SourceText, check_citation
from citeproof.retriever.content_rules.config import ContentRulesConfig, ContentRulesConfigError
from citeproof.retriever.content_rules.evidence import RankedPassage, ranked_sentences
from citeproof.retriever.retrieval import EvidencePassage
from tests.unit.content_rules_support import conflicts, passage

# --- number-conflict: finding the sentence and the value -------------------------------------

# Other sentences of a source make its words' weights what they are in a real one.
FILLER = [
    "Participants were recruited from outpatient clinics between two survey rounds.",
    "Questionnaires covered symptoms, treatment and the use of health services.",
    "The analysis adjusted for age, sex, region and the month of the interview.",
    "Missing answers were imputed from the answers of similar respondents.",
]
HIV = SourceText.from_pages(
    [
        " ".join(FILLER[:2]),
        "Among young MSM the estimated number of new infections increased significantly from "
        "2006-2009; the increase was driven by new infections among young black MSM of 48%. "
        "In 2009, MSM accounted for 61% of new infections, heterosexual contact 27%, injection "
        "drug use (IDU) 9%, and MSM/IDU 3%.",
        " ".join(FILLER[2:]),
    ]
)


def test_a_changed_value_among_several_of_its_kind_pairs_by_the_words_near_it() -> None:
    # The sentence states four percentages; "MSM ... accounted for" stands next to 61% only.
    claim = (
        "MSM continued to account for 38% of new HIV infections in the United States in 2009 [12]."
    )
    assert conflicts(HIV, claim) == [("38%", "61%")]
    assert conflicts(HIV, claim.replace("38%", "61%")) == []


BATS = SourceText.from_pages(
    [
        "Samples were taken from bats in three caves, and 12% of them were positive.",
        "Furthermore, we show that 2019-nCoV is 96% identical at the whole-genome level to a "
        "bat coronavirus.",
    ]
)


def test_the_retrievers_best_passage_aligns_a_paraphrase() -> None:
    # By words alone the first sentence matches best, and its 12% is taken for the claim's;
    # the retriever ranks the evidence first by meaning.
    claim = "A 69% match was found with coronavirus samples taken from horseshoe bats [8]."
    assert conflicts(BATS, claim) == [("69%", "12%")]
    evidence = [passage(BATS, "96% identical", 1, 0.71), passage(BATS, "three caves", 2, 0.55)]
    assert conflicts(BATS, claim, evidence) == [("69%", "96%")]
    assert conflicts(BATS, claim.replace("69%", "96%"), evidence) == []


def test_a_list_without_a_sure_pairing_shows_the_values_it_may_be_a_copy_of() -> None:
    source = SourceText.from_pages(
        [
            "If NPIs could have been conducted one week, two weeks, or three weeks earlier in "
            "China, cases could have been reduced by 66%, 86%, and 95%, respectively."
        ]
    )
    # Nothing names the claim's place in the list (tests/unit/test_number_rule_by_order.py
    # pairs "three weeks earlier" with 95%).
    claim = "If measures had begun earlier in China, cases could have been reduced by 59% [4]."
    evidence = [passage(source, "NPIs", 1, 0.8)]
    [(mine, theirs)] = conflicts(source, claim, evidence)
    assert mine == "59%" and set(theirs.replace(" or ", ", ").split(", ")) == {"66%", "86%", "95%"}


def test_two_bounds_of_one_direction_conflict_and_a_value_within_a_bound_does_not() -> None:
    source = SourceText.from_pages(
        [
            "During the first wave of the pandemic, fewer than 10% of the US adult population "
            "formed antibodies against SARS-CoV-2, and fewer than 10% of those were diagnosed."
        ]
    )
    claim = "In the first wave, less than 14 percent of US adults formed antibodies [2]."
    assert conflicts(source, claim) == [("less than 14 percent", "fewer than 10%")]
    # "aged 55 years or younger" is a bound ("or younger" was read as nothing).
    ages = SourceText.from_pages(
        [
            "Systemic effects were significantly more frequent among people aged 55 years or "
            "younger than among those older than 55 years."
        ]
    )
    claim = (
        "Individuals below 65 years of age had significantly more frequent systemic effects [3]."
    )
    assert conflicts(ages, claim) == [("below 65 years", "55 years or younger")]


def test_an_exact_value_against_a_bound_it_is_a_wrong_copy_of() -> None:
    source = SourceText.from_pages(
        [
            "Among patients who had experienced severe pneumonia, antibody was detected for >18 "
            "months after infection.",
            "Rare variants explain at most 17% of the heritability.",
        ]
    )
    claim = "Survivors who had severe pneumonia had antibodies for 81 months after infection [2]."
    assert conflicts(source, claim) == [("81 months", ">18 months")]
    [finding] = check_citation(source, CitationInput(claim=claim))
    assert finding.message == (
        "The claim says 81 months where the source's matching sentence says >18 months."
    )
    # 1.5% lies within "at most 17%" and is no copy of it: another quantity.
    claim = "Rare de novo variants accounted for only 1.5% of the heritability [3]."
    assert conflicts(source, claim) == []


def test_a_range_with_one_end_changed_conflicts_and_a_cut_end_does_not() -> None:
    source = SourceText.from_pages(
        [
            "In stagnant air, droplets disappear from view with time constants in the range of "
            "8 to 14 min.",
            "Alcohol consumption at 2.5–14.9 g/day was associated with a lower risk.",
        ]
    )
    claim = "Droplets can remain suspended in stagnant air for eight to 41 minutes [2]."
    assert conflicts(source, claim) == [("eight to 41 minutes", "8 to 14 min")]
    # "14 g" for 14.9 g: a writer cutting the decimals, not a wrong number.
    claim = "Alcohol consumption of 2.5 g–14 g/day was associated with a lower risk [5]."
    assert conflicts(source, claim) == []


# --- number-conflict: what must not fire --------------------------------------------------------


def test_numbers_that_are_no_quantities_of_the_claim_are_not_compared() -> None:
    source = SourceText.from_pages(
        [
            "The proportion of goblet cells increases from duodenum (4%) to distal colon (16%), "
            "as the number of microbes does [9].",
            "Treatment with IFN-I resulted in the induction of 381 genes (Figure 2A).",
            "By February 20 there would have been 232,000 (95% CI: 161,000, 359,000) confirmed "
            "cases.",
        ]
    )
    # A source's own citation marker "[9]" is no count of goblet cells.
    claim = "With an estimated 4, 6, 12, and 16% of goblet cells, the ratio increases [3]."
    assert conflicts(source, claim) == []
    # The writer's own numbers: "we intersected ..., resulting in 911 genes".
    claim = "For this, we intersected the genes measured by both studies, resulting in 911 genes."
    assert conflicts(source, claim) == []
    # A claim cut inside a parenthesis (the parser's sentence began mid-CI): bounds, no values.
    assert conflicts(source, "161,000, 359,000) confirmed cases. [15, p. 782]") == []


def test_a_value_derived_from_a_ratio_is_no_conflict() -> None:
    source = SourceText.from_pages(
        [
            "In the recently published randomized study of remdesivir in hospitalized patients "
            "(83% were not receiving oxygen at baseline), patients improved."
        ]
    )
    claim = (
        "In the ACTT-1 trial, remdesivir reduced mortality by 70% (RR: 0.30; 95% CI 0.14–0.64) "
        "in hospitalized patients receiving oxygen."
    )
    assert conflicts(source, claim) == []


def test_values_in_words_and_far_apart_are_other_quantities() -> None:
    source = SourceText.from_pages(
        [
            "Almost half of Americans with diabetes did not meet each goal.",
            "We observed that approximately 85% of the genome is transcribed.",
        ]
    )
    claim = "Approximately 70% of patients with diabetes fail to reach their glycemic goal [3]."
    assert conflicts(source, claim) == []
    claim = "Of the genome that is transcribed, only 2% codes for proteins [4]."
    assert conflicts(source, claim) == []


# --- evidence passages --------------------------------------------------------------------------


def test_passages_are_found_in_the_source_by_their_text() -> None:
    source = SourceText.from_pages(["First sentence here. Second one follows.", "Third page."])
    first = RankedPassage(text="Second one follows.", rank=1, page=1)
    second = RankedPassage(text="Third page.", rank=2, page=2)
    elsewhere = RankedPassage(text="Not in this source.", rank=3, page=1)
    assert ranked_sentences(source.text, source.sentences, [first, second, elsewhere]) == {
        1: 1,
        2: 2,
    }


def test_the_retrieve_stage_hands_its_passages_to_the_rules() -> None:
    row = {
        "claim_text": "A claim [1].",
        "claim_start": 100,
        "marker_start": 108,
        "marker_end": 111,
        "pinpoint_pages": ["5"],
        "context_text": None,
        "block_quote": None,
    }
    kept = EvidencePassage(
        rank=1, chunk_id=7, page=3, text="A passage.", vector_score=0.6, bm25_score=2.0,
        fused_score=0.9,
    )  # fmt: skip
    built = citation_input(row, [(8, 11)], [kept])
    assert built.marker == (8, 11)
    assert built.evidence == [
        RankedPassage(text="A passage.", rank=1, page=3, vector_score=0.6, fused_score=0.9)
    ]


# --- page-mismatch with the retriever's evidence ------------------------------------------------

PAGES = [
    "Methods. Sera were collected from 46 patients and analysed by mass spectrometry.",
    "Results. This study revealed characteristic protein changes in the sera of severe "
    "COVID-19 patients, implicating dysregulation of macrophages.",
    "Discussion. Early detection and effective treatment of severe patients remain challenges.",
]
CLAIM = "Scientists found trends in common blood proteins of severely ill patients (p. 3)."


def test_a_page_without_the_retrievers_evidence_names_the_page_that_has_it() -> None:
    source = SourceText.from_pages(PAGES, ["1", "2", "3"])
    evidence = [
        passage(source, "characteristic protein", 1, 0.76),
        passage(source, "Early detection", 2, 0.45),
    ]
    findings = check_citation(
        source, CitationInput(claim=CLAIM, pinpoint_pages=["3"], evidence=evidence)
    )
    [finding] = [f for f in findings if f.rule == PAGE_MISMATCH.code]
    assert (finding.expected, finding.found) == ("p. 3", "p. 2")
    assert "characteristic protein changes" in finding.evidence[0].text
    # Cited to the page that holds it: nothing.
    right = CitationInput(claim=CLAIM, pinpoint_pages=["2"], evidence=evidence)
    assert [f for f in check_citation(source, right) if f.rule == PAGE_MISMATCH.code] == []


def test_a_cited_page_holding_evidence_about_as_good_is_no_mismatch() -> None:
    source = SourceText.from_pages(PAGES, ["1", "2", "3"])
    evidence = [
        passage(source, "characteristic protein", 1, 0.62),
        passage(source, "Early detection", 2, 0.60),
    ]
    cited = CitationInput(claim=CLAIM, pinpoint_pages=["3"], evidence=evidence)
    assert [f for f in check_citation(source, cited) if f.rule == PAGE_MISMATCH.code] == []


def test_page_weights_are_validated() -> None:
    with pytest.raises(ContentRulesConfigError):
        ContentRulesConfig(page_evidence_margin=0)
    with pytest.raises(ContentRulesConfigError):
        ContentRulesConfig(page_vector_weight=-1)
