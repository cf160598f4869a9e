"""A sample's expected findings (the `findings` of samples/<corpus>/expected.json) against a
report (the API's JSON, v2): which are met, which are not, and the findings printed with their
evidence the way `make demo` shows them. Used by samples/demo.py and the end-to-end test of the
second sample (tests/e2e/test_demo_errors.py)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from typing import Any

from citeproof.pipeline import ERROR, ON_ENTRY, WARNING

# Typographic variants a PDF round trip introduces; compared as their plain forms.
_PLAIN = str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'", "–": "-", "—": "-", "\u00ad": ""})
_SPACE = re.compile(r"\s+")
# Characters of evidence text printed per line.
EVIDENCE_CHARS = 160


def plain(text: str | None) -> str:
    """Case, Unicode form, quote and dash styles and spacing do not change what text says."""
    text = unicodedata.normalize("NFKC", text or "").translate(_PLAIN)
    return _SPACE.sub(" ", text).strip().casefold()


def _shown(finding: dict[str, Any]) -> str:
    """Everything a finding shows a reader: message, both sides, differences, evidence."""
    parts = [finding.get("message"), finding.get("expected"), finding.get("found")]
    for difference in finding.get("differences") or []:
        parts += [difference.get("expected"), difference.get("found")]
    for evidence in finding.get("evidence") or []:
        parts += [evidence.get("text"), evidence.get("url")]
    return plain(" ".join(p for p in parts if p))


def _candidates(report: dict[str, Any], expected: dict[str, Any]) -> Iterable[dict[str, Any]]:
    """The report's findings of the expected rule on the expected subject."""
    if expected["on"] == ON_ENTRY:
        for entry in report.get("entries") or []:
            if entry.get("label") == expected["reference"]:
                yield from (f for f in entry.get("findings") or [] if f["rule"] == expected["rule"])
        return
    sentence = plain(expected["sentence"])[:60]
    for citation in report.get("citations") or []:
        if (citation.get("reference") or {}).get("label") != expected["reference"]:
            continue
        if sentence not in plain(citation.get("claim")):
            continue
        yield from (f for f in citation.get("findings") or [] if f["rule"] == expected["rule"])


def unmet(report: dict[str, Any], expected_findings: list[dict[str, Any]]) -> list[str]:
    """One sentence per expected finding the report lacks (or shows without its evidence)."""
    problems = []
    for expected in expected_findings:
        where = f"{expected['on']} [{expected['reference']}]"
        found = list(_candidates(report, expected))
        if not found:
            problems.append(f"{expected['rule']} {expected['slug']} missing on {where}")
            continue
        needle = plain(expected["evidence"])
        if not any(needle in _shown(finding) for finding in found):
            problems.append(
                f"{expected['rule']} {expected['slug']} on {where} does not show "
                f"{expected['evidence']!r}"
            )
    return problems


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= EVIDENCE_CHARS else text[: EVIDENCE_CHARS - 1] + "…"


def finding_lines(finding: dict[str, Any], where: str) -> list[str]:
    lines = [
        f"  {finding['severity']:<7} {finding['rule']} {finding['slug']:<22} {where}",
        f"          {_short(finding['message'])}",
    ]
    if finding.get("expected") is not None or finding.get("found") is not None:
        lines.append(
            f"          expected: {_short(finding.get('expected') or '-')}   "
            f"found: {_short(finding.get('found') or '-')}"
        )
    for difference in finding.get("differences") or []:
        lines.append(
            f"          {difference['field']}: {_short(difference['expected'])} -> "
            f"{_short(difference['found'])}"
        )
    for evidence in finding.get("evidence") or []:
        origin = evidence.get("origin", "")
        page = f", page {evidence['page']}" if evidence.get("page") is not None else ""
        text = f' "{_short(evidence["text"])}"' if evidence.get("text") else ""
        lines.append(f"          {origin}{page}:{text}")
    return lines


def problem_lines(report: dict[str, Any]) -> list[str]:
    """Every error and warning, errors first, each with its evidence: citations in risk order
    (most doubtful first), then the reference list's entries."""
    rows: list[tuple[int, list[str]]] = []
    seen: set[tuple[str, str]] = set()
    rank = {ERROR: 0, WARNING: 1}
    citations = sorted(
        report.get("citations") or [], key=lambda c: (c.get("risk") or {}).get("rank", 0)
    )
    for citation in citations:
        for finding in citation.get("findings") or []:
            if finding["severity"] in rank:
                seen.add((finding["rule"], finding["fingerprint"]))
                where = f"citation #{citation['ordinal']} {citation['marker']}"
                rows.append((rank[finding["severity"]], finding_lines(finding, where)))
    for entry in report.get("entries") or []:
        for finding in entry.get("findings") or []:
            if (
                finding["severity"] in rank
                and (finding["rule"], finding["fingerprint"]) not in seen
            ):
                where = f"reference entry [{entry.get('label') or '?'}]"
                rows.append((rank[finding["severity"]], finding_lines(finding, where)))
    rows.sort(key=lambda row: row[0])
    return [line for _, lines in rows for line in lines]
