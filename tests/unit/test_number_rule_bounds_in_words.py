"""CP201 number-conflict on a bound written in words (issue 25, a false alarm of a scratch
check): "more than a hundred million infections" conflicted with the source's "133,552,774
confirmed cases". The article between the cue and a number in words ("more than a hundred",
"over a million", "about a thousand") hid the cue, so the claim read as exactly 100,000,000.
It is now the lower bound that the source's figure satisfies. Failed before."""

from __future__ import annotations

from citeproof.retriever.content_rules import SourceText
from citeproof.text.quantities import APPROX, EXACT, LOWER, extract_quantities
from tests.unit.content_rules_support import conflicts, passage

TALLY = SourceText.from_pages(
    [
        "National registries reported with differing delays.",
        "Globally, by 12 April 2021, 133,552,774 confirmed cases had been reported, "
        "among them 2,894,295 deaths.",
        "A few countries reported most of the infections.",
    ]
)
EVIDENCE = [passage(TALLY, "Globally", 1)]


def test_a_cue_before_an_article_and_a_number_in_words_bounds_it() -> None:
    [hundred_million] = extract_quantities("more than a hundred million infections")
    assert (hundred_million.bound, hundred_million.value) == (LOWER, 1e8)
    [million] = extract_quantities("over a million visits")
    assert million.bound == LOWER
    [thousand] = extract_quantities("about a thousand households")
    assert thousand.bound == APPROX
    # An article before digits is no number word: "a 10% rise" keeps its own reading.
    [rise] = extract_quantities("after a 10% rise")
    assert rise.bound == EXACT


def test_a_lower_bound_in_words_that_the_source_meets_is_no_conflict() -> None:
    claim = "Globally there had been more than a hundred million confirmed cases by April 2021."
    assert conflicts(TALLY, claim, EVIDENCE) == []
