"""The pipeline contract: the one definition of every name the services share.

Stage names, their queue tables and NOTIFY channels, every verdict label with its human name
and the groups the report, CLI and metrics use, and every finding rule (code, slug, severity,
help). Everything imports these; nothing spells the strings again (a test checks that each
channel name, label, rule code and slug is a string literal only here).
"""

from __future__ import annotations

from typing import Final, NamedTuple

# --- NOTIFY channels -------------------------------------------------------------------------
# A notification only means "look at this table now"; the payload is a hint, never data.
PARSE_CHANNEL: Final = "citeproof_parse"
RETRIEVE_CHANNEL: Final = "citeproof_retrieve"
JUDGE_CHANNEL: Final = "citeproof_judge"
# Reference verification against scholarly indexes (its own stage: network-bound, own limits).
VERIFY_CHANNEL: Final = "citeproof_verify"
# Progress of a run (payload: the run id), listened to by the API's progress streams.
EVENTS_CHANNEL: Final = "citeproof_events"
# A token was revoked (payload: the token id): the API ends that token's progress streams.
TOKENS_CHANNEL: Final = "citeproof_tokens"

# --- Stages ----------------------------------------------------------------------------------
PARSE_STAGE: Final = "parse"
PLAN_STAGE: Final = "plan"
RETRIEVE_STAGE: Final = "retrieve"
JUDGE_STAGE: Final = "judge"
# Looks a run's reference entries up in scholarly indexes, beside retrieval and judging
# (ADR 0024); the run completes when both are done.
VERIFY_STAGE: Final = "verify"
# In pipeline order.
STAGES: Final = (PARSE_STAGE, PLAN_STAGE, RETRIEVE_STAGE, JUDGE_STAGE, VERIFY_STAGE)
# A parser registers the isolation of its parsing children as the capability
# "parse:sandbox=<mode>" ("netns+uid", "shared-network+same-uid", ...); /readyz lists them.
SANDBOX_CAPABILITY_PREFIX: Final = f"{PARSE_STAGE}:sandbox="

# stage name -> queue table. Planning shares the retrieve channel with retrieval (one service).
STAGE_TABLES: Final = {
    PARSE_STAGE: "parse_items",
    PLAN_STAGE: "runs",
    RETRIEVE_STAGE: "retrieve_tasks",
    JUDGE_STAGE: "judge_tasks",
    VERIFY_STAGE: "verify_tasks",
}
# stage name -> the channel its workers listen on.
STAGE_CHANNELS: Final = {
    PARSE_STAGE: PARSE_CHANNEL,
    PLAN_STAGE: RETRIEVE_CHANNEL,
    RETRIEVE_STAGE: RETRIEVE_CHANNEL,
    JUDGE_STAGE: JUDGE_CHANNEL,
    VERIFY_STAGE: VERIFY_CHANNEL,
}

# --- Upload caps -----------------------------------------------------------------------------
# Enforced by the API at upload time and again by the parser (which must not trust the API);
# both settings structs take their defaults from here.
MIB: Final = 1024 * 1024
# 50 MB covers any real paper or thesis PDF (a 300-page thesis with figures is ~20 MB).
MAX_FILE_BYTES: Final = 50 * MIB
# Theses reach 300-400 pages; beyond 500 it is a book or a scan dump, not a citing document.
MAX_PAGES: Final = 500

# --- Verdict labels --------------------------------------------------------------------------
# Labels a judge backend decides.
SUPPORTED: Final = "supported"
PARTIALLY_SUPPORTED: Final = "partially_supported"
UNSUPPORTED: Final = "unsupported"
CONTRADICTED: Final = "contradicted"
# The judge read the evidence and could not decide: not `unsupported`, which asserts something
# about the source. The rationale names the two leading labels.
NEEDS_REVIEW: Final = "needs_review"

