"""Colours and display order of verdict labels, shared by the HTML report and the web UI (which
reads them from `GET /labels`); their human names and descriptions come from the pipeline
contract."""

from __future__ import annotations

import msgspec

from citeproof.pipeline import (
    CONTRADICTED,
    JUDGE_ERROR,
    LABEL_DESCRIPTIONS,
    LABEL_NAMES,
    NEEDS_REVIEW,
    NOT_CHECKABLE,
    PARTIALLY_SUPPORTED,
    REFERENCE_MISSING,
    SOURCE_MISSING,
    SOURCE_UNREADABLE,
    SUPPORTED,
    UNSUPPORTED,
)

__all__ = [
    "LABEL_COLOURS",
    "LABEL_NAMES",
    "PENDING_COLOURS",
    "PENDING_NAME",
    "LabelInfo",
    "label_catalogue",
    "label_name",
]

PENDING_NAME = "Pending"

# (text colour, background) per label; chosen for contrast on white.
LABEL_COLOURS = {
    SUPPORTED: ("#0f5132", "#d1f2e0"),
    PARTIALLY_SUPPORTED: ("#664d03", "#fff1c2"),
    UNSUPPORTED: ("#842029", "#fbdadd"),
    CONTRADICTED: ("#ffffff", "#b02a37"),
    # Amber like partial support: a person has to look, the tool could not decide.
    NEEDS_REVIEW: ("#7a3e00", "#ffe3c2"),
    # Grey like the other "nothing to check against" labels.
    REFERENCE_MISSING: ("#41464b", "#e2e3e5"),
    SOURCE_MISSING: ("#41464b", "#e2e3e5"),
    SOURCE_UNREADABLE: ("#41464b", "#e2e3e5"),
    NOT_CHECKABLE: ("#41464b", "#eef0f2"),
    JUDGE_ERROR: ("#6f42c1", "#ece3fb"),
}
PENDING_COLOURS = ("#41464b", "#f3f4f6")
# Fill of each label's segment in the web UI's summary bar (brighter than the badge colours).
BAR_COLOURS = {
    SUPPORTED: "#1f9d63",
    PARTIALLY_SUPPORTED: "#e0a030",
    UNSUPPORTED: "#9aa1b1",
    CONTRADICTED: "#d23a2c",
    NEEDS_REVIEW: "#f08c3a",
    REFERENCE_MISSING: "#94a3b8",
    SOURCE_MISSING: "#64748b",
    SOURCE_UNREADABLE: "#475569",
    NOT_CHECKABLE: "#cbd2dc",
    JUDGE_ERROR: "#e2e6ec",
}
# The web UI lists findings worst first (filters, summary bar): what a reader must act on leads.
REVIEW_ORDER = (
    CONTRADICTED,
    UNSUPPORTED,
    NEEDS_REVIEW,
    PARTIALLY_SUPPORTED,
    SUPPORTED,
    REFERENCE_MISSING,
    SOURCE_MISSING,
    SOURCE_UNREADABLE,
    NOT_CHECKABLE,
    JUDGE_ERROR,
)


class LabelInfo(msgspec.Struct, frozen=True):
    """How one verdict label is shown."""

    label: str
    name: str
    description: str
    text_colour: str
    background: str
    bar_colour: str


def label_catalogue() -> list[LabelInfo]:
    """Every verdict label, worst first, with its name, description and colours."""
    return [
        LabelInfo(
            label=label,
            name=LABEL_NAMES[label],
            description=LABEL_DESCRIPTIONS[label],
            text_colour=LABEL_COLOURS[label][0],
            background=LABEL_COLOURS[label][1],
            bar_colour=BAR_COLOURS[label],
        )
        for label in REVIEW_ORDER
    ]


def label_name(label: str | None) -> str:
    if label is None:
        return PENDING_NAME
    return LABEL_NAMES.get(label, label.replace("_", " ").capitalize())
