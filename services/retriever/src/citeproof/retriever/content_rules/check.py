"""All content rules for one citation: its quotations, its numbers, its pinpoint page.

A sentence citing several works ("A found “…” [3], while B reports 20% [5]") gives each its own:
a quotation or a number belongs to the first marker after it (else the last before it). When
that marker cites several works at once ("[3, 5]"), a missing quotation or a differing number
may be the other work's, so only what verifies is reported (quote-verified, quote-wrong-page).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from citeproof.contracts.findings import Finding
from citeproof.retriever.content_rules.config import ContentRulesConfig
from citeproof.retriever.content_rules.evidence import RankedPassage, ranked_sentences
from citeproof.retriever.content_rules.folding import folded_words
from citeproof.retriever.content_rules.number_rule import check_numbers, claim_values
from citeproof.retriever.content_rules.page_rule import check_page
from citeproof.retriever.content_rules.pages import cited_pages
from citeproof.retriever.content_rules.quotations import find_quotations
from citeproof.retriever.content_rules.quote_rule import check_quotation
from citeproof.retriever.content_rules.source import SourceText, content_stems
from citeproof.text.quantities import normalise_numerals

DEFAULT_CONFIG = ContentRulesConfig()

Span = tuple[int, int]


@dataclass(frozen=True)
class CitationInput:
    """One citation as the content rules see it."""

    # The citing sentence, verbatim.
    claim: str
    # This citation's marker within `claim`; None when the claim carries no marker (it is then
    # wholly this citation's).
    marker: Span | None = None
    # Every citation marker within `claim`, once per cited work: a marker citing two works is
    # listed twice. This citation's own marker included.
    markers: Sequence[Span] = ()
    # Printed page numbers of the pinpoint (`Citation.pinpoint_pages`).
    pinpoint_pages: Sequence[str] = ()
    # The sentence before (a quotation may have begun there).
    context: str = ""
    # The block quotation the marker closes.
    block_quote: str | None = None
    # The retriever's best passages for the claim in this source, best first.
    evidence: Sequence[RankedPassage] = ()


def _owner(span: Span, markers: Sequence[Span]) -> Span | None:
    distinct = sorted(set(markers))
    after = [marker for marker in distinct if marker[0] >= span[1]]
    if after:
        return after[0]
    before = [marker for marker in distinct if marker[1] <= span[0]]
    return before[-1] if before else None


def _attribution(citation: CitationInput, span: Span | None) -> tuple[bool, bool]:
    """(this citation's, this citation's alone) for a quotation or number at ``span``."""
    if citation.marker is None:
        return True, True
    owner = citation.marker if span is None else _owner(span, citation.markers)
    if owner is None:
        owner = citation.marker
    works = sum(1 for marker in citation.markers if marker == owner)
    return owner == citation.marker, works <= 1


# Numbers in square brackets are citation markers (or editorial notes), never the claim's
# quantities, even where the parser did not report them as markers.
_BRACKETED_NUMBERS = re.compile(r"\[\s*\d{1,4}(?:\s*[,;–-]\s*\d{1,4})*\s*\]")


# The writer as the subject: "we found", "We suggest".
_FIRST_PERSON = re.compile(r"\b[Ww]e\b")
# ... except where the writer says what they took from the source: "We downloaded raw counts
# tables from a transcriptomics study of SARS-CoV-2 infected (MOI 2, 24 hour incubation)
# cells" - what follows "from" describes the cited study.
_TAKEN_FROM = re.compile(
    r"\b[Ww]e\s+(?:downloaded|obtained|retrieved|accessed|extracted)\b[^.;]*?\bfrom\b"
)


def _source_described(claim: str) -> int:
    """Where the claim's numbers start to be the source's: 0, unless the writer is the subject
    ("we intersected ..., resulting in 911 genes", "we suggest ... above the age of 80": the
    writer's own numbers), where only numbers after "we downloaded/obtained ... from" count
    (they describe what was taken), and none if the writer also says anything else."""
    if not _FIRST_PERSON.search(claim):
        return 0
    taken = list(_TAKEN_FROM.finditer(claim))
    if len(taken) != len(_FIRST_PERSON.findall(claim)):
        return len(claim) + 1
    return taken[0].end()


def _blanked(claim: str, spans: Sequence[Span]) -> str:
    """The claim with these spans replaced by spaces (offsets unchanged)."""
    characters = list(claim)
    for start, end in spans:
        for index in range(max(0, start), min(end, len(characters))):
            characters[index] = " "
    return "".join(characters)


def check_citation(
    source: SourceText, citation: CitationInput, config: ContentRulesConfig = DEFAULT_CONFIG
) -> list[Finding]:
    """The quotation, number and page findings of one citation against its linked source."""
    markers = list(citation.markers)
    if citation.marker is not None and citation.marker not in markers:
        markers.append(citation.marker)
    citation = CitationInput(
        claim=citation.claim,
        marker=citation.marker,
        markers=markers,
        pinpoint_pages=citation.pinpoint_pages,
        context=citation.context,
        block_quote=citation.block_quote,
        evidence=citation.evidence,
    )
    # Without its markers, "[12, p. 5]" and "Smith (2020)" are no part of a quotation or a
    # number of the claim; numbers in square brackets are citations of the source's own inside
    # a quotation (kept there), but no quantities of the claim.
    claim = _blanked(citation.claim, markers)
    bracketed = [match.span() for match in _BRACKETED_NUMBERS.finditer(claim)]
    cited = cited_pages(source, citation.pinpoint_pages) if citation.pinpoint_pages else None
    findings: list[Finding] = []

    # Where the citation's text is in the source is the quotation rule's to say when it found
    # the quotation (CP102 on another page) or reported it not found (CP101, with the closest
    # passage and its page): the page rule would judge the quoted words as a paraphrase.
    quotation_judged = False
    gaps = (config.max_ellipsis_words, config.max_insertion_words)
    for quotation in find_quotations(claim, citation.context, gaps, citation.block_quote):
        mine, alone = _attribution(citation, quotation.span)
        if not mine:
            continue
        outcome = check_quotation(source, quotation, cited, config, sole_work=alone)
        findings.extend(outcome.findings)
        quotation_judged = quotation_judged or outcome.located or bool(outcome.findings)

    stems = content_stems(folded_words(claim))
    coverage = source.coverage(stems)
    ranks = ranked_sentences(source.text, source.sentences, citation.evidence)
    # "1·3 million", "50 000" read as written; offsets unchanged.
    numerals = normalise_numerals(_blanked(claim, bracketed))
    values = [
        quantity
        for quantity in claim_values(numerals)
        if _attribution(citation, (quantity.start, quantity.end)) == (True, True)
    ]
    values = [quantity for quantity in values if quantity.start >= _source_described(claim)]
    if values:
        findings.extend(check_numbers(source, numerals, values, coverage, config, ranks))

    if not quotation_judged and _attribution(citation, None)[0]:
        findings.extend(check_page(source, stems, coverage, cited, config, citation.evidence))
    return findings
