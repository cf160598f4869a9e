"""The pipeline contract: the one definition of every name the services share.

Stage names, their queue tables and NOTIFY channels, and every verdict label with its human name
and the groups the report, CLI and metrics use. Everything imports these; nothing spells the
strings again (a test checks that each channel name and label is a string literal only here).
"""

from __future__ import annotations

from typing import Final

# --- NOTIFY channels -------------------------------------------------------------------------
# A notification only means "look at this table now"; the payload is a hint, never data.
PARSE_CHANNEL: Final = "citeproof_parse"
RETRIEVE_CHANNEL: Final = "citeproof_retrieve"
JUDGE_CHANNEL: Final = "citeproof_judge"
# Progress of a run (payload: the run id), listened to by the API's progress streams.
EVENTS_CHANNEL: Final = "citeproof_events"
# A token was revoked (payload: the token id): the API ends that token's progress streams.
TOKENS_CHANNEL: Final = "citeproof_tokens"

# --- Stages ----------------------------------------------------------------------------------
PARSE_STAGE: Final = "parse"
PLAN_STAGE: Final = "plan"
RETRIEVE_STAGE: Final = "retrieve"
JUDGE_STAGE: Final = "judge"
# In pipeline order.
STAGES: Final = (PARSE_STAGE, PLAN_STAGE, RETRIEVE_STAGE, JUDGE_STAGE)
# A parser registers the isolation of its parsing children as the capability
# "parse:sandbox=<mode>" ("netns+uid", "shared-network+same-uid", ...); /readyz lists them.
SANDBOX_CAPABILITY_PREFIX: Final = f"{PARSE_STAGE}:sandbox="

# stage name -> queue table. Planning shares the retrieve channel with retrieval (one service).
STAGE_TABLES: Final = {
    PARSE_STAGE: "parse_items",
    PLAN_STAGE: "runs",
    RETRIEVE_STAGE: "retrieve_tasks",
    JUDGE_STAGE: "judge_tasks",
}
# stage name -> the channel its workers listen on.
STAGE_CHANNELS: Final = {
    PARSE_STAGE: PARSE_CHANNEL,
    PLAN_STAGE: RETRIEVE_CHANNEL,
    RETRIEVE_STAGE: RETRIEVE_CHANNEL,
    JUDGE_STAGE: JUDGE_CHANNEL,
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
    CONTRADICTED: "The source says the opposite.",
    NEEDS_REVIEW: "The judge could not decide; read the source yourself.",
    REFERENCE_MISSING: "The marker has no entry in the reference list.",
    SOURCE_MISSING: "No uploaded document matches the reference.",
    SOURCE_UNREADABLE: "The matching document could not be parsed.",
    NOT_CHECKABLE: "There is no claim to check for this marker.",
    JUDGE_ERROR: "The judge failed; re-run to retry.",
}

# Groups for `--fail-on` and exit codes, defined once beside the labels.
FAIL_ON_GROUPS: Final = {
    "contradicted": frozenset({CONTRADICTED}),
    "unsupported": frozenset({UNSUPPORTED}),
    "review": frozenset({NEEDS_REVIEW}),
    "missing": frozenset({REFERENCE_MISSING, SOURCE_MISSING, SOURCE_UNREADABLE}),
    "any": frozenset(VERDICT_LABELS) - frozenset({SUPPORTED}),
}
DEFAULT_FAIL_ON: Final = ("contradicted", "unsupported", "review")
