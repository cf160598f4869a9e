"""Quantities in claims and evidence: the same number written differently agrees, a different
number for the same quantity conflicts, and numbers that measure different things are unrelated.

Every pair is written by hand; several are the shapes the accuracy benchmark's failures had (a
rounded percentage judged contradicted, a CI bound or a year taken for the finding)."""

from __future__ import annotations

import pytest

from citeproof.judge.cues import numbers
from citeproof.text.quantities import (
    AGREE,
    APPROX,
    CI_LEVEL,
    CONFLICT,
    COUNT,
    DURATION,
    LOWER,
    P_VALUE,
    PERCENT,
    RATIO,
    SAMPLE_SIZE,
    UNRELATED,
    UPPER,
    YEAR,
    compare_quantities,
    compare_with_sentences,
    extract_quantities,
)

AGREE_PAIRS = [
    # The example: a rounded claim against the precise figure.
    ("Some 43 percent of people with confirmed SARS-CoV-2 infections have no symptoms.",
     "Notably, 43.2% (95% CI 32.2%–54.7%) of the confirmed SARS-CoV-2 infections detected "
     "across the two surveys were asymptomatic."),
    ("One in five hospitalised patients needed intensive care.",
     "Of 1,000 hospitalised patients, 20.3% needed intensive care."),
    ("Two thirds of the infected children had mild symptoms.",
     "Mild symptoms were reported in 66% of infected children."),
    ("Mortality among ventilated patients ranged from 10 to 20 percent.",
     "Mortality among ventilated patients was 14.8%."),
    ("The economic cost reached more than 0.3% of regional GDP.",
     "The economic cost of the outbreak was estimated at 0.45% of regional GDP."),
    ("At least 40% of transmission occurred before symptom onset.",
     "We estimate that 44% of transmission occurred before symptom onset."),
    ("Almost half of the health workers were seropositive.",
     "Seropositivity among health workers was 47.5%."),
    ("Dexamethasone lowered the odds of death (OR 0.7).",
     "Dexamethasone was associated with lower odds of death (OR 0.70, 95% CI 0.58–0.84)."),
    ("The risk of severe disease doubled in smokers.",
     "Smokers had a 2.0-fold higher risk of severe disease."),
    ("Viral shedding lasted about two weeks.",
     "Median duration of viral shedding was 14 days (IQR 10–19)."),
    ("The trial enrolled seven hundred participants across a dozen sites.",
     "A total of 700 participants were enrolled at 12 sites."),
    ("Seven cities took part in the survey.",
     "The survey covered 7 cities in northern Italy."),
    ("Incidence was 5 per 1,000 residents.",
     "Incidence reached 0.5% of residents."),
    ("The prevalence of antibodies was 5‰ among blood donors.",
     "Antibody prevalence among blood donors was 0.5%."),
    ("Masks reduced infection risk by 10–20%.",
     "Mask wearing reduced infection risk by 15%."),
    ("Fewer than 5% of children were admitted to hospital.",
     "Only 2.1% of children were admitted to hospital."),
    ("The hazard ratio for death was 1.5.",
     "The hazard ratio for death was 1.5 (95% CI 1.2–1.9) after adjustment."),
    ("Patients over 65 years accounted for 80% of deaths.",
     "Patients aged over 65 accounted for 80.4% of all deaths."),
    ("A quarter of the patients developed pneumonia.",
     "Pneumonia developed in 26% of patients."),
    ("The incubation period was 5.2 days on average.",
     "The mean incubation period was 5.2 days (95% CI 4.1–7.0)."),
    # A round large count is a rounded one.
    ("Mass screening found two positive cases out of 8,000 tests so far.",
     "So far, 8,276 tests were run in the mass screening and two were positive."),
]  # fmt: skip

