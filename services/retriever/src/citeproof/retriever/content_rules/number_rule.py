"""Rule CP201 (and CP202, off by default): a claim's numbers against the source's.

CP201 number-conflict (error). The source sentences that best match the claim are read in order
(at most `number_sentences`); the first that states a value of the same unit kind and role
(`citeproof.text.quantities`, the judge's own reading) decides, and reports a conflict only when
all of these hold - otherwise nothing is reported:
- it matches the claim well enough (`number_min_coverage` of the claim's content, IDF-weighted);
- the comparison is unambiguous: that sentence states one value of this kind, and so does the
  claim ("46% and 4% in type 1, 25% and 0.5% in type 2" pairs with nothing for sure);
- the two numbers could measure the same thing (the counted thing for counts, a content word
  near both for years: "a 2019 survey" against "in 2018, a survey");
- no sentence anywhere in the source states the claim's value (rounded: "43 percent" for 43.2%;
  bounded: "more than 40%"; in words: "two thirds") for a comparable quantity.
Measured on Citation-Integrity train: 3 of its 1,366 expert-accurate citations flagged; on
Check-COVID train, none of its supported claims, and 38 of 150 claims whose number was changed
(most of the rest are paraphrases whose matching sentence the claim shares few words with, or
changes that still agree with a range or bound of the source).

CP202 number-not-in-source (warning, `ContentRulesConfig.number_not_in_source`): a specific
value (two or more significant digits, or decimals; not a year or a count) that no sentence of
the source states with the same unit kind, rounded or not.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from citeproof.contracts.findings import FROM_SOURCE_TEXT, Difference, Evidence, Finding
from citeproof.pipeline import NUMBER_CONFLICT, NUMBER_NOT_IN_SOURCE
from citeproof.retriever.content_rules.config import ContentRulesConfig
from citeproof.retriever.content_rules.pages import printed_if_different
from citeproof.retriever.content_rules.source import SourceText
from citeproof.text.quantities import (
    COUNT,
    EXACT,
    LOWER,
    SAMPLE_SIZE,
    UPPER,
    VALUE,
    YEAR,
    Quantity,
    comparable,
    extract_quantities,
    meaningful,
    values_agree,
)

# A value this specific is not a coincidence of wording ("3 groups", "2 weeks" are not).
MIN_SPECIFIC_DIGITS = 2
# Words near both numbers before a source's bound counts as stating the claim's value.
MIN_SHARED_FOR_A_BOUND = 2


def claim_values(claim: str) -> list[Quantity]:
    """The values a claim states (not its CI bounds, p-values or CI levels); ``claim`` with its
    numerals normalised (`normalise_numerals`)."""
    return [q for q in extract_quantities(claim) if q.role in (VALUE, SAMPLE_SIZE)]


def _stated_somewhere(source: SourceText, quantity: Quantity, coverage: np.ndarray) -> bool:
    """Some sentence states the claim's value for a comparable quantity, near a word of the
    claim's number or in a sentence sharing words with the claim. A bound ("less than a fifth",
    "over 40%") admits many values: it counts only near two words of the claim's number."""
    for index, other in source.quantities():
        if not (
            other.role == quantity.role
            and comparable(quantity, other)
            and values_agree(quantity, other)
        ):
            continue
        shared = meaningful(quantity.context & other.context)
        if other.bound in (LOWER, UPPER):
            if len(shared) >= MIN_SHARED_FOR_A_BOUND:
                return True
        elif shared or coverage[index] > 0:
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


def _conflict(
    source: SourceText,
    quantity: Quantity,
    claim_kinds: Sequence[Quantity],
    sentence: int,
    stated: list[Quantity],
    coverage: np.ndarray,
    config: ContentRulesConfig,
) -> Quantity | None:
    """The sentence's value that conflicts with the claim's, when the comparison is sure."""
    if coverage[sentence] < config.number_min_coverage:
        return None
    if len(stated) != 1 or len(claim_kinds) != 1:
        return None
    theirs = stated[0]
    if not comparable(quantity, theirs) or values_agree(quantity, theirs):
        return None
    if quantity.kind == YEAR and not meaningful(quantity.context & theirs.context):
        return None
    return theirs


def check_numbers(
    source: SourceText,
    claim: str,
    values: Sequence[Quantity],
    coverage: np.ndarray,
    config: ContentRulesConfig,
) -> list[Finding]:
    """Findings for the claim's ``values`` (already attributed to this citation); ``claim`` is
    the citing sentence with its markers blanked out and numerals normalised; ``coverage`` the
    claim's share in each source sentence (`SourceText.coverage`)."""
    findings: list[Finding] = []
    everything = claim_values(claim)
    by_sentence: dict[int, list[Quantity]] = {}
    for index, other in source.quantities():
        by_sentence.setdefault(index, []).append(other)
    candidates = np.flatnonzero(coverage > 0)
    best = candidates[np.argsort(-coverage[candidates], kind="stable")][: config.number_sentences]
    for quantity in values:
        if _stated_somewhere(source, quantity, coverage):
            continue
        for sentence in (int(i) for i in best):
            stated = [
                other
                for other in by_sentence.get(sentence, [])
                if other.role == quantity.role and other.kind == quantity.kind
            ]
            if not stated:
                continue
            same_kind = [
                q for q in everything if q.role == quantity.role and q.kind == quantity.kind
            ]
            theirs = _conflict(source, quantity, same_kind, sentence, stated, coverage, config)
            if theirs is not None:
                findings.append(
                    Finding(
                        rule=NUMBER_CONFLICT.code,
                        message=(
                            f"The claim says {quantity.text} where the source's matching "
                            f"sentence says {theirs.text}."
                        ),
                        expected=quantity.text,
                        found=theirs.text,
                        differences=[
                            Difference(field="number", expected=quantity.text, found=theirs.text)
                        ],
                        evidence=[_evidence(source, sentence)],
                        claim_span=(quantity.start, quantity.end),
                        key=quantity.text,
                    )
                )
            break
        else:
            if (
                config.number_not_in_source
                and _is_specific(quantity)
                and not any(
                    other.kind == quantity.kind and values_agree(quantity, other)
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
