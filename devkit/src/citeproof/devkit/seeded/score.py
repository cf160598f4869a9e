"""A run's report against a seeded thesis's answer key: per rule, what was injected and found.

Matching: each report citation is paired with the key citation whose sentence and marker it
resembles most (one to one, best pairs first; the parser may join two sentences or cut one, so
similarity is by shared words), each report entry with the key entry whose printed text it
resembles most. A key citation or entry without a partner counts as found by no rule; a report
citation without a partner that carries a finding counts against that rule's precision.

Per rule (`Tally`): injected (key items whose kind must trigger it), detected (of those, the
ones it reported), flagged (items it reported, not counting tolerated ones: `key.TOLERATED`),
untouched (items nothing was done to) and false alarms (of those, the ones it reported). For
quote-verified (info), the untouched quotations are the cases that must be reported.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from rapidfuzz import fuzz

from citeproof.devkit.seeded import key as k
from citeproof.pipeline import ERROR, ON_CITATION, ON_ENTRY, QUOTE_VERIFIED, RULES, WARNING, Rule

# The benchmark scores the rules of this issue (codes below 500: reference verification's
# 5xx rules need bibliographic indexes and are benchmarked by bench-references).
SCORED_RULES: Final = tuple(rule for rule in RULES if int(rule.code[2:]) < 500)
# Similarity (0-100) below which a report item is no key item's.
MIN_CITATION_SIMILARITY: Final = 60.0
MIN_ENTRY_SIMILARITY: Final = 60.0
# How much the marker counts in a citation's similarity (the sentence the rest).
MARKER_WEIGHT: Final = 0.3
# Failing cases kept per rule for the report.
KEPT_CASES: Final = 12
# Findings about the reference list and attachments, counted for normal variations of an entry
# also when reported on its citations.
ENTRY_RELATED_CITATION_RULES: Final = frozenset({"CP401", "CP413", "CP415"})


@dataclass
class Tally:
    rule: Rule
    injected: int = 0
    detected: int = 0
    flagged: int = 0
    untouched: int = 0
    false_alarms: int = 0
    misses: list[dict[str, Any]] = field(default_factory=list)
    alarms: list[dict[str, Any]] = field(default_factory=list)

    def record(self) -> dict[str, Any]:
        def share(part: int, whole: int) -> float | None:
            return round(part / whole, 4) if whole else None

        return {
            "id": self.rule.code,
            "severity": self.rule.severity,
            "injected": self.injected,
            "detected": self.detected,
            "recall": share(self.detected, self.injected),
            "flagged": self.flagged,
            "precision": share(self.detected, self.flagged),
            "untouched": self.untouched,
            "false_alarms": self.false_alarms,
            "false_alarm_rate": share(self.false_alarms, self.untouched),
        }


@dataclass
class Variations:
    cases: int = 0
    errors: int = 0
    warnings: int = 0
    by_variant: dict[str, dict[str, int]] = field(default_factory=dict)
    failures: list[dict[str, Any]] = field(default_factory=list)

    def record(self) -> dict[str, Any]:
        return {"cases": self.cases, "errors": self.errors, "warnings": self.warnings}


@dataclass
class Scores:
    tallies: dict[str, Tally] = field(
        default_factory=lambda: {rule.code: Tally(rule) for rule in SCORED_RULES}
    )
    variations: Variations = field(default_factory=Variations)
    citations: int = 0
    citations_matched: int = 0
    untouched_citations: int = 0
    entries: int = 0
    entries_matched: int = 0
    unmatched_report_citations: int = 0
    unmatched_report_entries: int = 0
    theses: int = 0

    def rules(self) -> dict[str, dict[str, Any]]:
        return {tally.rule.slug: tally.record() for tally in self.tallies.values()}


def _normal(text: str) -> str:
    folded = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(re.findall(r"\w+", folded))


Scorer = Callable[[int, int, str, str], float]


def _pairs(
    left: Sequence[str], right: Sequence[str], scorer: Scorer, minimum: float
) -> dict[int, int]:
    """Best one-to-one pairs (left index -> right index), best similarity first."""
    scored = []
    for i, a in enumerate(left):
        for j, b in enumerate(right):
            similarity = scorer(i, j, a, b)
            if similarity >= minimum:
                scored.append((similarity, i, j))
    scored.sort(key=lambda item: (-item[0], item[1], item[2]))
    taken_left: dict[int, int] = {}
    taken_right: set[int] = set()
    for _, i, j in scored:
        if i not in taken_left and j not in taken_right:
            taken_left[i] = j
            taken_right.add(j)
    return taken_left


def match_citations(report: Sequence[dict], keys: Sequence[k.CitationKey]) -> dict[int, int]:
    """Key citation index -> report citation index."""
    report_texts = [_normal(c.get("claim") or "") for c in report]
    report_markers = [_normal(c.get("marker") or "") for c in report]
    key_texts = [_normal(c.sentence) for c in keys]
    key_markers = [_normal(c.marker) for c in keys]

    def similarity(i: int, j: int, a: str, b: str) -> float:
        # Shared words find the sentence when the parser joined or cut it; the plain ratio
        # tells apart two citations quoting one passage, one of them with a word changed.
        sentence = (fuzz.token_set_ratio(a, b) + fuzz.ratio(a, b)) / 2 if a and b else 0.0
        marker = fuzz.ratio(key_markers[i], report_markers[j]) if report_markers[j] else 0.0
        return (1 - MARKER_WEIGHT) * sentence + MARKER_WEIGHT * marker

    return _pairs(key_texts, report_texts, similarity, MIN_CITATION_SIMILARITY)


def match_entries(report: Sequence[dict], keys: Sequence[k.EntryKey]) -> dict[int, int]:
    """Key entry index -> report entry index."""
    report_texts = [_normal(e.get("raw") or "") for e in report]
    key_texts = [_normal(e.text) for e in keys]

    def similarity(i: int, j: int, a: str, b: str) -> float:
        return fuzz.ratio(a, b) if a and b else 0.0

    return _pairs(key_texts, report_texts, similarity, MIN_ENTRY_SIMILARITY)


def _codes(item: dict | None) -> dict[str, str]:
    """Rule code -> severity of the findings on a report citation or entry."""
    if item is None:
        return {}
    return {f["rule"]: f.get("severity", "") for f in item.get("findings") or []}


def _case(thesis: str, key_item: k.CitationKey | k.EntryKey, found: dict[str, str]) -> dict:
    text = key_item.sentence if isinstance(key_item, k.CitationKey) else key_item.text
    return {"thesis": thesis, "kind": key_item.kind, "variant": key_item.variant,
            "detail": key_item.detail, "text": text[:300], "found": sorted(found)}  # fmt: skip


def score_thesis(scores: Scores, key: k.ThesisKey, report: dict) -> None:
    scores.theses += 1
    citations = list(report.get("citations") or [])
    entries = list(report.get("entries") or [])
    cited = match_citations(citations, key.citations)
    listed = match_entries(entries, key.entries)
    swapped_works = {e.work for e in key.entries if e.kind == k.SWAPPED}
    scores.citations += len(key.citations)
    scores.citations_matched += len(cited)
    scores.entries += len(key.entries)
    scores.entries_matched += len(listed)
    citation_rules = [t for t in scores.tallies.values() if t.rule.subject == ON_CITATION]
    entry_rules = [t for t in scores.tallies.values() if t.rule.subject == ON_ENTRY]

    for index, item in enumerate(key.citations):
        found = _codes(citations[cited[index]] if index in cited else None)
        swapped = item.work in swapped_works
        untouched = item.kind is None and not swapped
        scores.untouched_citations += untouched
        # The citations of a wrongly attached entry are not checked against the wrong file.
        also = k.tolerated_codes(k.SWAPPED) if swapped else frozenset()
        _count(citation_rules, key.id, item, found, untouched, also)
        quote = item.form in (k.FORM_QUOTE, k.FORM_BLOCK)
        verified = scores.tallies[QUOTE_VERIFIED.code]
        if untouched and quote:
            verified.injected += 1
            verified.detected += QUOTE_VERIFIED.code in found
            if QUOTE_VERIFIED.code not in found and len(verified.misses) < KEPT_CASES:
                verified.misses.append(_case(key.id, item, found))
        if QUOTE_VERIFIED.code in found and (
            (untouched and quote) or QUOTE_VERIFIED.code not in k.tolerated_codes(item.kind) | also
        ):
            verified.flagged += 1
    for index, entry in enumerate(key.entries):
        found = _codes(entries[listed[index]] if index in listed else None)
        if entry.kind == k.VARIATION:
            _variation(scores.variations, key, entry, found, citations, cited)
            continue
        _count(entry_rules, key.id, entry, found, entry.kind is None)

    matched_citations = set(cited.values())
    for index, citation in enumerate(citations):
        if index not in matched_citations:
            scores.unmatched_report_citations += 1
            for code in _codes(citation):
                if code in scores.tallies and code != QUOTE_VERIFIED.code:
                    scores.tallies[code].flagged += 1
    matched_entries = set(listed.values())
    for index, entry in enumerate(entries):
        if index not in matched_entries:
            scores.unmatched_report_entries += 1
            for code in _codes(entry):
                if code in scores.tallies:
                    scores.tallies[code].flagged += 1


def _count(
    tallies: Iterable[Tally],
    thesis: str,
    item: k.CitationKey | k.EntryKey,
    found: dict[str, str],
    untouched: bool,
    also_tolerated: frozenset[str] = frozenset(),
) -> None:
    expected = k.expected_rule(item.kind)
    tolerated = k.tolerated_codes(item.kind) | also_tolerated
    for tally in tallies:
        code = tally.rule.code
        if code == QUOTE_VERIFIED.code:
            continue
        if expected is not None and expected.code == code:
            tally.injected += 1
            if code in found:
                tally.detected += 1
                tally.flagged += 1
            elif len(tally.misses) < KEPT_CASES:
                tally.misses.append(_case(thesis, item, found))
            continue
        if code in found and code not in tolerated:
            tally.flagged += 1
        if untouched:
            tally.untouched += 1
            if code in found:
                tally.false_alarms += 1
                if len(tally.alarms) < KEPT_CASES:
                    tally.alarms.append(_case(thesis, item, found))


def _variation(
    variations: Variations,
    key: k.ThesisKey,
    item: k.EntryKey,
    found: dict[str, str],
    citations: Sequence[dict],
    cited: dict[int, int],
) -> None:
    """A normal variation: its entry's findings and the list's findings on its citations."""
    severities = dict(found)
    for index, citation in enumerate(key.citations):
        if citation.entry == item.index and citation.kind is None and index in cited:
            for code, severity in _codes(citations[cited[index]]).items():
                if code in ENTRY_RELATED_CITATION_RULES:
                    severities[code] = severity
    variant = item.variant or "?"
    counts = variations.by_variant.setdefault(variant, {"cases": 0, "errors": 0, "warnings": 0})
    variations.cases += 1
    counts["cases"] += 1
    error = ERROR in severities.values()
    warning = WARNING in severities.values()
    variations.errors += error
    variations.warnings += warning
    counts["errors"] += error
    counts["warnings"] += warning
    if (error or warning) and len(variations.failures) < KEPT_CASES:
        variations.failures.append(_case(key.id, item, severities))
