"""Where each requested report format goes, and the formats built on this side (JSON, CSV,
SARIF); HTML and Markdown are the API's own renderings.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from pathlib import Path

FORMATS = ("html", "json", "md", "sarif", "csv")
DEFAULT_FORMAT = "html"
DEFAULT_STEM = "citeproof-report"
STDOUT = "-"
# The CLI's JSON is the API's report plus these sections; bump on an incompatible change.
JSON_SCHEMA_VERSION = "1"
SUFFIX_FORMATS = {
    ".html": "html",
    ".htm": "html",
    ".json": "json",
    ".md": "md",
    ".markdown": "md",
    ".sarif": "sarif",
    ".csv": "csv",
}
CSV_COLUMNS = (
    "ordinal",
    "marker",
    "reference",
    "page",
    "claim",
    "label",
    "effective_label",
    "confidence",
    "source",
    "quote",
    "quote_page",
    "rationale",
)


class OutputError(ValueError):
    """A combination of --format and -o that cannot be written."""


@dataclass(frozen=True)
class Output:
    format: str
    # None: standard output.
    path: Path | None


def plan_outputs(formats: list[str] | None, output: str | None) -> list[Output]:
    """`--format` (repeatable) and `-o`: one format to PATH, several to PATH.<ext> each."""
    if not formats:
        inferred = SUFFIX_FORMATS.get(Path(output).suffix.lower()) if output else None
        if output and output != STDOUT and inferred is None:
            raise OutputError(
                f"cannot tell the report format from {output!r}: name it "
                f"{', '.join(sorted(set(SUFFIX_FORMATS)))} or pass --format"
            )
        formats = [inferred or DEFAULT_FORMAT]
    formats = list(dict.fromkeys(formats))  # repeated formats are written once
    unknown = [f for f in formats if f not in FORMATS]
    if unknown:
        raise OutputError(f"unknown format {unknown[0]!r}: choose from {', '.join(FORMATS)}")
    if output == STDOUT:
        if len(formats) > 1:
            raise OutputError("`-o -` writes one format to standard output; pass one --format")
        return [Output(formats[0], None)]
    if output is None:
        return [Output(f, Path(f"{DEFAULT_STEM}.{f}")) for f in formats]
    path = Path(output)
    if len(formats) == 1:
        return [Output(formats[0], path)]
    stem = path.with_suffix("") if path.suffix.lower() in SUFFIX_FORMATS else path
    return [Output(f, stem.with_name(f"{stem.name}.{f}")) for f in formats]


def to_json(report: dict, coverage: dict, outcome: dict) -> str:
    document = {"schema_version": JSON_SCHEMA_VERSION, **report}
    document["coverage"] = coverage
    document["outcome"] = outcome
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def to_csv(report: dict, effective_labels: list[str | None]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for citation, effective in zip(report["citations"], effective_labels, strict=True):
        verdict = citation["verdict"] or {}
        reference = citation.get("reference") or {}
        source = citation.get("source") or {}
        writer.writerow(
            [
                citation["ordinal"],
                citation["marker"],
                reference.get("label") or "",
                "" if citation.get("page") is None else citation["page"],
                " ".join(citation["claim"].split()),
                verdict.get("label", ""),
                effective or "",
                verdict.get("confidence", ""),
                source.get("filename", ""),
                verdict.get("quote") or "",
                "" if verdict.get("quote_page") is None else verdict["quote_page"],
                verdict.get("rationale") or "",
            ]
        )
    return buffer.getvalue()
