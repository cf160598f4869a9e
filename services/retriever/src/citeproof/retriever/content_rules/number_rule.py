"""Rule CP201 (and CP202, off by default): a claim's numbers against the source's.

CP201 number-conflict (error): the source sentences that best match the claim are read in order;
the first that states a comparable quantity (same unit kind and role, a content word near both
numbers: `citeproof.text.quantities`, the judge's own reading) decides. If it states a different
value, the rest of the source is searched for any sentence agreeing with the claim's value
(rounded: "43 percent" for 43.2%; bounded: "more than 40%"; in words: "two thirds"); only when
none does is the conflict reported, with both numbers and the sentence.

CP202 number-not-in-source (warning, `ContentRulesConfig.number_not_in_source`): a specific
value (a figure with two or more significant digits, or with decimals) that no sentence of the
source states with the same unit kind, rounded or not.
"""

from __future__ import annotations

from collections.abc import Sequence

from citeproof.contracts.findings import FROM_SOURCE_TEXT, Difference, Evidence, Finding
from citeproof.pipeline import NUMBER_CONFLICT, NUMBER_NOT_IN_SOURCE
from citeproof.retriever.content_rules.config import ContentRulesConfig
from citeproof.retriever.content_rules.pages import printed_if_different
from citeproof.retriever.content_rules.source import SourceText
from citeproof.text.quantities import (
    AGREE,
    CONFLICT,
    COUNT,
    EXACT,
    SAMPLE_SIZE,
    VALUE,
    YEAR,
    Quantity,
    QuantityMatch,
    compare_quantities,
    extract_quantities,
)

# A value this specific is not a coincidence of wording ("3 groups", "2 weeks" are not).
MIN_SPECIFIC_DIGITS = 2


def claim_values(claim: str) -> list[Quantity]:
    """The values a claim states (not its CI bounds, p-values or CI levels)."""
    return [q for q in extract_quantities(claim) if q.role in (VALUE, SAMPLE_SIZE)]


def _match_for(claim: str, sentence: str, quantity: Quantity) -> QuantityMatch | None:
    for match in compare_quantities(claim, sentence).matches:
        if match.claim.start == quantity.start:
            return match
    return None


def _overlaps(quantity: Quantity, other: Quantity) -> bool:
    low, high = quantity.interval()
    other_low, other_high = other.interval()
    return other_low <= high and low <= other_high


def _agreeing_sentence(
    source: SourceText, claim: str, quantity: Quantity, config: ContentRulesConfig
) -> bool:
    """Some sentence of the source states the claim's value for the same quantity."""
    candidates = [
        index
        for index, other in source.quantities()
        if other.kind == quantity.kind
        and other.role == quantity.role
        and _overlaps(quantity, other)
    ]
    for index in list(dict.fromkeys(candidates))[: config.max_agreement_candidates]:
        match = _match_for(claim, source.sentence_text(index), quantity)
        if match is not None and match.relation == AGREE:
            return True
    return False


def _evidence(source: SourceText, sentence: int) -> Evidence:
    page = source.sentence_pages[sentence]
    return Evidence(
        origin=FROM_SOURCE_TEXT,
        text=source.sentence_text(sentence),
        page=page if source.page_starts else None,
        printed_page=printed_if_different(source, page),
        document_id=source.document_id,
    )


def _is_specific(quantity: Quantity) -> bool:
    digits = sum(char.isdigit() for char in quantity.text.split(".")[0])
    decimals = "." in quantity.text or "," in quantity.text
    return (
        quantity.bound == EXACT
        and quantity.kind not in (YEAR, COUNT)
        and (digits >= MIN_SPECIFIC_DIGITS or decimals)
    )


def check_numbers(
    source: SourceText,
    claim: str,
    values: Sequence[Quantity],
    ranked_sentences: Sequence[int],
    config: ContentRulesConfig,
) -> list[Finding]:
    """Findings for the claim's ``values`` (already attributed to this citation); ``claim`` is
    the citing sentence with its markers blanked out; ``ranked_sentences`` the source's
    sentences best first."""
    findings: list[Finding] = []
    top = list(ranked_sentences[: config.number_sentences])
    for quantity in values:
        decided: tuple[int, QuantityMatch] | None = None
        for sentence in top:
            match = _match_for(claim, source.sentence_text(sentence), quantity)
            if match is not None and match.relation in (AGREE, CONFLICT):
                decided = (sentence, match)
                break
        if decided is not None and decided[1].relation == CONFLICT:
            sentence, match = decided
            if match.evidence is None or _agreeing_sentence(source, claim, quantity, config):
                continue
            theirs = match.evidence.text
            findings.append(
                Finding(
                    rule=NUMBER_CONFLICT.code,
                    message=(
                        f"The claim says {quantity.text} where the source's matching sentence "
                        f"says {theirs}."
                    ),
                    expected=quantity.text,
                    found=theirs,
                    differences=[Difference(field="number", expected=quantity.text, found=theirs)],
                    evidence=[_evidence(source, sentence)],
                    claim_span=(quantity.start, quantity.end),
                    key=quantity.text,
                )
            )
        elif (
            decided is None
            and config.number_not_in_source
            and _is_specific(quantity)
            and not any(
                other.kind == quantity.kind and _overlaps(quantity, other)
                for _, other in source.quantities()
            )
        ):
            findings.append(
                Finding(
                    rule=NUMBER_NOT_IN_SOURCE.code,
                    message=f"The claim's {quantity.text} is stated nowhere in the source.",
                    expected=quantity.text,
                    claim_span=(quantity.start, quantity.end),
                    key=quantity.text,
                )
            )
    return findings