# Labels the pipeline around the judge decides (no judge was asked, or it failed).
REFERENCE_MISSING: Final = "reference_missing"
SOURCE_MISSING: Final = "source_missing"
SOURCE_UNREADABLE: Final = "source_unreadable"
NOT_CHECKABLE: Final = "not_checkable"
JUDGE_ERROR: Final = "judge_error"

# What a judge backend may answer (needs_review included: abstaining is an answer).
JUDGE_LABELS: Final = (SUPPORTED, PARTIALLY_SUPPORTED, UNSUPPORTED, CONTRADICTED, NEEDS_REVIEW)
# Definite verdicts: a statement about what the source says.
DEFINITE_LABELS: Final = (SUPPORTED, PARTIALLY_SUPPORTED, UNSUPPORTED, CONTRADICTED)
PIPELINE_LABELS: Final = (
    REFERENCE_MISSING,
    SOURCE_MISSING,
    SOURCE_UNREADABLE,
    NOT_CHECKABLE,
    JUDGE_ERROR,
)
# Every label, in the order reports list them.
VERDICT_LABELS: Final = (*JUDGE_LABELS, *PIPELINE_LABELS)

# Labels that assert something about the source and so must be backed by a verbatim quote.
LABELS_NEEDING_QUOTE: Final = frozenset({SUPPORTED, PARTIALLY_SUPPORTED, CONTRADICTED})

LABEL_NAMES: Final = {
    SUPPORTED: "Supported",
    PARTIALLY_SUPPORTED: "Partially supported",
    UNSUPPORTED: "Unsupported",
    CONTRADICTED: "Contradicted",
    NEEDS_REVIEW: "Needs review",
    REFERENCE_MISSING: "Reference missing",
    SOURCE_MISSING: "Source missing",
    SOURCE_UNREADABLE: "Source unreadable",
    NOT_CHECKABLE: "Not checkable",
    JUDGE_ERROR: "Judge error",
}
# One sentence per label for a reader of the report (the web UI shows it as a tooltip).
LABEL_DESCRIPTIONS: Final = {
    SUPPORTED: "The source backs the claim.",
    PARTIALLY_SUPPORTED: "The source backs part of the claim.",
    UNSUPPORTED: "The cited source does not say this.",
    CONTRADICTED: "The source says something else: the opposite, another number or group, or less.",
    NEEDS_REVIEW: "The judge could not decide; read the source yourself.",
    REFERENCE_MISSING: "The marker has no entry in the reference list.",
    SOURCE_MISSING: "No uploaded document matches the reference.",
    SOURCE_UNREADABLE: "The matching document could not be parsed.",
    NOT_CHECKABLE: "There is no claim to check for this marker.",
    JUDGE_ERROR: "The judge failed; re-run to retry.",
}

# --- Risk bands ------------------------------------------------------------------------------
# Every judged citation falls in one band by the judge's calibrated probability that the
# citation is not supported as written (`Verdict.problem_probability`); the band limits are the
# judge model's own (chosen on training folds, docs/judge.md). Reports list likely problems
# first; `--fail-on likely-problem` selects the first band.
LIKELY_PROBLEM: Final = "likely_problem"
UNCERTAIN: Final = "uncertain"
LIKELY_FINE: Final = "likely_fine"
# Worst first.
BANDS: Final = (LIKELY_PROBLEM, UNCERTAIN, LIKELY_FINE)
BAND_NAMES: Final = {
    LIKELY_PROBLEM: "Likely problem",
    UNCERTAIN: "Uncertain",
    LIKELY_FINE: "Likely fine",
}
# Reports count citations no judge placed in a band (no source, not checkable, judge error, not
# yet judged) under this key beside the bands (report `summary.bands`); never a verdict's band.
UNJUDGED: Final = "unjudged"

