"""Where each requested report format goes, and the formats built on this side (JSON, CSV,
SARIF); HTML and Markdown are the API's own renderings (requested with the same rule
overrides).

CSV: one row per citation in report order (its findings in the `findings` cell, one per line:
`CP101 quote-not-found (error): message`; `errors`/`warnings` count them; `band`,
`problem_probability` and `risk_rank` come from the judge), then one row per reference-list
entry that has findings (`kind` = entry; `ordinal` empty, `reference` its label, `claim` its
text). A spreadsheet sorts by `risk_rank` for the doubtful ones first.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from pathlib import Path

from citeproof.pipeline import ERROR, RULES_BY_CODE, WARNING

FORMATS = ("html", "json", "md", "sarif", "csv")
DEFAULT_FORMAT = "html"
DEFAULT_STEM = "citeproof-report"
STDOUT = "-"
# The CLI's JSON is the API's report plus these sections; bump on an incompatible change.
JSON_SCHEMA_VERSION = "2"
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
    "band",
    "problem_probability",
    "risk_rank",
    "errors",
    "warnings",
    "findings",
    "kind",
)
CITATION_ROW = "citation"
ENTRY_ROW = "entry"


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


def to_json(report: dict, coverage: dict, outcome: dict, configuration: dict | None = None) -> str:
    """The API's report (after the rule overrides) + schema_version, coverage, outcome and the
    configuration the check ran with (file, disabled and re-levelled rules)."""
    document = {"schema_version": JSON_SCHEMA_VERSION, **report}
    document["coverage"] = coverage
    document["outcome"] = outcome
    if configuration is not None:
        document["configuration"] = configuration
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _findings_cell(findings: list[dict]) -> str:
    lines = []
    for f in findings:
        rule = RULES_BY_CODE.get(f["rule"])
        slug = f" {rule.slug}" if rule else ""
        lines.append(f"{f['rule']}{slug} ({f.get('severity') or '-'}): {f.get('message', '')}")
    return "\n".join(lines)


def _count(findings: list[dict], severity: str) -> int:
    return sum(f.get("severity") == severity for f in findings)


def to_csv(report: dict, effective_labels: list[str | None]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for citation, effective in zip(report["citations"], effective_labels, strict=True):
        verdict = citation["verdict"] or {}
        reference = citation.get("reference") or {}
        source = citation.get("source") or {}
        findings = citation.get("findings") or []
        risk = citation.get("risk") or {}
        probability = verdict.get("problem_probability")
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
                verdict.get("band") or risk.get("band") or "",
                "" if probability is None else probability,
                risk.get("rank", ""),
                _count(findings, ERROR),
                _count(findings, WARNING),
                _findings_cell(findings),
                CITATION_ROW,
            ]
        )
    blank = [""] * len(CSV_COLUMNS)
    for entry in report.get("entries") or []:
        findings = entry.get("findings") or []
        if not findings:
            continue
        row = dict(zip(CSV_COLUMNS, blank, strict=True))
        row |= {
            "reference": entry.get("label") or "",
            "claim": " ".join((entry.get("raw") or entry.get("title") or "").split()),
            "errors": str(_count(findings, ERROR)),
            "warnings": str(_count(findings, WARNING)),
            "findings": _findings_cell(findings),
            "kind": ENTRY_ROW,
        }
        writer.writerow([row[column] for column in CSV_COLUMNS])
    return buffer.getvalue()