CONFLICT_PAIRS = [
    ("Some 43 percent of people with confirmed infections have no symptoms.",
     "Only 4.3% of confirmed infections were asymptomatic."),
    ("One in five hospitalised patients needed intensive care.",
     "Of hospitalised patients, 52% needed intensive care."),
    ("Mortality among ventilated patients ranged from 10 to 20 percent.",
     "Mortality among ventilated patients was 45%."),
    ("The economic cost reached more than 0.3% of regional GDP.",
     "The economic cost was estimated at 0.1% of regional GDP."),
    ("Fewer than 5% of children were admitted to hospital.",
     "Overall, 18% of children were admitted to hospital."),
    ("Dexamethasone lowered the odds of death (OR 0.7).",
     "Dexamethasone was associated with odds of death (OR 1.7, 95% CI 1.4–2.0)."),
    ("The risk of severe disease doubled in smokers.",
     "Smokers had a 1.1-fold risk of severe disease."),
    ("Viral shedding lasted about two weeks.",
     "Median duration of viral shedding was 40 days."),
    ("Seven cities took part in the survey.",
     "The survey covered 12 cities in northern Italy."),
    ("Two thirds of the infected children had mild symptoms.",
     "Mild symptoms were reported in 25% of infected children."),
    ("At least 40% of transmission occurred before symptom onset.",
     "We estimate that 12% of transmission occurred before symptom onset."),
    ("The vaccine was 95% effective against symptomatic disease.",
     "Vaccine efficacy against symptomatic disease was 62.1%."),
    ("The mean incubation period was 5.2 days.",
     "The mean incubation period was 11.5 days."),
    ("Mortality in intensive care was about 50%.",
     "Mortality in intensive care was 26%."),
    ("Mass screening found 8,000 positive cases so far.",
     "So far, mass screening found 9,104 positive cases."),
]  # fmt: skip

UNRELATED_PAIRS = [
    # A year, a sample size, a CI level and bound: not the claim's percentage.
    ("Some 43 percent of people with confirmed infections have no symptoms.",
     "In 2020 we tested 104 people (n = 104) for infection."),
    ("Mortality was 12% among ventilated patients.",
     "Among ventilated patients, the odds ratio was 2.3 (95% CI 1.2–4.1)."),
    # Same unit kind, different quantities (no shared context word near the numbers).
    ("Mortality was 12% among ventilated patients.",
     "Ventilated patients were 65% male."),
    ("Masks reduced infection risk by 15%.",
     "In the survey, 70% of respondents reported washing hands daily."),
    # Different unit kinds never compare.
    ("The incubation period was 5 days.",
     "Five percent of contacts became infected."),
    ("Seven cities took part in the survey.",
     "The survey ran for 7 weeks in 2021."),
    # Counts of different things.
    ("The trial enrolled 300 participants.",
     "Samples were stored at 300 laboratories."),
    ("Twelve patients died.",
     "Twelve percent of staff were infected."),
    # A claim without numbers, or evidence without numbers.
    ("Some 43 percent of people with confirmed infections have no symptoms.",
     "Asymptomatic infections were common among confirmed cases."),
    # Year against year of something else.
    ("The first case was reported in 2019.",
     "The guideline was updated in 2021 after new trials."),
    ("The risk of severe disease doubled in smokers.",
     "Smoking prevalence was 21% in the cohort."),
    # COVID-19's digits are a name, not a number.
    ("COVID-19 mortality was 2.3% in the cohort.",
     "SARS-CoV-2 infection was confirmed by RT-PCR in 19 laboratories."),
]  # fmt: skip


@pytest.mark.parametrize(("claim", "evidence"), AGREE_PAIRS)
def test_same_quantity_written_differently_agrees(claim: str, evidence: str) -> None:
    comparison = compare_quantities(claim, evidence)
    assert comparison.relation == AGREE, comparison.matches


@pytest.mark.parametrize(("claim", "evidence"), CONFLICT_PAIRS)
def test_different_value_of_the_same_quantity_conflicts(claim: str, evidence: str) -> None:
    comparison = compare_quantities(claim, evidence)
    assert comparison.relation == CONFLICT, comparison.matches
    match = next(m for m in comparison.matches if m.relation == CONFLICT)
    assert match.evidence is not None and match.shared_context


@pytest.mark.parametrize(("claim", "evidence"), UNRELATED_PAIRS)
def test_numbers_of_different_quantities_are_unrelated(claim: str, evidence: str) -> None:
    comparison = compare_quantities(claim, evidence)
    assert comparison.relation in (UNRELATED, None), comparison.matches
    assert comparison.conflict == 0


def test_enough_hand_written_pairs() -> None:
    assert len(AGREE_PAIRS) + len(CONFLICT_PAIRS) + len(UNRELATED_PAIRS) >= 40


def one(text: str, **expected):
    found = [q for q in extract_quantities(text) if q.role not in (CI_LEVEL,)]
    assert len(found) == 1, found
    for name, value in expected.items():
        actual = getattr(found[0], name)
        if isinstance(value, float):
            assert actual == pytest.approx(value, rel=1e-6), (name, actual)
        else:
            assert actual == value, (name, actual)
    return found[0]


