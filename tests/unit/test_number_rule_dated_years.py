"""CP201 number-conflict on a changed year of a date ("by May 2023" for the source's "as of
9 May 2021", issue 25; twelve misses of the build seeds 3, 11, 13, 97, 7019, 424242). A year
conflicts only with words near both numbers or a month near each; "May" is a stop word, so
"May 2023" showed no month, and "by July 2021, 2 months after" was read as a list of months
(2,021 months). The content rules now mark the year of a date (`source.DATED`), and the
shared reading takes a year after a month for no item of a list. Failed before."""

from __future__ import annotations

from citeproof.retriever.content_rules import SourceText
from citeproof.retriever.content_rules.source import DATED, read_quantities
from citeproof.text.quantities import DURATION, YEAR, extract_quantities
from tests.unit.content_rules_support import conflicts, passage

REGISTRY = SourceText.from_pages(
    [
        "Reporting practices differed between national surveillance systems.",
        "Worldwide, as of 09:30 GMT, 9 May 2021, 133,552,774 confirmed cases had been notified, "
        "including 2,894,295 deaths.",
        "Most infections were notified by a handful of countries.",
    ]
)
REGISTRY_EVIDENCE = [passage(REGISTRY, "Worldwide", 1)]

TOWN = SourceText.from_pages(
    [
        "The port town of Riverside saw one of the earliest outbreaks in the region.",
        "Testing of stored plasma showed that by July 2021, 2 months after the first wave "
        "peaked in Riverside, 38% of the residents carried antibodies to the virus.",
        "Adjusting for waning antibodies, we estimate that 58% had been infected in July, "
        "rising to 80% in November.",
    ]
)
TOWN_EVIDENCE = [passage(TOWN, "stored plasma", 1), passage(TOWN, "Adjusting", 2)]


def test_a_year_after_a_month_is_a_date_and_no_item_of_a_list() -> None:
    """ "by July 2021, 2 months after": the year of a date, not 2,021 months."""
    year, months = extract_quantities("by July 2021, 2 months after the first wave")[:2]
    assert (year.kind, year.value) == (YEAR, 2021.0)
    assert (months.kind, months.text) == (DURATION, "2 months")
    for dated in ("by May 2023 it", "as of 9 May 2021, it", "on May 9, 2021, it", "in May of 2021"):
        [year] = [q for q in read_quantities(dated) if q.kind == YEAR]
        assert (year.kind, year.subtype) == (YEAR, DATED), dated
    [year] = read_quantities("in 2021 it")
    assert year.subtype is None


def test_a_changed_year_of_a_date_conflicts() -> None:
    claim = "By May {} many millions of people had caught the virus worldwide."
    assert conflicts(REGISTRY, claim.format(2023), REGISTRY_EVIDENCE) == [("2023", "2021")]
    assert conflicts(REGISTRY, claim.format(2021), REGISTRY_EVIDENCE) == []


def test_a_changed_year_conflicts_with_the_date_of_another_aligned_sentence() -> None:
    claim = (
        "Researchers estimated that four in five residents of Riverside were infected by "
        "November of {}."
    )
    assert conflicts(TOWN, claim.format(2018), TOWN_EVIDENCE) == [("2018", "2021")]
    assert conflicts(TOWN, claim.format(2021), TOWN_EVIDENCE) == []


def test_a_year_the_source_states_a_year_alone_or_a_cited_year_is_no_conflict() -> None:
    source = SourceText.from_pages(
        [
            *(REGISTRY.sentence_text(i) for i in range(len(REGISTRY.sentences))),
            "The registry was extended to vaccination records in 2023.",
        ]
    )
    claim = "By May 2023 many millions of people had caught the virus worldwide."
    assert conflicts(source, claim, [passage(source, "Worldwide", 1)]) == []
    claim = "Many millions of people had caught the virus by 2023."
    assert conflicts(REGISTRY, claim, REGISTRY_EVIDENCE) == []
    claim = "By May many millions of people had caught the virus worldwide (Lee, 2023)."
    assert conflicts(REGISTRY, claim, REGISTRY_EVIDENCE) == []
