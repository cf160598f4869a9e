"""Putting the doubtful citations first, counting the report, and its one honest headline.

Ranking: citations with an error finding first, then those with a warning, then by the judge's
band (likely problem, uncertain, not judged, likely fine) and its problem probability
(descending), then in the thesis's order. A citation nobody could judge is ranked above the
likely fine ones: unknown is not fine.

The headline states what was found (errors, warnings, the judge's likely problems), what is
uncertain and what could not be checked; it never says "no problem" about citations that were
not checked.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Final

from citeproof.api.reports.schemas import (
    ReportCitation,
    ReportEntry,
    ReportFinding,
    ReportVerdict,
)
from citeproof.contracts.findings import severity_rank
from citeproof.pipeline import (
    BANDS,
    CONTRADICTED,
    ERROR,
    JUDGE_ERROR,
    LIKELY_FINE,
    LIKELY_PROBLEM,
    NEEDS_REVIEW,
    NOT_CHECKABLE,
    PARTIALLY_SUPPORTED,
    REFERENCE_MISSING,
    RULES,
    SEVERITIES,
    SOURCE_MISSING,
    SOURCE_UNREADABLE,
    SUPPORTED,
    UNCERTAIN,
    UNJUDGED,
    UNSUPPORTED,
    WARNING,
)

# The band a judge's label implies when its verdict carries none (a backend without
# probabilities, a verdict stored before bands existed).
LABEL_BANDS: Final = {
    SUPPORTED: LIKELY_FINE,
    PARTIALLY_SUPPORTED: UNCERTAIN,
    NEEDS_REVIEW: UNCERTAIN,
    UNSUPPORTED: LIKELY_PROBLEM,
    CONTRADICTED: LIKELY_PROBLEM,
}
# Reading order of the bands; a citation without one sits between uncertain and likely fine.
_BAND_ORDER: Final = {LIKELY_PROBLEM: 0, UNCERTAIN: 1, None: 2, LIKELY_FINE: 3}
# Why a citation could not be checked, as the headline says it (by its pipeline label; None =
# no verdict yet).
_NOT_CHECKED_REASONS: Final = {
    SOURCE_MISSING: "without an uploaded source",
    REFERENCE_MISSING: "without a reference-list entry",
    SOURCE_UNREADABLE: "with an unreadable source",
    NOT_CHECKABLE: "without a claim to check",
    JUDGE_ERROR: "where the judge failed",
    None: "not judged yet",
}


def band_of(verdict: ReportVerdict | None) -> str | None:
    """The verdict's band, or the one its label implies; None for no verdict or a label that
    says the citation was not judged."""
    if verdict is None:
        return None
    return verdict.band or LABEL_BANDS.get(verdict.label)


def worst_severity(findings: Sequence[ReportFinding]) -> str | None:
    return min((f.severity for f in findings), key=severity_rank, default=None)


def risk_key(citation: ReportCitation, band: str | None) -> tuple[int, int, bool, float, int]:
    """Sort key: most doubtful first (see the module docstring)."""
    worst = worst_severity(citation.findings)
    # Info findings (a verified quotation) do not make a citation doubtful.
    finding_rank = severity_rank(worst) if worst in (ERROR, WARNING) else len(SEVERITIES)
    probability = citation.verdict.problem_probability if citation.verdict else None
    return (
        finding_rank,
        _BAND_ORDER.get(band, _BAND_ORDER[None]),
        # Within a band, higher probability first; a verdict without one after those with one.
        probability is None,
        -(probability or 0.0),
        citation.ordinal,
    )


def count_findings(
    citations: Sequence[ReportCitation], entries: Sequence[ReportEntry]
) -> tuple[dict[str, int], dict[str, int]]:
    """Findings by severity and by rule, each finding once (one shown both at a citation and
    at its entry carries the same fingerprint in both places)."""
    seen: set[tuple[str, str]] = set()
    severities = dict.fromkeys(SEVERITIES, 0)
    rules: Counter[str] = Counter()
    for finding in [f for c in citations for f in c.findings] + [
        f for e in entries for f in e.findings
    ]:
        identity = (finding.rule, finding.fingerprint)
        if identity in seen:
            continue
        seen.add(identity)
        severities[finding.severity] = severities.get(finding.severity, 0) + 1
        rules[finding.rule] += 1
    by_rule = {rule.code: rules[rule.code] for rule in RULES if rules[rule.code]}
    return severities, by_rule


def count_bands(bands: Sequence[str | None]) -> dict[str, int]:
    counts = dict.fromkeys((*BANDS, UNJUDGED), 0)
    for band in bands:
        counts[band or UNJUDGED] += 1
    return counts


def _plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def _join(parts: Sequence[str]) -> str:
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def headline(
    labels: Sequence[str | None],
    bands: Sequence[str | None],
    severities: dict[str, int],
    run_status: str,
    completed: bool,
) -> str:
    """One sentence: what was found, what is uncertain, what could not be checked. `labels` are
    the citations' stored verdict labels (None: not judged yet), `bands` their risk bands."""
    total = len(labels)
    errors, warnings = severities.get(ERROR, 0), severities.get(WARNING, 0)
    found = _join(
        [part for n, part in ((errors, _plural(errors, "error")),
                              (warnings, _plural(warnings, "warning"))) if n]
    )  # fmt: skip
    clauses = [f"{found} found" if found else "No error or warning found"]
    judged = Counter(band for band in bands if band is not None)
    n_judged = sum(judged.values())
    if total == 0:
        clauses.append("no citation was found in the text, so none was checked")
    elif n_judged:
        problems = judged[LIKELY_PROBLEM]
        rated = [
            "none is a likely problem"
            if not problems
            else f"{problems} {'is a likely problem' if problems == 1 else 'are likely problems'}"
        ]
        if judged[UNCERTAIN]:
            rated.append(f"{judged[UNCERTAIN]} uncertain")
        if judged[LIKELY_FINE]:
            rated.append(f"{judged[LIKELY_FINE]} likely fine")
        clauses.append(f"of {_plural(n_judged, 'citation')} the judge read, {_join(rated)}")
    else:
        clauses.append(f"the judge read none of the {_plural(total, 'citation')}")
    not_checked: Counter[str | None] = Counter()
    for label, band in zip(labels, bands, strict=True):
        if band is None:
            not_checked[label if label in _NOT_CHECKED_REASONS else None] += 1
    reasons = _join(
        [
            f"{n} {_NOT_CHECKED_REASONS[label]}"
            for label, n in sorted(not_checked.items(), key=lambda item: -item[1])
        ]
    )
    if not_checked and n_judged:
        clauses.append(f"{sum(not_checked.values())} of {total} could not be checked ({reasons})")
    elif not_checked:
        clauses[-1] += f" ({reasons})"
    sentence = "; ".join(clauses) + "."
    if not completed:
        sentence = f"Run {run_status}, results so far: {sentence[0].lower()}{sentence[1:]}"
    return sentence
