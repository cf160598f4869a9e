"""What a report amounts to: its coverage, and the exit code `citeproof check` owes the caller.

Exit codes cannot lie: a run that examined nothing (no citations, none linked to a source,
every linked one a judge error, or too few definite verdicts) is never "clean" — it exits
EXIT_NOTHING_CHECKED with a sentence saying why, even if it also lists problems.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from citeproof.pipeline import (
    DEFINITE_LABELS,
    FAIL_ON_GROUPS,
    JUDGE_ERROR,
    JUDGE_LABELS,
    NEEDS_REVIEW,
    VERDICT_LABELS,
)

EXIT_CLEAN = 0
EXIT_PROBLEMS = 1
EXIT_ERROR = 2
EXIT_NOTHING_CHECKED = 3
EXIT_INTERRUPTED = 130

DEFAULT_MIN_COVERAGE = 0.5
DEFAULT_MIN_CONFIDENCE = 0.0


def fail_on_labels(groups: Iterable[str]) -> frozenset[str]:
    """The labels behind `--fail-on` group names (unknown names are the caller's usage error)."""
    labels: set[str] = set()
    for group in groups:
        labels |= FAIL_ON_GROUPS[group]
    return frozenset(labels)


@dataclass(frozen=True)
class ExitPolicy:
    fail_on: tuple[str, ...]
    min_coverage: float = DEFAULT_MIN_COVERAGE
    min_confidence: float = DEFAULT_MIN_CONFIDENCE

    def validate(self) -> None:
        unknown = [g for g in self.fail_on if g not in FAIL_ON_GROUPS]
        if unknown or not self.fail_on:
            raise ValueError(
                f"--fail-on takes a comma-separated list of {', '.join(FAIL_ON_GROUPS)}"
                + (f" (not {', '.join(unknown)})" if unknown else "")
            )
        if not 0.0 <= self.min_coverage <= 1.0:
            raise ValueError("--min-coverage is a fraction between 0 and 1")
        if not 0.0 <= self.min_confidence <= 1.0:
            raise ValueError("--min-confidence is a confidence between 0 and 1")

    def effective_label(self, verdict: dict | None) -> str | None:
        """The label the exit code counts: a judge's answer below --min-confidence is one a
        person has to review."""
        if verdict is None:
            return None
        label = verdict["label"]
        if label in DEFINITE_LABELS and verdict["confidence"] < self.min_confidence:
            return NEEDS_REVIEW
        return label


def _has_reference(citation: dict) -> bool:
    reference = citation.get("reference") or {}
    return reference.get("raw") is not None or reference.get("title") is not None


def coverage(citations: list[dict], labels: list[str | None] | None = None) -> dict:
    """How much of the thesis was actually examined, stage by stage."""
    if labels is None:
        labels = [c["verdict"]["label"] if c["verdict"] else None for c in citations]
    by_label = dict.fromkeys(VERDICT_LABELS, 0)
    for label in labels:
        if label is not None:
            by_label[label] = by_label.get(label, 0) + 1
    found = len(citations)
    definite = sum(label in DEFINITE_LABELS for label in labels)
    return {
        "citations_found": found,
        "linked_to_reference": sum(_has_reference(c) for c in citations),
        "linked_to_source": sum(c.get("source") is not None for c in citations),
        "judged": sum(label in JUDGE_LABELS for label in labels),
        "definite": definite,
        "definite_fraction": round(definite / found, 4) if found else 0.0,
        "unjudged": sum(label is None for label in labels),
        "by_label": by_label,
    }


@dataclass(frozen=True)
class Outcome:
    exit_code: int
    # Why the run is EXIT_NOTHING_CHECKED (None otherwise).
    reason: str | None
    # Ordinals of the citations whose (effective) label is in the --fail-on set.
    problems: list[int] = field(default_factory=list)

    def as_json(self, policy: ExitPolicy) -> dict:
        return {
            "exit_code": self.exit_code,
            "reason": self.reason,
            "problems": len(self.problems),
            "fail_on": list(policy.fail_on),
            "min_coverage": policy.min_coverage,
            "min_confidence": policy.min_confidence,
        }


def decide(report: dict, policy: ExitPolicy) -> Outcome:
    citations = report["citations"]
    labels = [policy.effective_label(c["verdict"]) for c in citations]
    failing = fail_on_labels(policy.fail_on)
    pairs = zip(citations, labels, strict=True)
    problems = [c["ordinal"] for c, label in pairs if label in failing]
    reason = _nothing_checked(citations, labels, policy)
    if reason is not None:
        return Outcome(EXIT_NOTHING_CHECKED, reason, problems)
    return Outcome(EXIT_PROBLEMS if problems else EXIT_CLEAN, None, problems)


def _nothing_checked(
    citations: list[dict], labels: list[str | None], policy: ExitPolicy
) -> str | None:
    found = len(citations)
    if not found:
        return (
            "no citations were found in the thesis, so nothing was checked (is it the right "
            "file, and does it cite with numbered or author-year markers?)"
        )
    linked = [label for c, label in zip(citations, labels, strict=True) if c.get("source")]
    if not linked:
        references = sum(_has_reference(c) for c in citations)
        return (
            f"none of the {found} citations could be linked to an uploaded source "
            f"({references} have a reference entry); pass the cited papers as SOURCES "
            "(files or folders)"
        )
    if all(label == JUDGE_ERROR for label in linked):
        return (
            f"the judge failed on every one of the {len(linked)} citations linked to a source "
            f"({JUDGE_ERROR}): is the LLM endpoint reachable? see the service logs"
        )
    definite = sum(label in DEFINITE_LABELS for label in labels)
    if definite / found < policy.min_coverage:
        return (
            f"only {definite} of {found} citations ({definite / found:.0%}) got a definite "
            f"verdict, below --min-coverage {policy.min_coverage:g}"
        )
    return None
