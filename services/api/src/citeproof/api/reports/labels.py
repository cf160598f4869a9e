"""Human names and colours of verdict labels, shared by the Markdown and HTML reports."""

from __future__ import annotations

LABEL_NAMES = {
    "supported": "Supported",
    "partially_supported": "Partially supported",
    "unsupported": "Unsupported",
    "contradicted": "Contradicted",
    "source_missing": "Source missing",
    "source_unreadable": "Source unreadable",
    "not_checkable": "Not checkable",
    "judge_error": "Judge error",
}
PENDING_NAME = "Pending"

# (text colour, background) per label; chosen for contrast on white.
LABEL_COLOURS = {
    "supported": ("#0f5132", "#d1f2e0"),
    "partially_supported": ("#664d03", "#fff1c2"),
    "unsupported": ("#842029", "#fbdadd"),
    "contradicted": ("#ffffff", "#b02a37"),
    "source_missing": ("#41464b", "#e2e3e5"),
    "source_unreadable": ("#41464b", "#e2e3e5"),
    "not_checkable": ("#41464b", "#eef0f2"),
    "judge_error": ("#6f42c1", "#ece3fb"),
}
PENDING_COLOURS = ("#41464b", "#f3f4f6")


def label_name(label: str | None) -> str:
    if label is None:
        return PENDING_NAME
    return LABEL_NAMES.get(label, label.replace("_", " ").capitalize())
