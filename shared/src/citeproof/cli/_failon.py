"""`--fail-on`: what makes `citeproof check` exit 1, read once from the flag or the project's
configuration (`fail-on` in `[tool.citeproof]`).

The names come from the pipeline contract (citeproof.pipeline): the verdict-label groups
(FAIL_ON_GROUPS), the judge's band group (FAIL_ON_BANDS), the severities (FAIL_ON_SEVERITIES:
every finding at that configured level or worse) and every rule by code or slug (its findings
whatever their level). A label group that holds a label reported as a finding
(pipeline.LABEL_FINDINGS: `missing` holds reference_missing, source_missing, source_unreadable)
also selects that rule's findings, so `--fail-on missing` means the same on every report
version. Codes are read in any case; everything else in lower case.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from citeproof.contracts.findings import rule_for
from citeproof.pipeline import (
    DEFAULT_FAIL_ON,
    FAIL_ON_BANDS,
    FAIL_ON_GROUPS,
    FAIL_ON_SEVERITIES,
    LABEL_FINDINGS,
    RULES,
    SEVERITIES,
)


def _at_or_worse(severity: str) -> frozenset[str]:
    return frozenset(SEVERITIES[: SEVERITIES.index(severity) + 1])


def accepted_names() -> str:
    """What `--fail-on` accepts (the usage error and the --help text)."""
    return (
        f"a comma-separated list of: the verdict groups "
        f"{', '.join(FAIL_ON_GROUPS)}; the judge's band {', '.join(FAIL_ON_BANDS)}; the "
        f"severities {' and '.join(FAIL_ON_SEVERITIES)} (findings at that level or worse); or "
        f"rule codes and slugs ({RULES[0].code}..{RULES[-1].code}, e.g. {RULES[0].code} or "
        f"{RULES[0].slug}; `citeproof rules` lists them)"
    )


def accepted_sentence() -> str:
    return f"--fail-on takes {accepted_names()}"


@dataclass(frozen=True)
class FailOn:
    """A parsed `--fail-on`: the names as given (canonical form) and what they select."""

    names: tuple[str, ...]
    labels: frozenset[str]  # verdict labels (effective, after --min-confidence)
    bands: frozenset[str]  # verdict bands
    severities: frozenset[str]  # finding severities (configured)
    rules: frozenset[str]  # rule codes whose findings fail at any severity

    @property
    def text(self) -> str:
        return ",".join(self.names)

    def selects_finding(self, code: str, severity: str) -> bool:
        return severity in self.severities or code in self.rules

    def selects_verdict(self, label: str | None, band: str | None) -> bool:
        return label in self.labels or band in self.bands


def parse_fail_on(spec: str | Iterable[str]) -> FailOn:
    """`"error,contradicted"` or `["error", "contradicted"]` -> FailOn; ValueError (with the
    sentence listing what is accepted) on an unknown or empty name list."""
    words = spec.split(",") if isinstance(spec, str) else list(spec)
    names: list[str] = []
    unknown: list[str] = []
    labels: set[str] = set()
    bands: set[str] = set()
    severities: set[str] = set()
    rules: set[str] = set()
    for word in (w.strip() for w in words):
        if not word:
            continue
        lowered = word.lower()
        if lowered in FAIL_ON_GROUPS:
            names.append(lowered)
            labels |= FAIL_ON_GROUPS[lowered]
            rules |= {LABEL_FINDINGS[label].code for label in FAIL_ON_GROUPS[lowered]
                      if label in LABEL_FINDINGS}  # fmt: skip
        elif lowered in FAIL_ON_BANDS:
            names.append(lowered)
            bands |= FAIL_ON_BANDS[lowered]
        elif lowered in FAIL_ON_SEVERITIES:
            names.append(lowered)
            severities |= _at_or_worse(lowered)
        else:
            try:
                rule = rule_for(word)
            except KeyError:
                unknown.append(word)
                continue
            names.append(rule.code)
            rules.add(rule.code)
    if unknown or not names:
        not_these = f" (not {', '.join(repr(u) for u in unknown)})" if unknown else ""
        raise ValueError(accepted_sentence() + not_these)
    return FailOn(
        names=tuple(dict.fromkeys(names)),
        labels=frozenset(labels),
        bands=frozenset(bands),
        severities=frozenset(severities),
        rules=frozenset(rules),
    )


DEFAULT = parse_fail_on(DEFAULT_FAIL_ON)