# Groups for `--fail-on` and exit codes, defined once beside the labels.
FAIL_ON_GROUPS: Final = {
    # The two problem labels are their own groups, under the label's name.
    CONTRADICTED: frozenset({CONTRADICTED}),
    UNSUPPORTED: frozenset({UNSUPPORTED}),
    "review": frozenset({NEEDS_REVIEW}),
    "missing": frozenset({REFERENCE_MISSING, SOURCE_MISSING, SOURCE_UNREADABLE}),
    "any": frozenset(VERDICT_LABELS) - frozenset({SUPPORTED}),
}
# The judge's band group: every verdict whose band is LIKELY_PROBLEM (whatever its label).
LIKELY_PROBLEM_GROUP: Final = "likely-problem"
FAIL_ON_BANDS: Final = {LIKELY_PROBLEM_GROUP: frozenset({LIKELY_PROBLEM})}

# --- Findings --------------------------------------------------------------------------------
# What citeproof can *show* about a citation or a reference entry, with certainty, from the
# text: a quotation not in its source, a number that differs, a reference list entry nobody
# cites. Beside the judge's verdict (a probability), never instead of it. Each rule has a
# stable code and slug, the way ruff and eslint name theirs: a code is never reused for another
# meaning, configuration and `--fail-on` may name either, and docs/rules.md has one entry each.
# Codes: CP1xx quotations, CP2xx numbers, CP3xx pages and attachments, CP4xx the reference
# list, CP5xx reference verification against scholarly indexes.
ERROR: Final = "error"
WARNING: Final = "warning"
INFO: Final = "info"
# Worst first (the order reports list them in).
SEVERITIES: Final = (ERROR, WARNING, INFO)
# What a finding is attached to.
ON_CITATION: Final = "citation"
ON_ENTRY: Final = "entry"


class Rule(NamedTuple):
    code: str  # "CP101": stable, never reused
    slug: str  # "quote-not-found": stable
    severity: str  # the default; configuration may re-level or disable a rule
    subject: str  # ON_CITATION or ON_ENTRY
    name: str  # a short title for reports
    summary: str  # one sentence: what it means when it fires
    fix: str  # one sentence: what the writer does about it


