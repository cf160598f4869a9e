"""CP201 number-conflict on the changed numbers the seeded findings benchmark still missed
(issue 25, rule 2; build seeds 3, 11-13, Check-COVID and Citation-Integrity train text). Each
failed before its fix:
- the sentence stating the original value is not among the best-aligned few (other sentences
  share more of a paraphrase's words and state values of the kind): the whole source is looked
  through for the one value the claim's could be a wrong copy of;
- a list printing its unit once, at its end ("5, 6, 12, and 16%"), read its first numbers as
  bare counts that paired with nothing;
- "estimated 53 percent" (approximate by its "estimated") was taken for the complement of the
  source's 44% (56, within its 10% slack): a computed value is off by its rounding only;
- of two ranges sharing one end, the other ends were compared by the ranges' midpoints.
And what must stay silent: a range against a single value, two of the claim's
values that could each be the wrong copy."""

from __future__ import annotations

from citeproof.retriever.content_rules import SourceText
from citeproof.retriever.content_rules.number_rule import _close_value
from citeproof.text.quantities import PERCENT, extract_quantities
from tests.unit.content_rules_support import conflicts

# Filler of another topic, as the seeded sources hold between the cited document's sentences.
FILLER = [
    "Because weight losses of just 5 to <10% of initial body weight significantly increased the "
    "odds of achieving clinically meaningful changes in glycemic control, emphasizing modest "
    "weight losses seems to be an appropriate clinical message.",
    "Questionnaires covered symptoms, treatment and the use of health services.",
    "The analysis adjusted for age, sex, region and the month of the interview.",
    "Missing answers were imputed from the answers of similar respondents.",
]
# Check-COVID train: the sentences of the cited abstract that share most of the paraphrase's
# words ("COVID-19", "suggesting", "modeled ... transmission") state other values of its kind.
PRESYMPTOMATIC = SourceText.from_pages(
    [
        " ".join(FILLER[:2]),
        "Current COVID-19 case fatality rates are estimated to lie between 0.6% and 3.5%, "
        "suggesting lower severity than SARS-CoV-1 and MERS but higher severity than HCoV-OC43. "
        "We report temporal patterns of viral shedding in 94 patients with laboratory-confirmed "
        "COVID-19 and modeled COVID-19 infectiousness profiles from a separate sample of 77 "
        "infector-infectee transmission pairs.",
        " ".join(FILLER[2:]),
        "We estimated that 44% (95% confidence interval, 25-69%) of secondary cases were "
        "infected during the index cases' presymptomatic stage, in settings with substantial "
        "household clustering, active case finding and quarantine outside the home. Disease "
        "control measures should be adjusted to account for probable substantial "
        "presymptomatic transmission.",
    ]
)


def test_the_one_sentence_of_the_source_the_claims_value_is_a_copy_of_is_found() -> None:
    claim = (
        "Initial COVID-19 modeling in and around China suggested that 57 percent of "
        "transmission came from presymptomatic cases."
    )
    assert conflicts(PRESYMPTOMATIC, claim) == [("57 percent", "44%")]
    # The value the source states: nothing to report.
    assert conflicts(PRESYMPTOMATIC, claim.replace("57 percent", "44 percent")) == []


def test_an_estimated_value_is_no_complement_within_its_slack() -> None:
    # 100 - 44 = 56: "estimated 53 percent" was within the 10% an approximate value admits.
    claim = (
        "In a sample of patients from China, the study estimated 53 percent of cases spread "
        "from person to person before symptoms appeared."
    )
    assert conflicts(PRESYMPTOMATIC, claim) == [("53 percent", "44%")]
    # A computed complement stays no conflict: 56% of cases not infected presymptomatically.
    complement = (
        "The study estimated that 56% of secondary cases were not infected during the index "
        "cases' presymptomatic stage."
    )
    assert conflicts(PRESYMPTOMATIC, complement) == []


def test_a_list_prints_its_unit_once_at_its_end() -> None:
    values = extract_quantities("with an estimated 5, 6, 12, and 16% of goblet cells")
    assert [(q.text, q.kind) for q in values] == [
        ("5", PERCENT), ("6", PERCENT), ("12", PERCENT), ("16%", PERCENT),
    ]  # fmt: skip
    # A ratio named before its number keeps its name ("RR: 0.30; 95% CI ...").
    ratio = extract_quantities("reduced mortality by 70% (RR: 0.30; 95% CI 0.14-0.64)")
    assert [q.kind for q in ratio if q.text == "0.30"] == ["ratio"]
    goblet = SourceText.from_pages(
        [
            " ".join(FILLER),
            "In humans, the goblet cell-to-enterocyte ratio increases from the proximal to the "
            "distal intestine, with an estimated 4, 6, 12, and 16% of goblet cells in the "
            "epithelium of the duodenum, jejunum, ileum, and distal colon, respectively.",
        ]
    )
    claim = (
        "In humans, the goblet cell-to-enterocyte ratio increases from the proximal to distal "
        "intestine, with an estimated 5, 6, 12, and 16% of goblet cells in the epithelium of "
        "the duodenum, jejunum, ileum, and distal colon, respectively."
    )
    assert conflicts(goblet, claim) == [("5", "4")]


def test_two_ranges_sharing_one_end_compare_their_other_ends() -> None:
    # "eight to 41 minutes" for "8 to 14 min": 41 is 14's digits swapped; the midpoints (24.5
    # and 11) are more than a factor of two apart and said it could be no copy of it.
    [changed] = extract_quantities("lingered for eight to 41 minutes")
    [stated] = extract_quantities("lingered for 8 to 14 min")
    assert _close_value(changed, stated)
    [other] = extract_quantities("lingered for 8 to 90 min")
    assert not _close_value(changed, other)


def test_what_the_whole_source_search_leaves_alone() -> None:
    # A single value against a range the source states elsewhere ("7.6-8.5%").
    ranges = SourceText.from_pages(
        [
            " ".join(FILLER),
            "A range of 7-7.5% is suggested for older patients with type 2 diabetes and "
            "7.6-8.5% for frail patients where the hypoglycemia risk may be high.",
        ]
    )
    claim = "The pooled prevalence of diabetic macular edema was 8.69% of diabetic patients."
    assert conflicts(ranges, claim) == []
    # Two of the claim's values the source states nowhere could each be the wrong copy.
    months = SourceText.from_pages(
        [
            " ".join(FILLER),
            "In these studies, a median of 55% of patients reached the study end point (repeat "
            "CD4 count, ART initiation, 12 months of follow-up, or data censoring).",
        ]
    )
    claim = (
        "Attrition rates are reported as proportions of patients who meet an outcome at time "
        "points since ART initiation (e.g., 6 months, 16 months)."
    )
    assert conflicts(months, claim) == []
