"""A report as SARIF 2.1.0, the format code-scanning tools and CI annotate pull requests from.

One rule per verdict label (the rule id is the label), one result per problem citation (the
labels `--fail-on` selects), located in the thesis: its file, the page, and for text formats
(Markdown, LaTeX, plain text) the line and column span of the citing sentence.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import quote

from citeproof.pipeline import (
    CONTRADICTED,
    JUDGE_ERROR,
    LABEL_NAMES,
    NEEDS_REVIEW,
    NOT_CHECKABLE,
    PARTIALLY_SUPPORTED,
    REFERENCE_MISSING,
    SOURCE_MISSING,
    SOURCE_UNREADABLE,
    SUPPORTED,
    UNSUPPORTED,
    VERDICT_LABELS,
)

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
TOOL_NAME = "citeproof"
# How loudly each label speaks in a code-scanning view: a claim its source contradicts or does
# not support is an error, anything a person should look at is a warning.
LEVELS = {
    CONTRADICTED: "error",
    UNSUPPORTED: "error",
    NEEDS_REVIEW: "warning",
    REFERENCE_MISSING: "warning",
    SOURCE_MISSING: "warning",
    SOURCE_UNREADABLE: "warning",
    PARTIALLY_SUPPORTED: "note",
    NOT_CHECKABLE: "note",
    JUDGE_ERROR: "note",
    SUPPORTED: "none",
}
# Thesis formats whose bytes are the text a person edits, so line and column mean something.
TEXT_SUFFIXES = frozenset({".md", ".markdown", ".txt", ".text", ".tex"})
# Enough words of the claim to find it again in the source text, not so many that the
# parser's normalisation (hyphenation, markup) breaks the match.
LOCATE_WORDS = 8


def _rule(label: str) -> dict:
    return {
        "id": label,
        "name": LABEL_NAMES[label].title().replace(" ", ""),
        "shortDescription": {"text": LABEL_NAMES[label]},
        "defaultConfiguration": {"level": LEVELS.get(label, "warning")},
    }


def _line_col(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def locate(text: str, claim: str, marker: str) -> dict | None:
    """The SARIF region of a claim in the thesis's text, or None when it cannot be found."""
    words = claim.split()[:LOCATE_WORDS]
    if not words:
        return None
    match = re.search(r"\s+".join(re.escape(w) for w in words), text)
    if match is None:
        return None
    end = match.end()
    marker_at = text.find(marker, match.start(), match.start() + 4 * len(claim) + len(marker))
    if marker and marker_at >= 0:
        end = marker_at + len(marker)
    start_line, start_col = _line_col(text, match.start())
    end_line, end_col = _line_col(text, end)
    return {
        "startLine": start_line,
        "startColumn": start_col,
        "endLine": end_line,
        "endColumn": end_col,
    }


def _message(citation: dict, label: str) -> str:
    verdict = citation["verdict"] or {}
    claim = " ".join(citation["claim"].split())
    parts = [f"{LABEL_NAMES[label]}: “{claim}”"]
    if label != verdict.get("label"):
        parts.append(
            f"(the judge said {verdict.get('label')} at confidence "
            f"{verdict.get('confidence', 0):.2f}, below --min-confidence)"
        )
    elif verdict:
        parts.append(f"(confidence {verdict['confidence']:.2f})")
    reference = citation.get("reference") or {}
    cited = reference.get("title") or reference.get("raw") or reference.get("label")
    source = citation.get("source")
    parts.append(
        f"— cites {citation['marker']}"
        + (f" {cited}" if cited else "")
        + (f", checked against {source['filename']}" if source else "")
        + "."
    )
    if verdict.get("quote"):
        page = f" (p. {verdict['quote_page']})" if verdict.get("quote_page") else ""
        parts.append(f"Source says{page}: “{verdict['quote']}”.")
    if verdict.get("rationale"):
        parts.append(verdict["rationale"])
    return " ".join(parts)


def to_sarif(
    report: dict,
    thesis_path: Path,
    effective_labels: list[str | None],
    problem_labels: frozenset[str],
    version: str,
    coverage: dict,
) -> dict:
    text = None
    if thesis_path.suffix.lower() in TEXT_SUFFIXES:
        text = thesis_path.read_text(encoding="utf-8", errors="replace")
    # A path given relative stays relative (CI checkouts differ); an absolute one is a file URI.
    uri = thesis_path.as_uri() if thesis_path.is_absolute() else quote(thesis_path.as_posix())
    results = []
    for citation, label in zip(report["citations"], effective_labels, strict=True):
        if label not in problem_labels:
            continue
        physical: dict = {"artifactLocation": {"uri": uri, "index": 0}}
        region = locate(text, citation["claim"], citation["marker"]) if text else None
        if region is not None:
            physical["region"] = region
        result = {
            "ruleId": label,
            "ruleIndex": VERDICT_LABELS.index(label),
            "level": LEVELS.get(label, "warning"),
            "message": {"text": _message(citation, label)},
            "locations": [{"physicalLocation": physical}],
            "partialFingerprints": {
                "citation/v1": f"{citation['ordinal']}:{citation['marker']}",
            },
            "properties": {
                "ordinal": citation["ordinal"],
                "marker": citation["marker"],
                "page": citation.get("page"),
                "confidence": (citation["verdict"] or {}).get("confidence"),
            },
        }
        results.append(result)
    return {
        "$schema": SARIF_SCHEMA_URI,
        "version": SARIF_VERSION,
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": TOOL_NAME,
                        "version": version,
                        "rules": [_rule(label) for label in VERDICT_LABELS],
                    }
                },
                "artifacts": [{"location": {"uri": uri}, "roles": ["analysisTarget"]}],
                "results": results,
                "properties": {"coverage": coverage},
            }
        ],
    }