QUOTE_NOT_FOUND: Final = Rule(
    code="CP101",
    slug="quote-not-found",
    severity=ERROR,
    subject=ON_CITATION,
    name="Quotation not in the source",
    summary=(
        "The words in quotation marks are not in the cited source, beyond differences of "
        "typesetting and the conventions of quoting."
    ),
    fix=(
        "Copy the passage again from the source; the finding shows the closest passage and "
        "the words that differ."
    ),
)
QUOTE_WRONG_PAGE: Final = Rule(
    code="CP102",
    slug="quote-wrong-page",
    severity=WARNING,
    subject=ON_CITATION,
    name="Quotation on another page",
    summary="The quotation is in the source, but not on the page the citation names.",
    fix="Correct the page number to the one shown.",
)
QUOTE_VERIFIED: Final = Rule(
    code="CP103",
    slug="quote-verified",
    severity=INFO,
    subject=ON_CITATION,
    name="Quotation verified",
    summary=(
        "The quotation was found in the source as written (on the cited page, if one is given)."
    ),
    fix="Nothing to do.",
)
NUMBER_CONFLICT: Final = Rule(
    code="CP201",
    slug="number-conflict",
    severity=ERROR,
    subject=ON_CITATION,
    name="Number differs from the source",
    summary=(
        "A quantity in the claim differs from the same quantity in the source sentence that "
        "matches the claim best."
    ),
    fix="Check the number against the sentence shown and correct the claim.",
)
NUMBER_NOT_IN_SOURCE: Final = Rule(
    code="CP202",
    slug="number-not-in-source",
    severity=WARNING,
    subject=ON_CITATION,
    name="Number not in the source",
    summary="A specific quantity of the claim appears nowhere in the source.",
    fix="Check where the number comes from; cite the source that reports it.",
)
PAGE_MISMATCH: Final = Rule(
    code="CP301",
    slug="page-mismatch",
    severity=WARNING,
    subject=ON_CITATION,
    name="Cited page does not bear on the claim",
    summary=(
        "The page the citation names holds nothing about the claim, and another page clearly does."
    ),
    fix="Correct the page number to the one shown.",
)
WRONG_ATTACHMENT: Final = Rule(
    code="CP311",
    slug="wrong-attachment",
    severity=ERROR,
    subject=ON_ENTRY,
    name="Attached file is another work",
    summary=(
        "The file linked to the reference entry is a different work (title, authors and "
        "identifiers disagree)."
    ),
    fix="Attach the right PDF to the entry (or correct the entry).",
)
METADATA_DIFFERS: Final = Rule(
    code="CP312",
    slug="metadata-differs",
    severity=WARNING,
    subject=ON_ENTRY,
    name="Entry metadata differs",
    summary=(
        "The entry's year, authors, title or venue differ from the work's own metadata (its "
        "PDF, or a scholarly index) beyond normal variation."
    ),
    fix="Correct the entry; the finding shows the other version.",
)
REFERENCE_MISSING_RULE: Final = Rule(
    code="CP401",
    slug="reference-missing",
    severity=ERROR,
    subject=ON_CITATION,
    name="No entry for the marker",
    summary="The citation marker names no entry of the reference list.",
    fix="Add the entry, or correct the marker.",
)
SOURCE_MISSING_RULE: Final = Rule(
    code="CP402",
    slug="source-missing",
    severity=INFO,
    subject=ON_CITATION,
    name="No source to check against",
    summary="No uploaded document matches the cited entry, so its claims were not checked.",
    fix="Add the cited PDF to the sources (or attach it in your reference manager).",
)
SOURCE_UNREADABLE_RULE: Final = Rule(
    code="CP403",
    slug="source-unreadable",
    severity=WARNING,
    subject=ON_CITATION,
    name="Source could not be read",
    summary="The document linked to the entry could not be parsed.",
    fix="Upload a PDF with a text layer, or another copy of the work.",
)
UNCITED_ENTRY: Final = Rule(
    code="CP411",
    slug="uncited-entry",
    severity=WARNING,
    subject=ON_ENTRY,
    name="Entry never cited",
    summary="No citation in the text points to this reference list entry.",
    fix="Cite it where it is used, or remove it from the list.",
)
DUPLICATE_ENTRY: Final = Rule(
    code="CP412",
    slug="duplicate-entry",
    severity=WARNING,
    subject=ON_ENTRY,
    name="Work listed twice",
    summary="The same work appears in the reference list more than once.",
    fix="Keep one entry and point its citations to it.",
)
AMBIGUOUS_SUFFIX: Final = Rule(
    code="CP413",
    slug="ambiguous-suffix",
    severity=ERROR,
    subject=ON_CITATION,
    name="Cited year suffix not in the list",
    summary="The citation names a year suffix (2020a, 2020b) that the reference list lacks.",
    fix="Add the suffixes to the entries, or correct the citation.",
)
AMBIGUOUS_AUTHOR_YEAR: Final = Rule(
    code="CP414",
    slug="ambiguous-author-year",
    severity=WARNING,
    subject=ON_ENTRY,
    name="Author and year not unique",
    summary="Two entries share first author and year without a, b suffixes to tell them apart.",
    fix="Add 2020a, 2020b to the entries and their citations.",
)
MARKER_BEYOND_LIST: Final = Rule(
    code="CP415",
    slug="marker-beyond-list",
    severity=ERROR,
    subject=ON_CITATION,
    name="Number beyond the list",
    summary="A numeric citation names a number larger than the reference list's last entry.",
    fix="Correct the number, or add the missing entries.",
)
IDENTIFIER_MISMATCH: Final = Rule(
    code="CP501",
    slug="identifier-mismatch",
    severity=ERROR,
    subject=ON_ENTRY,
    name="Identifier points to another work",
    summary="The entry's DOI, arXiv id or PMID resolves, but to a work with a different title.",
    fix="Correct the identifier; the finding shows the work it points to.",
)
NOT_FOUND: Final = Rule(
    code="CP502",
    slug="not-found",
    severity=WARNING,
    subject=ON_ENTRY,
    name="Not found in any index",
    summary=(
        "No scholarly index searched knows a work matching the entry (it may still exist: "
        "the finding says what was searched where)."
    ),
    fix="Check the entry against the work itself; add its DOI if it has one.",
)
RETRACTED: Final = Rule(
    code="CP503",
    slug="retracted",
    severity=ERROR,
    subject=ON_ENTRY,
    name="Cited work was retracted",
    summary="The cited work has been retracted.",
    fix="Read the retraction notice; cite it or remove the citation.",
)
EXPRESSION_OF_CONCERN: Final = Rule(
    code="CP504",
    slug="expression-of-concern",
    severity=WARNING,
    subject=ON_ENTRY,
    name="Expression of concern",
    summary="The publisher has issued an expression of concern about the cited work.",
    fix="Read the notice and say so where you rely on the work.",
)
CORRECTION: Final = Rule(
    code="CP505",
    slug="correction",
    severity=WARNING,
    subject=ON_ENTRY,
    name="Cited work was corrected",
    summary="A correction (erratum) was published for the cited work.",
    fix="Check that what you cite is not what the correction changed.",
)
PREPRINT_PUBLISHED: Final = Rule(
    code="CP506",
    slug="preprint-published",
    severity=INFO,
    subject=ON_ENTRY,
    name="Preprint has a published version",
    summary="The entry cites a preprint that has since been published.",
    fix="Cite the published version.",
)
# Every rule, in code order.
RULES: Final = (
    QUOTE_NOT_FOUND,
    QUOTE_WRONG_PAGE,
    QUOTE_VERIFIED,
    NUMBER_CONFLICT,
    NUMBER_NOT_IN_SOURCE,
    PAGE_MISMATCH,
    WRONG_ATTACHMENT,
    METADATA_DIFFERS,
    REFERENCE_MISSING_RULE,
    SOURCE_MISSING_RULE,
    SOURCE_UNREADABLE_RULE,
    UNCITED_ENTRY,
    DUPLICATE_ENTRY,
    AMBIGUOUS_SUFFIX,
    AMBIGUOUS_AUTHOR_YEAR,
    MARKER_BEYOND_LIST,
    IDENTIFIER_MISMATCH,
    NOT_FOUND,
    RETRACTED,
    EXPRESSION_OF_CONCERN,
    CORRECTION,
    PREPRINT_PUBLISHED,
)
RULES_BY_CODE: Final = {rule.code: rule for rule in RULES}
RULES_BY_SLUG: Final = {rule.slug: rule for rule in RULES}
# The pipeline labels that are findings: reported once, under their rule (the verdicts table
# keeps them so a run's counts add up; reports show the finding, not a verdict).
LABEL_FINDINGS: Final = {
    REFERENCE_MISSING: REFERENCE_MISSING_RULE,
    SOURCE_MISSING: SOURCE_MISSING_RULE,
    SOURCE_UNREADABLE: SOURCE_UNREADABLE_RULE,
}

# --- `--fail-on` -----------------------------------------------------------------------------
# What makes `citeproof check` exit 1, as a comma-separated union of: the label groups
# (FAIL_ON_GROUPS; a group holding a label of LABEL_FINDINGS also selects that rule's
# findings), the band group (FAIL_ON_BANDS), a severity (FAIL_ON_SEVERITIES: every finding at
# that configured level or worse), or a rule's code or slug (its findings at any level). The
# parser is citeproof.cli._failon; every name means one thing (the contract test checks that
# groups, severities, codes and slugs do not overlap).
FAIL_ON_SEVERITIES: Final = (ERROR, WARNING)
# Errors, the judge's two problem labels and its likely problems; not `review`: a needs_review
# is not a problem found.
DEFAULT_FAIL_ON: Final = (ERROR, CONTRADICTED, UNSUPPORTED, LIKELY_PROBLEM_GROUP)
