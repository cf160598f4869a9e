"""CP201 number-conflict misses on build seeds (offline evaluator, `bench.findings.number_offline`)
where the source writes its value in a way the shared reading does not give the claim's kind
(`content_rules.source.read_quantities`); failed before:
- "at 2, 4, and 7 dpi": days post infection, the claim's "day 9 post infection"."""

from __future__ import annotations

from citeproof.retriever.content_rules import SourceText
from citeproof.retriever.content_rules.source import read_quantities
from citeproof.text.quantities import COUNT, DURATION
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


def test_a_range_up_to_a_strict_bound_is_a_range() -> None:
    """ "5 to <10%" is the range 5-10%, not a count 5 and a bound <10%: a claim's "6 -10%"
    copies one end wrong (the shared reading gave a bound, which states no range)."""
    [weight_loss] = [q for q in read_quantities("weight losses of 5 to <10% were") if q.low]
    assert (weight_loss.text, weight_loss.low, weight_loss.high) == ("5 to <10%", 5.0, 10.0)
    source = SourceText.from_pages(
        [
            "Participants were followed for four years after the intervention began.",
            "Modest weight losses of 5 to <10% were associated with significant improvements in "
            "CVD risk factors at 1 year, but larger weight losses had greater benefits.",
        ]
    )
    evidence = [passage(source, "Modest weight", 1)]
    claim = (
        "Modest weight loss of {} of initial body weight improves cardiovascular risk factors "
        "associated with obesity."
    )
    assert conflicts(source, claim.format("6 –10%"), evidence) == [("6 –10%", "5 to <10%")]
    assert conflicts(source, claim.format("7–10%"), evidence) == [("7–10%", "5 to <10%")]
    assert conflicts(source, claim.format("5–10%"), evidence) == []
    assert conflicts(source, claim.format("5 to 10%"), evidence) == []


def test_about_a_figure_of_three_significant_digits_is_that_figure_rounded() -> None:
    """ "around 230,200" or "around 223,000" are no rounding of 232,000: a writer rounding says
    "around 230,000"; "about" widens a value of three or more significant digits only by a few
    units of its last one (10% of 230,200 reached 232,000 and beyond)."""
    [precise] = read_quantities("around 223,000 cases")
    assert precise.tolerance <= 5_000
    [rounded] = read_quantities("around 230,000 cases")
    assert rounded.tolerance == 23_000
    source = SourceText.from_pages(
        [
            "As of February 20, there were 55,508 confirmed cases reported in mainland China.",
            "If the fifth version of the case definition had been applied throughout the "
            "outbreak, we estimated that by February 20 there would have been 232,000 (95% CI: "
            "161,000, 359,000) confirmed cases.",
        ]
    )
    evidence = [passage(source, "fifth version", 1)]
    claim = (
        "Researchers estimated there were probably around {} confirmed COVID-19 cases in China "
        "by late February 2020, more than four times the number reported at the time."
    )
    assert conflicts(source, claim.format("223,000"), evidence) == [("223,000", "232,000")]
    assert conflicts(source, claim.format("230,000"), evidence) == []
    assert conflicts(source, claim.format("232,000"), evidence) == []


def test_two_ranges_sharing_no_end_are_no_wrong_copy() -> None:
    """A copying slip changes one end of a range: "approximately 11-15%" keeps neither end of
    "5 to <10%" and is the writer's own figure (it raised on build seed 3 once "5 to <10%" was
    read as a range)."""
    source = SourceText.from_pages(
        [
            "The prevalence of depression among the participants was 5 to <10% in every "
            "region, associated with a high burden of disability."
        ]
    )
    evidence = [passage(source, "prevalence of depression", 1)]
    claim = (
        "In general, the prevalence of depression is high (approximately {}) worldwide and "
        "depression is associated with a high burden and social disability."
    )
    assert conflicts(source, claim.format("11-15%"), evidence) == []
    assert conflicts(source, claim.format("5-15%"), evidence) == [("5-15%", "5 to <10%")]


def test_a_range_end_with_the_digits_of_the_sentences_value_swapped() -> None:
    """ "between 5.1 percent and 2.8 percent" of a sentence stating 1.5% and 2.81%: one end
    agrees, the other is 1.5 with its digits swapped (a factor 3.4 away, more than a close
    copy's factor of two)."""
    source = SourceText.from_pages(
        [
            "Results The unadjusted prevalence of antibodies to SARS-CoV-2 in Santa Clara County "
            "was 1.5% (exact binomial 95CI 1.11-1.97%), and the population-weighted prevalence "
            "was 2.81% (95CI 2.24-3.37%)."
        ]
    )
    evidence = [passage(source, "unadjusted prevalence", 1)]
    claim = (
        "Researchers reported results from antibody tests on 3,300 people in Santa Clara "
        "county in April, 2020: between {} percent and 2.8 percent had been infected."
    )
    assert conflicts(source, claim.format("5.1"), evidence) == [
        ("5.1 percent and 2.8 percent", "1.5%")
    ]
    assert conflicts(source, claim.format("1.5"), evidence) == []


