"""A report as SARIF 2.1.0, the format code-scanning tools and CI annotate pull requests from.

`tool.driver.rules`: one rule per finding rule of the registry (citeproof.pipeline.RULES: the
code as id, its name, summary and fix as help, docs/rules.md#<anchor> as helpUri, its default
level: error -> error, warning -> warning, info -> note), then one per verdict label (the
label as id). Configured overrides (disabled or re-levelled rules) are stated in the
invocation's ruleConfigurationOverrides.

Results: one per finding (on a citation or a reference-list entry; its level is the finding's
configured severity) and one per verdict `--fail-on` selects, each located in the thesis: its
file (a LaTeX citation: the project file the parser names) and, where the text is the file a
person edits (Markdown, LaTeX, plain text), the line and column span; the page goes into the
location's message and the result's properties. `partialFingerprints["citeproof/v1"]` is the
baseline fingerprint; with `--baseline` every result has a `baselineState` (new/unchanged).
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import quote

from citeproof.cli._failon import FailOn
from citeproof.cli._outcome import FINDING, Item, Outcome, selected
from citeproof.contracts.findings import rule_doc
from citeproof.pipeline import (
    CONTRADICTED,
    ERROR,
    INFO,
    JUDGE_ERROR,
    LABEL_NAMES,
    LIKELY_PROBLEM,
    NEEDS_REVIEW,
    NOT_CHECKABLE,
    PARTIALLY_SUPPORTED,
    REFERENCE_MISSING,
    RULES,
    RULES_BY_CODE,
    SOURCE_MISSING,
    SOURCE_UNREADABLE,
    SUPPORTED,
    UNSUPPORTED,
    VERDICT_LABELS,
    WARNING,
    Rule,
)

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
TOOL_NAME = "citeproof"
FINGERPRINT_KEY = "citeproof/v1"
# A finding's severity as a SARIF level.
SEVERITY_LEVELS = {ERROR: "error", WARNING: "warning", INFO: "note"}
# How loudly each verdict label speaks in a code-scanning view: a claim its source contradicts
# or does not support is an error, anything a person should look at is a warning.
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
_LOUDNESS = ("none", "note", "warning", "error")
# Thesis formats whose bytes are the text a person edits, so line and column mean something.
TEXT_SUFFIXES = frozenset({".md", ".markdown", ".txt", ".text", ".tex"})
# Enough words of the claim to find it again in the source text, not so many that the
# parser's normalisation (hyphenation, markup) breaks the match.
LOCATE_WORDS = 8
# Rule ids in `rules` order: registry codes, then verdict labels.
RULE_IDS = (*(rule.code for rule in RULES), *VERDICT_LABELS)


def _pascal(words: str) -> str:
    return "".join(part.capitalize() for part in re.split(r"[-_\s]+", words) if part)


def _finding_rule(rule: Rule) -> dict:
    return {
        "id": rule.code,
        "name": _pascal(rule.slug),
        "shortDescription": {"text": rule.name},
        "fullDescription": {"text": rule.summary},
        "help": {
            "text": f"{rule.summary} How to fix: {rule.fix}",
            "markdown": f"**{rule.name}** ({rule.code} `{rule.slug}`)\n\n{rule.summary}\n\n"
            f"How to fix: {rule.fix}",
        },
        "helpUri": rule_doc(rule),
        "defaultConfiguration": {"level": SEVERITY_LEVELS[rule.severity]},
        "properties": {"slug": rule.slug, "severity": rule.severity, "subject": rule.subject},
    }


def _label_rule(label: str) -> dict:
    return {
        "id": label,
        "name": _pascal(LABEL_NAMES[label]),
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


def _claim(citation: dict) -> str:
    return " ".join(citation["claim"].split())


def _verdict_message(citation: dict, label: str) -> str:
    verdict = citation["verdict"] or {}
    parts = [f"{LABEL_NAMES[label]}: “{_claim(citation)}”"]
    if label != verdict.get("label"):
        parts.append(
            f"(the judge said {verdict.get('label')} at confidence "
            f"{verdict.get('confidence', 0):.2f}, below --min-confidence)"
        )
    elif verdict:
        parts.append(f"(confidence {verdict['confidence']:.2f})")
    if verdict.get("problem_probability") is not None:
        parts.append(f"(probability of a problem {verdict['problem_probability']:.2f})")
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


def _finding_message(item: Item) -> str:
    finding = item.finding or {}
    rule = RULES_BY_CODE.get(item.name)
    parts = [f"{item.name} {rule.slug if rule else ''}: {finding.get('message', '')}".strip()]
    if item.citation is not None:
        parts.append(f"— {item.citation['marker']} “{_claim(item.citation)}”.")
    elif item.entry is not None:
        entry = item.entry
        parts.append(f"— reference entry {entry.get('label') or ''} “{item.subject}”.")
    if finding.get("expected") is not None or finding.get("found") is not None:
        parts.append(
            f"Expected: {finding.get('expected') or '-'}; found: {finding.get('found') or '-'}."
        )
    for evidence in finding.get("evidence") or []:
        if evidence.get("text"):
            page = f" (p. {evidence['page']})" if evidence.get("page") else ""
            parts.append(f"{evidence.get('origin', 'evidence')}{page}: “{evidence['text']}”.")
            break
    return " ".join(parts)


def _level(item: Item) -> str:
    if item.kind == FINDING:
        return SEVERITY_LEVELS.get(item.severity or WARNING, "warning")
    level = LEVELS.get(item.name, "warning")
    if item.band == LIKELY_PROBLEM and _LOUDNESS.index(level) < _LOUDNESS.index("warning"):
        level = "warning"  # the judge thinks it likely wrong, whatever its top label
    return level


class _Locator:
    """Where in the thesis an item points: the file's URI and, for text formats, a region."""

    def __init__(self, thesis: Path) -> None:
        self._thesis = thesis
        self._texts: dict[Path, str | None] = {}

    @staticmethod
    def uri(path: Path) -> str:
        # A path given relative stays relative (CI checkouts differ); an absolute one is a
        # file URI.
        return path.as_uri() if path.is_absolute() else quote(path.as_posix())

    def _text(self, path: Path) -> str | None:
        if path not in self._texts:
            readable = path.suffix.lower() in TEXT_SUFFIXES and path.is_file()
            text = path.read_text(encoding="utf-8", errors="replace") if readable else None
            self._texts[path] = text
        return self._texts[path]

    def _latex_file(self, citation: dict) -> Path | None:
        """A LaTeX citation's own project file, when it is on this machine."""
        name = citation.get("source_file")
        if not name:
            return None
        root = self._thesis if self._thesis.is_dir() else self._thesis.parent
        path = root / name
        return path if path.is_file() else None

    def physical(self, item: Item) -> dict:
        path, region = self._thesis, None
        if item.citation is not None:
            citation = item.citation
            latex = self._latex_file(citation)
            if latex is not None and citation.get("source_line"):
                path = latex
                region = {"startLine": int(citation["source_line"])}
            else:
                text = self._text(path)
                region = locate(text, citation["claim"], citation["marker"]) if text else None
        elif item.entry is not None:
            text = self._text(path)
            region = locate(text, item.subject, "") if text else None
        physical: dict = {"artifactLocation": {"uri": self.uri(path)}}
        if path == self._thesis:
            physical["artifactLocation"]["index"] = 0
        if region is not None:
            physical["region"] = region
        return physical


