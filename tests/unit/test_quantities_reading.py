"""How `citeproof.text.quantities` reads numbers the seeded findings benchmark (and real
claims of Citation-Integrity train) showed it misreading; each case failed before its fix.

The number rule (CP201) and the judge read quantities with this module, so a misreading is a
false conflict or a missed one for both."""

from __future__ import annotations

from citeproof.text.quantities import (
    APPROX,
    CI_LEVEL,
    COUNT,
    LOWER,
    RATIO,
    UPPER,
    VALUE,
    YEAR,
    extract_quantities,
    values_agree,
)


def only(text: str, number: str):
    [quantity] = [q for q in extract_quantities(text) if q.text.startswith(number)]
    return quantity


def test_a_year_is_exact_not_a_round_figure() -> None:
    # "2020" ended in a zero and was read as rounded to the tens: it admitted 2016-2024, so a
    # claim's "1 May 2024" agreed with the source's "May 1, 2020".
    claimed = only("the FDA issued an authorization on 1 May 2024.", "2024")
    stated = only("issued an Emergency Use Authorization on May 1, 2020 (modified)", "2020")
    assert (claimed.kind, stated.kind) == (YEAR, YEAR)
    assert stated.tolerance == 0.5
    assert not values_agree(claimed, stated)
    # Round figures that are no years stay rounded.
    assert values_agree(only("some 8,000 tests", "8,000"), only("8,276 tests", "8,276"))


def test_the_word_or_names_no_odds_ratio() -> None:
    # "55 years or younger than in older individuals, 7" read the 7 as an odds ratio.
    assert (
        only("persons 55 years or younger than in older individuals, 7 of them", "7").kind == COUNT
    )
    assert only("the risk was higher (OR 2.3) in men", "2.3").kind == RATIO


def test_a_ratio_named_before_a_colon() -> None:
    # "(RR: 0.30; ...)": the colon ended the search for the ratio's name.
    assert (
        only("remdesivir reduced mortality by 70% (RR: 0.30; 95% CI 0.14-0.64)", "0.30").kind
        == RATIO
    )


def test_bounds_written_after_the_number() -> None:
    text = "higher among people aged 55 years or younger than among those 65 or older"
    assert only(text, "55").bound == UPPER
    assert only(text, "65").bound == LOWER


def test_a_tilde_operator_approximates() -> None:
    # "∼50%" (U+223C, as PDFs print it) was read as an exact 50%, conflicting with 52.5%.
    assert only("∼50% of adults achieve the targets", "50").bound == APPROX


def test_any_level_before_ci_is_a_confidence_level() -> None:
    # "82% CI" (a level copied wrong) was a percentage value of the claim.
    assert only("reduced mortality (RR 0.30; 82% CI 0.14-0.64)", "82").role == CI_LEVEL
    assert only("95% confidence interval 1.2 to 1.9", "95").role == CI_LEVEL
    # A share that happens to precede the abbreviation's words in prose is still a value.
    assert only("80% confident that it works", "80").role == VALUE
