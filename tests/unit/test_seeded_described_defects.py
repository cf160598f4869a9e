"""Defects the seeded findings benchmark found and docs/findings-benchmark.md described without
fixing them (its "Defects found" list), one or more tests each; each failed before its fix."""

from __future__ import annotations

import pytest

from citeproof.parser.layout import remove_page_furniture
from citeproof.parser.thesis.fields import parse_entry

HEADER = "COVID-19 and its treatment: a literature review"


def _page(number: int, body: list[str]) -> list[str]:
    return [str(number), HEADER, *body]


def _prose(page: int, count: int) -> list[str]:
    return [
        f"Line {n} of the text on page {page} goes on about masks and ventilation"
        for n in range(count)
    ]


def test_a_list_line_at_one_page_foot_and_the_next_page_top_is_no_running_header() -> None:
    # A work listed twice (the second copy with its title in title case): the first copy's
    # first line fell at the foot of page 3, the second's at the top of page 4. In a 4-page
    # thesis two occurrences at page edges made it a "running header": both lines went, and
    # the entries around them were merged into their neighbours.
    first = "Søndergaard, É., L. Hashemi, E. Rossi, 2011, Reduction of secondary transmission of"
    second = "Søndergaard, É., L. Hashemi, E. Rossi, 2011, Reduction of Secondary Transmission of"
    pages = [
        _page(1, _prose(1, 10)),
        _page(2, _prose(2, 10)),
        _page(3, [*_prose(3, 10), first, "SARS-CoV-2 in households by face mask use", "study"]),
        _page(4, [second, "SARS-CoV-2 in Households by Face Mask Use", *_prose(4, 6)]),
    ]
    cleaned = remove_page_furniture(pages)
    assert first in cleaned[2]
    assert second in cleaned[3]
    # The real running header, at the top of every page, still goes.
    assert all(HEADER not in lines for lines in cleaned)


def test_entry_starts_at_the_tops_of_two_pages_are_kept() -> None:
    # "[10]" and "[27]" name one work listed twice; both began a page. Digits aside the two
    # lines are one, repeated at two page tops: a running header, the parser said, and the
    # list lost "[10]" (it ended at [9] before BRACKETED_LABEL_GAP). The list's layout reads
    # them as entry starts, which no running header is.
    tenth = "[10] Rossi A, Lindqvist P. The average lifetime of the virus in the air."
    repeat = "[27] Rossi A, Lindqvist P. The average lifetime of the virus in the air."
    pages = [
        _page(1, _prose(1, 10)),
        _page(2, [tenth, *_prose(2, 8)]),
        _page(3, _prose(3, 10)),
        _page(4, [repeat, *_prose(4, 8)]),
        _page(5, _prose(5, 10)),
    ]
    starts: list[list[str]] = [[], [tenth], [], [repeat], []]
    cleaned = remove_page_furniture(pages, entry_starts=starts)
    assert tenth in cleaned[1]
    assert repeat in cleaned[3]
    assert all(HEADER not in lines for lines in cleaned)


@pytest.mark.parametrize(
    ("entry", "title", "venue"),
    [
        # "US." was read as the initials "U. S." and the title ran on into the journal and its
        # article number: "... and the US. Frontiers in Immunology 65, e43807".
        (
            "Rossi, A., Lindqvist, P. (2020). The emergence of SARS-CoV-2 in Europe and the "
            "US. Frontiers in Immunology 65, e43807.",
            "The emergence of SARS-CoV-2 in Europe and the US",
            "Frontiers in Immunology",
        ),
        # Titles without a full stop (a comma or nothing before the journal): the volume,
        # issue and pages or article number are no part of the title.
        (
            "Rossi A, Lindqvist P, 2020, The emergence of SARS-CoV-2 in Wuhan, China, Journal of "
            "Infection, 3, e12345",
            "The emergence of SARS-CoV-2 in Wuhan, China",
            "Journal of Infection",
        ),
        (
            "Rossi, A. (2020) The emergence of SARS-CoV-2 in Europe and the US Frontiers in "
            "Immunology 65, e43807",
            "The emergence of SARS-CoV-2 in Europe and the US Frontiers in Immunology",
            None,
        ),
        # Years in a title are no volume.
        (
            "Rossi, A. (2020). Masks in 2019, 2020 and beyond. Journal of Infection 3(2), 1–9.",
            "Masks in 2019, 2020 and beyond",
            "Journal of Infection",
        ),
    ],
)
def test_an_article_number_is_no_part_of_the_title(
    entry: str, title: str, venue: str | None
) -> None:
    fields = parse_entry(entry)
    assert fields.title == title
    if venue is not None:
        assert fields.venue == venue
    assert fields.authors[:2] == ["Rossi", "Lindqvist"][: len(fields.authors[:2])]


def test_two_capitals_after_a_surname_are_still_its_initials() -> None:
    fields = parse_entry("Smith JP, Jones KL. A title of things. Vaccine. 2020;3(2):1-9.")
    assert fields.authors == ["Smith", "Jones"]
    assert fields.title == "A title of things"
