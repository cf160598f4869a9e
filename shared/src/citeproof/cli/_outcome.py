"""What a report amounts to: what could be examined, what fails the check, and the exit code
`citeproof check` owes the caller.

Exit codes (the one definition; README, docs/api.md and `check --help` repeat it):

- 0 clean: nothing `--fail-on` selects (or, with `--baseline`, nothing new);
- 1 problems: a finding or verdict `--fail-on` selects (with `--baseline`: one the baseline
  does not hold);
- 2 usage or runtime error;
- 3 nothing could be examined, with a sentence saying why: no citation was found; or no
  content rule could run and every citation linked to a source is `judge_error` (an outage,
  whatever --min-coverage says); or fewer citations than `--min-coverage` were examined.
  A citation counts as examined when its content rules (quotation, number, page) ran - its
  retrieve task succeeded: report field `content_checked` - or the judge gave it any label
  other than `judge_error` (`needs_review` included: the judge read it). Exit 3 wins over 1:
  a run that could not look is never reported as a verdict on the thesis;
- 130 interrupted.

Everything a check can fail on is an `Item`: a finding (on a citation or a reference-list
entry; its severity after the rule overrides) or a problem verdict (an effective label other
than supported and judge_error, or a verdict in the likely-problem band), each with its
baseline fingerprint.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from citeproof.cli._baseline import Baseline, compare
from citeproof.cli._failon import DEFAULT, FailOn
from citeproof.contracts import findings as contract
from citeproof.contracts.findings import fingerprint, severity_rank
from citeproof.pipeline import (
    BANDS,
    DEFINITE_LABELS,
    JUDGE_ERROR,
    JUDGE_LABELS,
    LABEL_FINDINGS,
    LIKELY_PROBLEM,
    NEEDS_REVIEW,
    SUPPORTED,
    UNJUDGED,
    VERDICT_LABELS,
)

EXIT_CLEAN = 0
EXIT_PROBLEMS = 1
EXIT_ERROR = 2
EXIT_NOTHING_CHECKED = 3
EXIT_INTERRUPTED = 130

DEFAULT_MIN_COVERAGE = 0.5
DEFAULT_MIN_CONFIDENCE = 0.0

FINDING = "finding"
VERDICT = "verdict"
# Verdicts worth a baseline entry and a SARIF result when --fail-on names them. A judge error
# is an outage, not a property of the thesis: it never goes into a baseline.
PROBLEM_VERDICT_LABELS = frozenset(VERDICT_LABELS) - {SUPPORTED, JUDGE_ERROR}
# Labels the API reports as findings (report v2) by their rule code.
_LABEL_OF_RULE = {rule.code: label for label, rule in LABEL_FINDINGS.items()}


@dataclass(frozen=True)
class ExitPolicy:
    fail_on: FailOn = DEFAULT
    min_coverage: float = DEFAULT_MIN_COVERAGE
    min_confidence: float = DEFAULT_MIN_CONFIDENCE

    def validate(self) -> None:
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


def citation_subject(citation: dict) -> str:
    """What a citation's fingerprints hash (the contract's definition, as the API uses it)."""
    return contract.citation_subject(citation["claim"], citation["marker"])


def entry_subject(entry: dict) -> str:
    return contract.entry_subject(entry.get("raw"), entry.get("label"))


@dataclass(frozen=True)
class Item:
    """One finding or problem verdict: what the exit code, the baseline and SARIF count."""

    kind: str  # FINDING or VERDICT
    name: str  # the rule code, or the verdict's (effective) label
    fingerprint: str
    subject: str
    citation: dict | None = None
    entry: dict | None = None
    finding: dict | None = None
    severity: str | None = None  # findings: after the overrides
    band: str | None = None  # verdicts
    # With --baseline: the baseline holds it ("unchanged"), else it is new.
    baselined: bool = False


def _finding_item(
    finding: dict, subject: str, citation: dict | None = None, entry: dict | None = None
) -> Item:
    fp = finding.get("fingerprint") or fingerprint(finding["rule"], subject, finding.get("key", ""))
    return Item(FINDING, finding["rule"], fp, subject, citation=citation, entry=entry,
                finding=finding, severity=finding.get("severity"))  # fmt: skip


def band_of(citation: dict) -> str | None:
    verdict = citation.get("verdict") or {}
    return verdict.get("band") or (citation.get("risk") or {}).get("band")


def collect(report: dict, policy: ExitPolicy) -> list[Item]:
    """Every finding (citations in report order, then entries) and every problem verdict.
    The report's findings carry their resolved severity (RuleOverrides.apply)."""
    items: list[Item] = []
    for citation in report["citations"]:
        subject = citation_subject(citation)
        for finding in citation.get("findings") or []:
            items.append(_finding_item(finding, subject, citation=citation))
        label = policy.effective_label(citation.get("verdict"))
        band = band_of(citation)
        if label in PROBLEM_VERDICT_LABELS or (label != JUDGE_ERROR and band == LIKELY_PROBLEM):
            assert label is not None
            items.append(Item(VERDICT, label, fingerprint(label, subject), subject,
                              citation=citation, band=band))  # fmt: skip
    for entry in report.get("entries") or []:
        subject = entry_subject(entry)
        for finding in entry.get("findings") or []:
            items.append(_finding_item(finding, subject, entry=entry))
    return items


def selected(item: Item, fail_on: FailOn) -> bool:
    if item.kind == FINDING:
        return fail_on.selects_finding(item.name, item.severity or "")
    return fail_on.selects_verdict(item.name, item.band)