def _result(item: Item, locator: _Locator, with_baseline: bool) -> dict:
    location: dict = {"physicalLocation": locator.physical(item)}
    page = item.citation.get("page") if item.citation is not None else None
    if page is not None:
        location["message"] = {"text": f"page {page}"}
    message = (
        _verdict_message(item.citation or {}, item.name)
        if item.kind != FINDING
        else (_finding_message(item))
    )
    properties: dict = {"kind": item.kind, "page": page}
    if item.citation is not None:
        verdict = item.citation.get("verdict") or {}
        properties |= {
            "ordinal": item.citation["ordinal"],
            "marker": item.citation["marker"],
            "confidence": verdict.get("confidence"),
            "band": verdict.get("band"),
            "problem_probability": verdict.get("problem_probability"),
        }
    if item.entry is not None:
        properties |= {
            "reference_id": item.entry.get("reference_id"),
            "reference_label": item.entry.get("label"),
        }
    if item.kind == FINDING:
        rule = RULES_BY_CODE.get(item.name)
        properties |= {"slug": rule.slug if rule else None, "severity": item.severity}
    result: dict = {
        "ruleId": item.name,
        "level": _level(item),
        "message": {"text": message},
        "locations": [location],
        "partialFingerprints": {FINGERPRINT_KEY: item.fingerprint},
        "properties": properties,
    }
    if item.name in RULE_IDS:
        result["ruleIndex"] = RULE_IDS.index(item.name)
    if with_baseline:
        result["baselineState"] = "unchanged" if item.baselined else "new"
    return result


def _overrides(disabled: list[str], levels: dict[str, str]) -> list[dict]:
    found = []
    for code in sorted({*disabled, *levels}):
        if code not in RULES_BY_CODE:
            continue
        configuration = (
            {"enabled": False} if code in disabled else {"level": SEVERITY_LEVELS[levels[code]]}
        )
        found.append(
            {
                "descriptor": {"id": code, "index": RULE_IDS.index(code)},
                "configuration": configuration,
            }
        )
    return found


def to_sarif(
    outcome: Outcome,
    fail_on: FailOn,
    thesis_path: Path,
    version: str,
    coverage: dict,
    rule_overrides: dict | None = None,
) -> dict:
    """`fail_on` decides which verdicts become results; `rule_overrides` is the applied
    RuleOverrides.as_json()."""
    locator = _Locator(thesis_path)
    with_baseline = outcome.baseline is not None
    results = [
        _result(item, locator, with_baseline)
        for item in outcome.items
        if item.kind == FINDING or selected(item, fail_on)
    ]
    overrides = rule_overrides or {"disabled": [], "levels": {}}
    invocation: dict = {"executionSuccessful": True, "exitCode": outcome.exit_code}
    configured = _overrides(overrides["disabled"], overrides["levels"])
    if configured:
        invocation["ruleConfigurationOverrides"] = configured
    return {
        "$schema": SARIF_SCHEMA_URI,
        "version": SARIF_VERSION,
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": TOOL_NAME,
                        "version": version,
                        "rules": [
                            *(_finding_rule(rule) for rule in RULES),
                            *(_label_rule(label) for label in VERDICT_LABELS),
                        ],
                    }
                },
                "invocations": [invocation],
                "artifacts": [
                    {"location": {"uri": locator.uri(thesis_path)}, "roles": ["analysisTarget"]}
                ],
                "results": results,
                "properties": {"coverage": coverage},
            }
        ],
    }
