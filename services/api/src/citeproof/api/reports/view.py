"""What the rendered formats (HTML, Markdown) show beyond the JSON: the reading order, the list
of problems for the first screen, and display names of evidence origins."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, NamedTuple

from citeproof.api.reports.schemas import Report, ReportCitation, ReportFinding
from citeproof.contracts.findings import (
    FROM_REFERENCE_LIST,
    FROM_SOURCE_METADATA,
    FROM_SOURCE_TEXT,
    FROM_THESIS,
    severity_rank,
)
from citeproof.pipeline import ERROR, LABEL_FINDINGS, WARNING

ORIGIN_NAMES: Final = {
    FROM_SOURCE_TEXT: "Source",
    FROM_SOURCE_METADATA: "Source's own metadata",
    FROM_REFERENCE_LIST: "Reference list",
    FROM_THESIS: "Thesis",
}
# Severities the first screen lists (info findings, a verified quotation, are not problems).
PROBLEM_SEVERITIES: Final = (ERROR, WARNING)
_LABEL_OF_RULE: Final = {rule.code: label for label, rule in LABEL_FINDINGS.items()}


class Problem(NamedTuple):
    """One line of the first screen's list: a finding and where it is."""

    finding: ReportFinding
    where: str  # "citation #3 [12]" or "reference entry [4]"


def risk_ordered(citations: Sequence[ReportCitation]) -> list[ReportCitation]:
    """Most doubtful first (risk.rank; thesis order for a report without ranks)."""
    return sorted(citations, key=lambda c: (c.risk.rank if c.risk else 0, c.ordinal))


def cited_label(citation: ReportCitation) -> str | None:
    """The label the citation shows: its verdict's, or the pipeline label its finding stands
    for (reference_missing, ...) when that label is reported as a finding; None = pending."""
    if citation.verdict is not None:
        return citation.verdict.label
    for finding in citation.findings:
        if finding.rule in _LABEL_OF_RULE:
            return _LABEL_OF_RULE[finding.rule]
    return None


def evidence_origin(origin: str) -> str:
    """A person's name for where evidence comes from; an index names itself ("openalex")."""
    return ORIGIN_NAMES.get(origin, origin)


def first_screen_problems(report: Report) -> list[Problem]:
    """Every error and warning of the report, errors first, citations in risk order before the
    reference list's; a finding shown at a citation and at its entry is listed once."""
    problems: list[Problem] = []
    seen: set[tuple[str, str]] = set()
    for citation in risk_ordered(report.citations):
        for finding in citation.findings:
            if finding.severity in PROBLEM_SEVERITIES:
                seen.add((finding.rule, finding.fingerprint))
                problems.append(Problem(finding, f"citation #{citation.ordinal} {citation.marker}"))
    for entry in report.entries:
        for finding in entry.findings:
            if finding.severity in PROBLEM_SEVERITIES and (
                (finding.rule, finding.fingerprint) not in seen
            ):
                problems.append(Problem(finding, f"reference entry [{entry.label or '?'}]"))
    # Stable: within a severity, the order above.
    return sorted(problems, key=lambda p: severity_rank(p.finding.severity))