def test_hours_abbreviated_are_hours_and_a_label_number_takes_no_list_unit() -> None:
    """ "for 24 h" is a duration of 24 hours, not 24 of a thing called "h" (only "hrs" was
    read as hours with a space before it); "MOI 2, 42 hour" is a multiplicity of infection and
    a time, not the list "2 and 42 hours"; and "We downloaded ... from a study of ..." describes
    the study, not the writer's own numbers (seeded on build seeds 3, 13, 7019, 424242)."""
    [day] = [q for q in read_quantities("infected for 24 h in media") if q.value]
    assert (day.kind, day.value, day.text) == (DURATION, 1.0, "24 h")
    [half_day] = read_quantities("kept 12 hr before")
    assert (half_day.kind, half_day.value) == (DURATION, 0.5)
    moi, time = read_quantities("infected (MOI 2, 42 hour incubation) cells")
    assert (moi.kind, time.kind) == (COUNT, DURATION)
    source = SourceText.from_pages(
        [
            "The cells were then harvested for RNA sequencing in triplicate.",
            "Approximately 5 × 105 NHBE cells were infected with either SARS-CoV-2 at an MOI of 2 "
            "for 24 h or influenza A/Puerto Rico/8/1934 (H1N1) virus at an MOI of 3 for 12 h in "
            "bronchial epithelial growth media.",
        ]
    )
    evidence = [passage(source, "NHBE cells", 1)]
    claim = (
        "We downloaded raw counts tables from a transcriptomics study of SARS-CoV-2 infected "
        "(MOI 2, {} hour incubation) NHBE cells with uninfected controls."
    )
    assert conflicts(source, claim.format(42), evidence) == [("42 hour", "24 h")]
    assert conflicts(source, claim.format(24), evidence) == []
    # What the writer took from the study is the study's; what the writer found is not.
    found = "We found that SARS-CoV-2 infected (MOI 2, 42 hour incubation) NHBE cells grew."
    assert conflicts(source, found, evidence) == []


def test_a_value_inside_another_sentences_interval_is_not_stated_there() -> None:
    """A single value is stated by a range only at one of its ends: the changed end "5.1" of
    "between 5.1 percent and 2.8 percent" lies inside another sentence's "(2.58-5.70%)", which
    made it "stated somewhere" and hid the digit swap of 1.5% (build seeds 11, 13, 97)."""
    source = SourceText.from_pages(
        [
            "We tested county residents for antibodies to SARS-CoV-2 with a lateral flow assay.",
            "Results The unadjusted prevalence of antibodies to SARS-CoV-2 in Santa Clara County "
            "was 1.5% (exact binomial 95CI 1.11-1.97%), and the population-weighted prevalence "
            "was 2.81% (95CI 2.24-3.37%).",
            "Under the three scenarios for test performance characteristics, the population "
            "prevalence of COVID-19 in Santa Clara ranged from 2.49% (95CI 1.80-3.17%) to 4.16% "
            "(2.58-5.70%).",
        ]
    )
    evidence = [passage(source, "unadjusted prevalence", 1)]
    claim = (
        "Researchers reported results from antibody tests on 3,300 people in Santa Clara "
        "county in April, 2020: between {} percent and 2.8 percent had been infected."
    )
    assert conflicts(source, claim.format("5.1"), evidence) == [
        ("5.1 percent and 2.8 percent", "1.5%")
    ]
    assert conflicts(source, claim.format("1.5"), evidence) == []


def test_a_value_copied_with_its_confidence_interval_is_that_value() -> None:
    """An estimate printed with the very confidence interval of the source's is the source's
    estimate, whatever words stand near each: "41,300 (95% CI: 38,200-47,900) in 2011" for
    "an additional 43,100 (95% CI: 38,200-47,900) ... in 2011" (build seeds 3, 11, 13, 7019,
    424242: counts of no shared counted thing needed words near both)."""
    source = SourceText.from_pages(
        [
            "Participants were followed from enrolment until the end of 2012.",
            "An estimated 39,500 adults were infected in 2010 (95% CI: 35,100-44,000), with an "
            "additional 43,100 (95% CI: 38,200-47,900) and 40,700 (95% CI: 36,000-45,400) "
            "infected in 2011 and 2012, respectively.",
        ]
    )
    evidence = [passage(source, "An estimated", 1)]
    claim = (
        "Yearly figures over the period were 39,500 (95% CI: 35,100-44,000) in 2010, {} (95% "
        "CI: 38,200-47,900) in 2011 and 40,700 (95% CI: 36,000-45,400) in 2012."
    )
    assert conflicts(source, claim.format("41,300"), evidence) == [("41,300", "43,100")]
    assert conflicts(source, claim.format("43,100"), evidence) == []
