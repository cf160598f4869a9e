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

# --- Stages ----------------------------------------------------------------------------------
# stage name -> queue table. Planning shares the retrieve channel with retrieval (one service).
STAGE_TABLES: Final = {
    "parse": "parse_items",
    "plan": "runs",
    "retrieve": "retrieve_tasks",
    "judge": "judge_tasks",
}

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

# Groups for `--fail-on` and exit codes, defined once beside the labels.
FAIL_ON_GROUPS: Final = {
    "contradicted": frozenset({CONTRADICTED}),
    "unsupported": frozenset({UNSUPPORTED}),
    "review": frozenset({NEEDS_REVIEW}),
    "missing": frozenset({REFERENCE_MISSING, SOURCE_MISSING, SOURCE_UNREADABLE}),
    "any": frozenset(VERDICT_LABELS) - frozenset({SUPPORTED}),
}
DEFAULT_FAIL_ON: Final = ("contradicted", "unsupported", "review")
