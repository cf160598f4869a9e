"""The answer key of a seeded thesis: every citation and entry, what was done to it, and which
rule must report it.

An injected kind names the rule it must trigger (`EXPECTED`) and the rules it may trigger as
well without counting against anything (`TOLERATED`: a changed number inside a quotation is a
misquotation first, and may also be a number conflict). Untouched citations and entries are
correct by construction: any error or warning on them is a false alarm. Normal variations of an
entry (`VARIATIONS`) must produce no error and, in at most 2% of cases, a warning.
"""

from __future__ import annotations

from typing import Final

import msgspec

from citeproof.pipeline import (
    AMBIGUOUS_SUFFIX,
    DUPLICATE_ENTRY,
    MARKER_BEYOND_LIST,
    METADATA_DIFFERS,
    NUMBER_CONFLICT,
    NUMBER_NOT_IN_SOURCE,
    PAGE_MISMATCH,
    QUOTE_NOT_FOUND,
    QUOTE_VERIFIED,
    QUOTE_WRONG_PAGE,
    REFERENCE_MISSING_RULE,
    SOURCE_MISSING_RULE,
    UNCITED_ENTRY,
    WRONG_ATTACHMENT,
    Rule,
)

# Citation-level kinds.
MISQUOTE: Final = "misquote"  # a quotation with one word changed, a word dropped, a number changed
QUOTE_ELSEWHERE: Final = "quote-elsewhere"  # a verbatim quotation cited to another page
NUMBER_CHANGED: Final = "number-changed"  # digit swap, +-10-50%, another year
WRONG_PINPOINT: Final = "wrong-pinpoint"  # a paraphrase cited to a page without its evidence
SUFFIX: Final = "suffix"  # an a/b suffix dropped from a marker, or one the list lacks added
BEYOND_LIST: Final = "beyond-list"  # a numeric marker past the list's last number
CITATION_KINDS: Final = (
    MISQUOTE, QUOTE_ELSEWHERE, NUMBER_CHANGED, WRONG_PINPOINT, SUFFIX, BEYOND_LIST,
)  # fmt: skip
# Entry-level kinds.
SWAPPED: Final = "swapped"  # the entry's attachment is another entry's PDF
YEAR_OFF: Final = "year-off"  # the entry's year two or more years off the source's
AUTHOR_WRONG: Final = "author-wrong"  # another first author than the source's
UNCITED: Final = "uncited"  # an entry no citation names
DUPLICATE: Final = "duplicate"  # the same work a second time in the list
ENTRY_KINDS: Final = (SWAPPED, YEAR_OFF, AUTHOR_WRONG, UNCITED, DUPLICATE)
# Normal variation of an entry against its source: neither an error nor a warning.
VARIATION: Final = "variation"
VARIATIONS: Final = (
    "diacritics", "et-al", "full-names", "initials-only", "particle", "compound", "dashes",
    "subtitle", "preprint-year", "title-case",
)  # fmt: skip

EXPECTED: Final[dict[str, Rule]] = {
    MISQUOTE: QUOTE_NOT_FOUND,
    QUOTE_ELSEWHERE: QUOTE_WRONG_PAGE,
    NUMBER_CHANGED: NUMBER_CONFLICT,
    WRONG_PINPOINT: PAGE_MISMATCH,
    SUFFIX: AMBIGUOUS_SUFFIX,
    BEYOND_LIST: MARKER_BEYOND_LIST,
    SWAPPED: WRONG_ATTACHMENT,
    YEAR_OFF: METADATA_DIFFERS,
    AUTHOR_WRONG: METADATA_DIFFERS,
    UNCITED: UNCITED_ENTRY,
    DUPLICATE: DUPLICATE_ENTRY,
}
# What the content rules may report about a citation checked against another work's file.
_AGAINST_ANOTHER_FILE: Final = (
    QUOTE_NOT_FOUND, QUOTE_WRONG_PAGE, QUOTE_VERIFIED, NUMBER_CONFLICT, NUMBER_NOT_IN_SOURCE,
    PAGE_MISMATCH,
)  # fmt: skip
# Rules a kind may trigger besides its own. A citation whose marker names no entry is also a
# missing reference (CP401 is not added where CP413/CP415 says why, but tolerated), and its
# quotation (unchanged) may verify; the citations of a wrongly attached entry are not checked
# against the wrong file (CP402) - or, when CP311 misses it, they are, and what the content rules
# then report is their consequence, not a false alarm. A quotation cited to another page that
# the quotation rule does not check (a quotation in Title Case, a figure's caption) is checked as
# a paraphrase: the cited page holding nothing about it is a page mismatch, rightly.
TOLERATED: Final[dict[str, tuple[Rule, ...]]] = {
    MISQUOTE: (NUMBER_CONFLICT, NUMBER_NOT_IN_SOURCE),
    QUOTE_ELSEWHERE: (QUOTE_VERIFIED, PAGE_MISMATCH),
    NUMBER_CHANGED: (NUMBER_NOT_IN_SOURCE,),
    WRONG_PINPOINT: (),
    SUFFIX: (REFERENCE_MISSING_RULE, QUOTE_VERIFIED),
    BEYOND_LIST: (REFERENCE_MISSING_RULE,),
    SWAPPED: (METADATA_DIFFERS, SOURCE_MISSING_RULE, *_AGAINST_ANOTHER_FILE),
    YEAR_OFF: (),
    AUTHOR_WRONG: (),
    UNCITED: (),
    DUPLICATE: (),
}

# How a citation is written.
FORM_CLAIM: Final = "claim"  # a data set's claim, paraphrasing its source
FORM_QUOTE: Final = "quote"  # a quotation run into the sentence
FORM_BLOCK: Final = "block"  # a block quotation: a paragraph of its own after a colon


class CitationKey(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    # The sentence as printed, its marker included (superscript numbers as plain digits).
    sentence: str
    marker: str
    # The work it cites (its source's key), and the entry its marker names (None: none).
    work: str
    entry: int | None
    form: str
    origin: str
    pinpoint: str | None = None
    # PDF pages (from 0) of the source the evidence or quotation is printed on, and the ones
    # the pinpoint names.
    source_pages: tuple[int, ...] = ()
    cited_pages: tuple[int, ...] = ()
    kind: str | None = None
    variant: str | None = None
    # What was changed: "original -> changed" (for reading failures).
    detail: str = ""


class EntryKey(msgspec.Struct, frozen=True, kw_only=True):
    # Position in the printed list (0-based), its label ("[3]") or None, and its text.
    index: int
    label: str | None
    text: str
    work: str
    kind: str | None = None
    variant: str | None = None
    detail: str = ""
    # The PDF the library attaches to it (None: none).
    attachment: str | None = None


class ThesisKey(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    style: str
    citations: tuple[CitationKey, ...]
    entries: tuple[EntryKey, ...]
    # Source PDF file names of this thesis (uploaded with it) and its library's file name.
    sources: tuple[str, ...]
    library: str


def expected_rule(kind: str | None) -> Rule | None:
    return EXPECTED.get(kind) if kind else None


def tolerated_codes(kind: str | None) -> frozenset[str]:
    return frozenset(rule.code for rule in TOLERATED.get(kind or "", ()))
