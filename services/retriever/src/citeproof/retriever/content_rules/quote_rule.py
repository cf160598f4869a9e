"""Rule CP101/CP102/CP103: a quotation must be in the cited source, on the cited page.

- CP103 quote-verified (info): found verbatim (forgiving rendering and the writer's
  conventions), on the cited page when a page is cited; the page is named.
- CP102 quote-wrong-page (warning): found, but on none of the cited pages; the page it is on is
  named.
- CP101 quote-not-found (error): nowhere in the source; the closest passage and the differing
  words are shown. Only for quotations long enough to be passages (`config`), not in Title Case
  (a name), and attributed to this citation alone: a quotation before a marker citing two works
  may come from the other one, so it is only ever verified, never reported missing.
"""

from __future__ import annotations

from dataclasses import dataclass

from citeproof.contracts.findings import FROM_SOURCE_TEXT, Difference, Evidence, Finding
from citeproof.pipeline import QUOTE_NOT_FOUND, QUOTE_VERIFIED, QUOTE_WRONG_PAGE
from citeproof.retriever.content_rules.config import ContentRulesConfig
from citeproof.retriever.content_rules.pages import CitedPages, printed_if_different, shown_page
from citeproof.retriever.content_rules.quotations import Quotation, is_title_case, word_count
from citeproof.retriever.content_rules.quote_match import (
    Closest,
    QuoteMatch,
    closest_passage,
    locate,
)
from citeproof.retriever.content_rules.source import SourceText

# Characters of a quotation repeated in a message; the finding's `expected` has all of it.
MESSAGE_QUOTE_CHARS = 60


@dataclass(frozen=True)
class QuoteOutcome:
    findings: list[Finding]
    # The quotation was found in the source: the page rule leaves the pages to this rule.
    located: bool


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MESSAGE_QUOTE_CHARS else text[: MESSAGE_QUOTE_CHARS - 1] + "…"


def _passage(source: SourceText, first_word: int, last_word: int) -> str:
    return source.text[source.words[first_word].start : source.words[last_word].end]


def _evidence(source: SourceText, first_word: int, last_word: int) -> Evidence:
    page = int(source.word_pages[first_word])
    return Evidence(
        origin=FROM_SOURCE_TEXT,
        text=_passage(source, first_word, last_word),
        page=page if source.page_starts else None,
        printed_page=printed_if_different(source, page),
        document_id=source.document_id,
    )


def checkable(quotation: Quotation, config: ContentRulesConfig) -> bool:
    words, content = word_count(quotation)
    return (
        words >= config.min_quote_words
        and content >= config.min_quote_content_words
        and not is_title_case(quotation)
    )


def check_quotation(
    source: SourceText,
    quotation: Quotation,
    cited: CitedPages | None,
    config: ContentRulesConfig,
    *,
    sole_work: bool,
) -> QuoteOutcome:
    if not checkable(quotation, config):
        return QuoteOutcome([], located=False)
    search = locate(source, quotation)
    key = " ".join(quotation.text.split())
    if search.matches:
        return QuoteOutcome([_found(source, quotation, search.matches, cited, key)], located=True)
    if not sole_work:
        return QuoteOutcome([], located=False)
    closest = search.case_only or closest_passage(source, quotation)
    return QuoteOutcome([_not_found(source, quotation, closest, config, key)], located=False)


def _found(
    source: SourceText,
    quotation: Quotation,
    matches: list[QuoteMatch],
    cited: CitedPages | None,
    key: str,
) -> Finding:
    on_cited = [m for m in matches if cited is not None and m.pages & cited.pages]
    match = (on_cited or matches)[0]
    page = min(match.pages)
    if cited is not None and (cited.pages or cited.outside) and not on_cited:
        where = shown_page(source, page)
        return Finding(
            rule=QUOTE_WRONG_PAGE.code,
            message=(
                f"The quotation “{_short(quotation.text)}” is on {where} of the source, not on "
                f"the cited {cited.describe()}."
            ),
            expected=cited.describe(),
            found=where,
            differences=[Difference(field="page", expected=cited.describe(), found=where)],
            evidence=[_evidence(source, match.first_word, match.last_word)],
            claim_span=quotation.span,
            key=key,
        )
    where = shown_page(source, page) if source.page_starts else "in the source"
    return Finding(
        rule=QUOTE_VERIFIED.code,
        message=f"The quotation “{_short(quotation.text)}” is in the source ({where}).",
        found=where,
        evidence=[_evidence(source, match.first_word, match.last_word)],
        claim_span=quotation.span,
        key=key,
    )


def _not_found(
    source: SourceText,
    quotation: Quotation,
    closest: Closest | None,
    config: ContentRulesConfig,
    key: str,
) -> Finding:
    if closest is None or closest.share < config.closest_min_share:
        return Finding(
            rule=QUOTE_NOT_FOUND.code,
            message=(
                f"The quotation “{_short(quotation.text)}” is not in the source, and no passage "
                "of the source is close to it."
            ),
            expected=quotation.text,
            claim_span=quotation.span,
            key=key,
        )
    passage = _passage(source, closest.first_word, closest.last_word)
    differences = [
        Difference(field="quote", expected=mine or "(nothing)", found=theirs or "(nothing)")
        for mine, theirs in closest.differences[: config.max_differences]
    ]
    where = shown_page(source, int(source.word_pages[closest.first_word]))
    described = "; ".join(
        f"“{d.expected}” where the source has “{d.found}”" for d in differences[:2]
    )
    return Finding(
        rule=QUOTE_NOT_FOUND.code,
        message=(
            f"The quotation “{_short(quotation.text)}” is not in the source as written; the "
            f"closest passage ({where}) differs: {described or 'in its wording'}."
        ),
        expected=quotation.text,
        found=passage,
        differences=differences,
        evidence=[_evidence(source, closest.first_word, closest.last_word)],
        claim_span=quotation.span,
        key=key,
    )
