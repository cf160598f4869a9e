"""What a finding says: the rule that fired, what was expected and found, and the evidence.

A finding is a fact the reader can check in the text it shows (a quotation and the source's
closest passage, two numbers and the sentence, the entry's fields and the attached PDF's). Rules
(code, slug, default severity, help) live in the pipeline contract beside the labels; this is the
payload every producer writes (the planner, the retriever, reference verification), the
`findings` table stores (migration 0016) and every report format renders.

Fingerprints key a baseline (`citeproof check --baseline`): a finding is "the same" across
runs when its rule, its subject (the citing sentence and marker, or the entry) and what it
found are the same, whatever else in the thesis changed (page numbers, ordinals, other text).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from typing import Final

import msgspec

from citeproof.pipeline import RULES_BY_CODE, RULES_BY_SLUG, SEVERITIES, Rule

# Where a piece of evidence comes from.
FROM_SOURCE_TEXT: Final = "source"  # the linked document's text
FROM_SOURCE_METADATA: Final = "source-metadata"  # its first page, PDF metadata, printed DOI
FROM_REFERENCE_LIST: Final = "reference-list"  # the thesis's own list
FROM_THESIS: Final = "thesis"  # the thesis's text
# Scholarly indexes and retraction data name themselves ("openalex", "crossref",
# "retraction-watch"): the producer that asked them writes the name.

FINGERPRINT_CHARS: Final = 16
# Bump when `fingerprint` changes what it hashes or how: a baseline written under another
# version is refused as stale (`citeproof check --baseline`) instead of matching nothing.
FINGERPRINT_VERSION: Final = 1


class Evidence(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One piece of text that proves the finding, and where it is."""

    origin: str
    text: str | None = None  # verbatim: a source sentence, a passage, an entry
    page: int | None = None  # 1-based page index in that document (the PDF's own numbering)
    printed_page: str | None = None  # the page number printed there, when it differs
    document_id: str | None = None
    url: str | None = None  # an index record, a retraction notice


class Difference(msgspec.Struct, frozen=True, kw_only=True):
    """One field that differs: what the writer has, what the other side has."""

    field: str  # "title", "year", "first_author", "doi", "quote", "number", "page"
    expected: str  # the thesis's (the claim, the entry)
    found: str  # the source's (its text, its metadata, the index's record)


class Finding(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One rule that fired on one citation or one reference entry."""

    rule: str  # the rule's code, "CP101"
    message: str  # one line a person understands
    # The configured severity (the rule's default unless re-levelled); None = the default.
    severity: str | None = None
    expected: str | None = None
    found: str | None = None
    differences: list[Difference] = []
    evidence: list[Evidence] = []
    # Character span within the claim text the finding points at (a quotation, a number).
    claim_span: tuple[int, int] | None = None
    # Whatever distinguishes two findings of one rule on one subject (the quotation, the
    # number); part of the fingerprint. Empty when the rule fires once per subject.
    key: str = ""

    @property
    def spec(self) -> Rule:
        return RULES_BY_CODE[self.rule]

    @property
    def slug(self) -> str:
        return RULES_BY_CODE[self.rule].slug

    @property
    def level(self) -> str:
        return self.severity or RULES_BY_CODE[self.rule].severity


def rule_for(name: str) -> Rule:
    """A rule by its code ("CP101", any case) or slug ("quote-not-found"); KeyError otherwise."""
    return RULES_BY_CODE.get(name.upper()) or RULES_BY_SLUG[name.lower()]


# The rules' documentation, one heading per rule. The project publishes no web site of its own,
# so reports and SARIF name the file's path in the citeproof source tree; change it here when the
# docs get a public address.
RULES_DOC: Final = "docs/rules.md"


def rule_anchor(rule: Rule) -> str:
    """The rule's anchor in docs/rules.md, whose heading for it is `## CP101 quote-not-found`
    (GitHub's anchor for that heading): SARIF's helpUri and the reports link there."""
    return f"{rule.code.lower()}-{rule.slug}"


def rule_doc(rule: Rule) -> str:
    """Where the rule is documented: RULES_DOC#anchor."""
    return f"{RULES_DOC}#{rule_anchor(rule)}"


def severity_rank(severity: str) -> int:
    """0 for the worst (error): sorts findings worst first."""
    return SEVERITIES.index(severity)


_SPACE: Final = re.compile(r"\s+")


def normalise_for_fingerprint(text: str) -> str:
    """Case, Unicode form and spacing do not change what a sentence says."""
    return _SPACE.sub(" ", unicodedata.normalize("NFKC", text)).strip().casefold()


def citation_subject(claim: str, marker: str) -> str:
    """What a citation's findings and verdict are about, for their fingerprints: the citing
    sentence and its marker."""
    return f"{claim} {marker}"


def entry_subject(raw: str | None, label: str | None) -> str:
    """What a reference-list entry's findings are about: the entry as written (its label when
    the list gave no text)."""
    return raw or label or ""


def fingerprint(rule_or_label: str, subject: str, key: str = "") -> str:
    """A finding's (or a verdict's) identity across runs: the rule code or verdict label, the
    subject (citing sentence + marker, or the entry's text) and the finding's own key, each
    normalised. Editing other text, reordering, or renumbering pages keeps it."""
    digest = hashlib.sha256()
    for part in (rule_or_label, normalise_for_fingerprint(subject), normalise_for_fingerprint(key)):
        digest.update(part.encode())
        digest.update(b"\x1f")
    return digest.hexdigest()[:FINGERPRINT_CHARS]