def citation_label(citation: dict, policy: ExitPolicy | None = None) -> str | None:
    """The citation's label for coverage counts: its verdict's (effective), or, when the
    report gives a pipeline label as a finding instead (report v2), that label."""
    verdict = citation.get("verdict")
    if verdict is not None:
        return (policy or ExitPolicy()).effective_label(verdict)
    for finding in citation.get("findings") or []:
        if finding.get("rule") in _LABEL_OF_RULE:
            return _LABEL_OF_RULE[finding["rule"]]
    return None


def _has_reference(citation: dict) -> bool:
    reference = citation.get("reference") or {}
    return reference.get("raw") is not None or reference.get("title") is not None


def is_examined(citation: dict, label: str | None) -> bool:
    """Its content rules ran, or the judge gave it a label other than judge_error."""
    return bool(citation.get("content_checked")) or label in JUDGE_LABELS


def coverage(citations: list[dict], labels: list[str | None] | None = None) -> dict:
    """How much of the thesis was actually examined, stage by stage."""
    if labels is None:
        labels = [citation_label(c) for c in citations]
    by_label = dict.fromkeys(VERDICT_LABELS, 0)
    for label in labels:
        if label is not None:
            by_label[label] = by_label.get(label, 0) + 1
    bands = dict.fromkeys((*BANDS, UNJUDGED), 0)
    for citation in citations:
        band = band_of(citation)
        bands[band if band in bands else UNJUDGED] += 1
    found = len(citations)
    definite = sum(label in DEFINITE_LABELS for label in labels)
    examined = sum(is_examined(c, label) for c, label in zip(citations, labels, strict=True))
    return {
        "citations_found": found,
        "linked_to_reference": sum(_has_reference(c) for c in citations),
        "linked_to_source": sum(c.get("source") is not None for c in citations),
        "content_checked": sum(bool(c.get("content_checked")) for c in citations),
        "judged": sum(label in JUDGE_LABELS for label in labels),
        "examined": examined,
        "examined_fraction": round(examined / found, 4) if found else 0.0,
        "definite": definite,
        "definite_fraction": round(definite / found, 4) if found else 0.0,
        "unjudged": sum(label is None for label in labels),
        "by_label": by_label,
        "bands": bands,
    }


@dataclass(frozen=True)
class Outcome:
    exit_code: int
    # Why the run is EXIT_NOTHING_CHECKED (None otherwise).
    reason: str | None
    # Every finding and problem verdict of the report (collect), marked when a baseline
    # holds them.
    items: list[Item] = field(default_factory=list)
    # Those --fail-on selects (findings worst first, then verdicts), and of those the ones no
    # baseline holds (all of them without --baseline): these decide exit 1.
    problems: list[Item] = field(default_factory=list)
    new: list[Item] = field(default_factory=list)
    # With --baseline: its entries this run no longer shows (fixed, or changed).
    absent: int = 0
    baseline: Baseline | None = None

    @property
    def baselined(self) -> int:
        """Selected items the baseline holds."""
        return len(self.problems) - len(self.new)

    def as_json(self, policy: ExitPolicy) -> dict:
        return {
            "exit_code": self.exit_code,
            "reason": self.reason,
            "fail_on": list(policy.fail_on.names),
            "problems": len(self.problems),
            "new_problems": len(self.new),
            "baseline": str(self.baseline.path) if self.baseline else None,
            "baselined": self.baselined,
            "baseline_absent": self.absent,
            "min_coverage": policy.min_coverage,
            "min_confidence": policy.min_confidence,
        }


def _problem_order(item: Item) -> tuple[int, int]:
    if item.kind == FINDING:
        return (0, severity_rank(item.severity) if item.severity else 0)
    return (1, 0)


def decide(report: dict, policy: ExitPolicy, baseline: Baseline | None = None) -> Outcome:
    items = collect(report, policy)
    absent = 0
    if baseline is not None:
        comparison = compare(items, baseline)
        items = [replace(it, baselined=i in comparison.baselined) for i, it in enumerate(items)]
        absent = comparison.absent
    problems = sorted((it for it in items if selected(it, policy.fail_on)), key=_problem_order)
    new = [it for it in problems if not it.baselined]
    reason = _nothing_examined(report["citations"], policy)
    code = EXIT_NOTHING_CHECKED if reason else EXIT_PROBLEMS if new else EXIT_CLEAN
    return Outcome(code, reason, items, problems, new, absent, baseline)


def _nothing_examined(citations: list[dict], policy: ExitPolicy) -> str | None:
    found = len(citations)
    if not found:
        return (
            "no citations were found in the thesis, so nothing was examined (is it the right "
            "file, and does it cite with numbered or author-year markers?)"
        )
    labels = [citation_label(c, policy) for c in citations]
    linked = [(c, label) for c, label in zip(citations, labels, strict=True) if c.get("source")]
    content_ran = any(c.get("content_checked") for c in citations)
    if linked and not content_ran and all(label == JUDGE_ERROR for _, label in linked):
        return (
            f"the judge failed on every one of the {len(linked)} citations linked to a source "
            f"({JUDGE_ERROR}) and no quotation, number or page rule could run: is the LLM "
            "endpoint reachable? see the service logs"
        )
    examined = sum(is_examined(c, label) for c, label in zip(citations, labels, strict=True))
    if examined / found >= policy.min_coverage:
        return None
    if not linked:
        references = sum(_has_reference(c) for c in citations)
        return (
            f"none of the {found} citations could be examined: none could be linked to an "
            f"uploaded source ({references} have a reference entry); pass the cited papers as "
            "SOURCES (files or folders), or --min-coverage 0 to check the reference list alone"
        )
    return (
        f"only {examined} of {found} citations ({examined / found:.0%}) could be examined "
        f"(their quotation, number and page rules ran, or the judge gave a label other than "
        f"{JUDGE_ERROR}), below --min-coverage {policy.min_coverage:g}"
    )