def test_surface_forms_of_proportions() -> None:
    one("43 percent of them", value=43.0, kind=PERCENT)
    one("43.2% of them", value=43.2, kind=PERCENT, tolerance=0.05)
    one("one in five of them", value=20.0, kind=PERCENT, bound=APPROX)
    one("1 out of every 4 adults", value=25.0, kind=PERCENT)
    one("two-thirds of adults", value=200 / 3, kind=PERCENT)
    one("a third of adults", value=100 / 3, kind=PERCENT)
    one("half of the adults", value=50.0, kind=PERCENT)
    one("5‰ of adults", value=0.5, kind=PERCENT)
    one("12 per 100,000 adults", value=0.012, kind=PERCENT)
    one("3 per cent of adults", value=3.0, kind=PERCENT)


def test_bounds_ranges_and_intervals() -> None:
    assert one("more than 0.3% of GDP", bound=LOWER).interval()[0] == pytest.approx(0.3)
    one("at least 40% of cases", bound=LOWER)
    one("no more than 5% of cases", bound=UPPER)
    one("almost 50% of cases", bound=APPROX)
    ranged = one("10–20% of cases", low=10.0, high=20.0, value=15.0)
    assert ranged.interval() == (9.5, 20.5)
    one("between 10 and 20 percent of cases", low=10.0, high=20.0)
    ratio = one("OR 1.5 (95% CI 1.2–1.9)", value=1.5, kind=RATIO, subtype="or")
    assert ratio.ci == (1.2, 1.9)
    one("OR 0.7 [95% CI, 0.58, 0.84]", value=0.7, ci=(0.58, 0.84))
    one("a hazard ratio of 0.8", kind=RATIO, subtype="hr")
    one("a 2.5-fold increase", kind=RATIO, value=2.5, subtype="fold")
    one("the risk doubled", kind=RATIO, value=2.0)
    # "from A to B" is a change between two values, not a range.
    assert [q.value for q in extract_quantities("rose from 10% to 20% of cases")] == [10.0, 20.0]


def test_words_units_years_and_sample_sizes() -> None:
    one("seven cities", value=7.0, kind=COUNT, head=frozenset({"citi"}))
    one("a dozen sites", value=12.0, kind=COUNT)
    one("twenty-five patients", value=25.0)
    one("two hundred participants", value=200.0)
    one("1.2 million people", value=1_200_000.0)
    one("two weeks of follow-up", value=14.0, kind=DURATION)
    one("48 hours of follow-up", value=2.0, kind=DURATION)
    one("collected in 2020", kind=YEAR)
    one("the cohort (n = 104)", kind=COUNT, role=SAMPLE_SIZE, value=104.0)
    one("differed (p < 0.05)", role=P_VALUE)
    # Digits that are part of a name are not numbers.
    assert extract_quantities("COVID-19 and SARS-CoV-2") == ()
    # "one" as a pronoun is not a number.
    assert extract_quantities("one of the main drivers of transmission") == ()


def test_cues_numbers_unchanged_by_the_shared_numeral_parser() -> None:
    assert numbers("In 1,840 segments, 0,5 and 43.2% of COVID-19 cases; thirty; 1.2.3") == {
        "1840", "0.5", "43.2", "30"
    }  # fmt: skip


def test_several_sentences_one_that_states_the_figure_wins() -> None:
    claim = "At least 40% of transmission occurred before symptom onset."
    sentences = [
        "In one city, 12% of transmission occurred before symptom onset.",
        "We estimate that 44% of transmission occurred before symptom onset.",
        "The study ran from 2020 to 2021.",
    ]
    assert compare_with_sentences(claim, sentences).relation == AGREE
    assert compare_with_sentences(claim, sentences[:1]).relation == CONFLICT
    assert compare_with_sentences(claim, sentences[2:]).relation == UNRELATED
    assert compare_with_sentences(claim, []).unrelated == 1
    assert compare_with_sentences("No number here.", sentences).relation is None


def test_the_demo_gdp_claim_finds_no_figure_in_its_cited_source() -> None:
    """The demo's "more than 0.3% of regional GDP [5]": no sentence of source 5 states it."""
    from pathlib import Path

    from citeproof.text.sentences import split_sentences

    source = (
        Path(__file__).resolve().parents[2]
        / "samples"
        / "demo"
        / "sources"
        / "5-rotterdam-network.md"
    ).read_text(encoding="utf-8")
    claim = (
        "The economic cost of the heat island is considerable: lost labour productivity during "
        "heatwaves has been estimated at more than 0.3% of regional GDP."
    )
    sentences = [source[start:end] for start, end in split_sentences(source)]
    comparison = compare_with_sentences(claim, sentences)
    assert [m.claim.text for m in comparison.matches] == ["0.3%"]
    assert comparison.relation == UNRELATED
