"""Findings as a report shows them: the request's rule settings (disable, re-level), the stored
findings resolved against them, and the pipeline labels that are findings synthesised once.

A rule is named by its code or slug (citeproof.contracts.findings.rule_for); the settings come
from the report's query string (`?disable=CP103,quote-verified&level=CP202:error`) so that the
formats the API renders (HTML, Markdown) honour the configuration the CLI reads from a user's
`citeproof.toml`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

import msgspec

from citeproof.api.errors import ApiError
from citeproof.api.reports.schemas import ReportFinding
from citeproof.contracts.findings import (
    FROM_REFERENCE_LIST,
    Evidence,
    Finding,
    fingerprint,
    rule_for,
    severity_rank,
)
from citeproof.pipeline import (
    AMBIGUOUS_SUFFIX,
    LABEL_FINDINGS,
    MARKER_BEYOND_LIST,
    ON_ENTRY,
    REFERENCE_MISSING,
    RULES_BY_CODE,
    SEVERITIES,
    Rule,
)

# Error codes of a refused rule setting (400).
UNKNOWN_RULE: Final = "unknown_rule"
INVALID_RULE_LEVEL: Final = "invalid_rule_level"
CONFLICTING_RULE_SETTINGS: Final = "conflicting_rule_settings"
# `level=CP202:error`: rule and severity.
LEVEL_SEPARATOR: Final = ":"
# A query value may list several rules: `disable=CP103,quote-verified`.
LIST_SEPARATOR: Final = ","
# Candidate entries shown as evidence of a missing reference (the report lists them all).
MAX_CANDIDATE_EVIDENCE: Final = 3
# A missing reference is not reported again as CP401 when a more precise rule already says
# why the marker names no entry.
MORE_PRECISE_THAN_MISSING: Final = frozenset({AMBIGUOUS_SUFFIX.code, MARKER_BEYOND_LIST.code})


class RuleSettings(msgspec.Struct, frozen=True):
    """Which rules a report leaves out and which it shows at another severity."""

    disabled: frozenset[str] = frozenset()  # rule codes
    levels: dict[str, str] = {}  # rule code -> severity

    def severity_of(self, rule: Rule) -> str:
        return self.levels.get(rule.code, rule.severity)


DEFAULT_SETTINGS: Final = RuleSettings()


def _items(values: Iterable[str] | None) -> list[str]:
    return [
        item.strip()
        for value in values or ()
        for item in value.split(LIST_SEPARATOR)
        if item.strip()
    ]


def _rule(name: str, parameter: str) -> Rule:
    try:
        return rule_for(name)
    except KeyError:
        raise ApiError(
            400,
            UNKNOWN_RULE,
            f"{parameter}: {name!r} is not a rule; name one by its code (CP101) or slug "
            "(quote-not-found) as GET /rules lists them.",
        ) from None


def parse_rule_settings(disable: Iterable[str] | None, level: Iterable[str] | None) -> RuleSettings:
    """The settings of `?disable=...&level=RULE:SEVERITY,...`; ApiError 400 for a rule that does
    not exist, a malformed or unknown severity, or one rule both disabled and re-levelled."""
    disabled = {_rule(name, "disable").code for name in _items(disable)}
    levels: dict[str, str] = {}
    for pair in _items(level):
        name, separator, severity = pair.partition(LEVEL_SEPARATOR)
        severity = severity.strip().lower()
        if not separator or severity not in SEVERITIES:
            raise ApiError(
                400,
                INVALID_RULE_LEVEL,
                f"level: {pair!r} is not RULE{LEVEL_SEPARATOR}SEVERITY; write e.g. "
                f"CP202{LEVEL_SEPARATOR}error, with a severity of {', '.join(SEVERITIES)}.",
            )
        code = _rule(name.strip(), "level").code
        if levels.get(code, severity) != severity:
            raise ApiError(
                400,
                CONFLICTING_RULE_SETTINGS,
                f"level: {code} is given two severities ({levels[code]} and {severity}).",
            )
        levels[code] = severity
    both = sorted(disabled & set(levels))
    if both:
        raise ApiError(
            400,
            CONFLICTING_RULE_SETTINGS,
            f"{', '.join(both)} cannot be both disabled and re-levelled; choose one.",
        )
    return RuleSettings(disabled=frozenset(disabled), levels=levels)


def resolve(
    finding: Finding,
    *,
    citation_subject: str | None,
    entry_subject: str | None,
    settings: RuleSettings,
) -> ReportFinding | None:
    """The finding as reported, or None when the request disabled its rule (or this version does
    not know the rule). Its fingerprint's subject is what the rule is about: the entry for an
    entry rule, the citing sentence and marker for a citation rule."""
    rule = RULES_BY_CODE.get(finding.rule)
    if rule is None or rule.code in settings.disabled:
        return None
    if rule.subject == ON_ENTRY:
        subject = entry_subject if entry_subject is not None else citation_subject
    else:
        subject = citation_subject if citation_subject is not None else entry_subject
    return ReportFinding(
        rule=rule.code,
        slug=rule.slug,
        name=rule.name,
        # The request's setting wins over what the producer stored, which wins over the default.
        severity=settings.levels.get(rule.code) or finding.severity or rule.severity,
        message=finding.message,
        expected=finding.expected,
        found=finding.found,
        differences=list(finding.differences),
        evidence=list(finding.evidence),
        claim_span=finding.claim_span,
        key=finding.key,
        fingerprint=fingerprint(rule.code, subject or "", finding.key),
    )


def worst_first(findings: Sequence[ReportFinding]) -> list[ReportFinding]:
    """Errors, then warnings, then info; by rule code within a severity; stable otherwise."""
    return sorted(findings, key=lambda f: (severity_rank(f.severity), f.rule))


def label_finding(
    label: str | None,
    *,
    rationale: str | None,
    marker: str,
    reference_raw: str | None,
    candidate_raws: Sequence[str],
    source_filename: str | None,
    stored_rules: set[str],
) -> Finding | None:
    """The finding a pipeline label stands for (reference_missing -> CP401, ...), unless the
    label is none of those or a stored finding already reports it (the same rule, or for a
    missing reference a more precise one)."""
    rule = LABEL_FINDINGS.get(label or "")
    if rule is None or rule.code in stored_rules:
        return None
    if label == REFERENCE_MISSING and stored_rules & MORE_PRECISE_THAN_MISSING:
        return None
    message = " ".join((rationale or "").split()) or rule.summary
    if label == REFERENCE_MISSING:
        evidence = [
            Evidence(origin=FROM_REFERENCE_LIST, text=raw)
            for raw in candidate_raws[:MAX_CANDIDATE_EVIDENCE]
        ]
        return Finding(rule=rule.code, message=message, expected=marker, evidence=evidence)
    evidence = [Evidence(origin=FROM_REFERENCE_LIST, text=reference_raw)] if reference_raw else []
    return Finding(rule=rule.code, message=message, found=source_filename, evidence=evidence)
