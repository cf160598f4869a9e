"""What `citeproof check` prints when it is done: a headline that says what was found, what is
uncertain and what could not be checked; the error findings, then the warnings, then the
judge's verdicts by band; what fails the check; where the reports went.

With `--baseline` the lists hold only what the baseline does not (the new ones, by name), and
say how many the baseline accepted.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from citeproof.cli._failon import FailOn
from citeproof.cli._outcome import FINDING, VERDICT, ExitPolicy, Item, Outcome, band_of
from citeproof.pipeline import (
    BAND_NAMES,
    BANDS,
    ERROR,
    INFO,
    LIKELY_PROBLEM,
    RULES_BY_CODE,
    UNJUDGED,
    WARNING,
)

CLAIM_CHARS = 90
# A long thesis can have hundreds of findings; the report lists them all.
MAX_LISTED = 40


def _short(text: str, limit: int = CLAIM_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _where(item: Item) -> str:
    if item.citation is not None:
        c = item.citation
        page = f"p.{c['page']} " if c.get("page") is not None else ""
        return f"{c['marker']:<12} {page}“{_short(c['claim'])}”"
    entry = item.entry or {}
    label = f"[{entry['label']}] " if entry.get("label") else ""
    return f"entry {label}“{_short(item.subject)}”"


def _name(item: Item) -> str:
    """A finding's code and slug; a verdict's label (with the judge's probability of a
    problem)."""
    if item.kind == FINDING:
        rule = RULES_BY_CODE.get(item.name)
        return f"{item.name} {rule.slug}" if rule else item.name
    probability = ((item.citation or {}).get("verdict") or {}).get("problem_probability")
    return item.name if probability is None else f"{item.name} p={probability:.2f}"


def _finding_lines(item: Item) -> list[str]:
    lines = [f"  {_name(item):<28} {_where(item)}"]
    finding = item.finding or {}
    if finding.get("message"):
        lines.append(f"        {_short(finding['message'], 110)}")
    return lines


def headline(report: dict, items: list[Item], coverage: dict) -> str:
    """One honest sentence: found, uncertain, not checked."""
    found = coverage["citations_found"]
    errors = sum(i.kind == FINDING and i.severity == ERROR for i in items)
    warnings = sum(i.kind == FINDING and i.severity == WARNING for i in items)
    bands = coverage["bands"]
    entries = len(report.get("entries") or [])
    scope = _plural(found, "citation")
    if entries:
        scope += f" and {entries} reference entr{'y' if entries == 1 else 'ies'}"
    parts = [f"In {scope}: {_plural(errors, 'error')}, {_plural(warnings, 'warning')}"]
    parts.append(f"the judge rates {bands[LIKELY_PROBLEM]} likely problem(s)")
    uncertain = [f"{bands[band]} {BAND_NAMES[band].lower()}" for band in BANDS[1:]]
    parts.append(" and ".join(uncertain))
    not_examined = found - coverage["examined"]
    sentence = "; ".join(parts)
    if not_examined:
        sentence += (
            f"; {not_examined} of {found} citations could not be examined (no source linked, "
            "or it failed) and are not vouched for"
        )
    elif found:
        sentence += "; every citation was examined, but “likely fine” is a probability, not a proof"
    return sentence + "."


def print_summary(
    report: dict,
    outcome: Outcome,
    policy: ExitPolicy,
    coverage: dict,
    say: Callable[[str], None],
    written: list[Path],
    config_path: Path | None,
) -> None:
    fail_on: FailOn = policy.fail_on
    with_baseline = outcome.baseline is not None
    say("")
    say(report["thesis"].get("title") or report["thesis"]["filename"])
    say(headline(report, outcome.items, coverage))
    findings = [i for i in outcome.items if i.kind == FINDING]
    for severity, title in ((ERROR, "errors"), (WARNING, "warnings")):
        of_level = [i for i in findings if i.severity == severity]
        if not of_level:
            continue
        shown = [i for i in of_level if not i.baselined]
        accepted = len(of_level) - len(shown)
        count = f"{len(shown)} new, {accepted} in the baseline" if with_baseline else len(shown)
        say(f"\n{title} ({count}):")
        for item in shown[:MAX_LISTED]:
            for line in _finding_lines(item):
                say(line)
        if len(shown) > MAX_LISTED:
            say(f"  … and {len(shown) - MAX_LISTED} more (see the report)")
    infos = [i for i in findings if i.severity == INFO]
    if infos:
        by_rule: dict[str, int] = {}
        for item in infos:
            by_rule[item.name] = by_rule.get(item.name, 0) + 1
        notes = ", ".join(
            f"{code} {RULES_BY_CODE[code].name.lower() if code in RULES_BY_CODE else ''}: {n}"
            for code, n in by_rule.items()
        )
        say(f"\ninfo: {notes}")
    # Likely problems that fail the check are listed once, under "needs attention".
    listed_below = LIKELY_PROBLEM in fail_on.bands and not outcome.reason
    _print_bands(report, outcome, coverage, say, listed_below)
    _print_labels(report, say)
    new = outcome.new
    if outcome.reason:
        say(f"\nnothing could be checked: {outcome.reason}")
    elif new:
        heading = f"needs attention (--fail-on {fail_on.text})"
        if with_baseline:
            heading += f": {len(new)} not in the baseline {outcome.baseline.path}"  # type: ignore[union-attr]
        say(f"\n{heading}:")
        for item in new[:MAX_LISTED]:
            say(f"  {_name(item):<22} {_where(item)}")
        if len(new) > MAX_LISTED:
            say(f"  … and {len(new) - MAX_LISTED} more (see the report)")
    elif outcome.problems and with_baseline:
        say(
            f"\nnothing new: the {len(outcome.problems)} finding(s)/verdict(s) --fail-on "
            f"{fail_on.text} selects are all in the baseline {outcome.baseline.path}"  # type: ignore[union-attr]
        )
    else:
        say(f"\nnothing falls in --fail-on {fail_on.text}")
    if with_baseline and outcome.absent:
        say(
            f"{outcome.absent} baseline entr{'y' if outcome.absent == 1 else 'ies'} no longer "
            "found (fixed, or changed): rewrite the baseline with --write-baseline to drop them"
        )
    if config_path is not None or written:
        say("")
    if config_path is not None:
        say(f"configuration: {config_path}")
    if written:
        say(f"report: {written[0]}" + "".join(f"\n        {p}" for p in written[1:]))


def _print_bands(
    report: dict,
    outcome: Outcome,
    coverage: dict,
    say: Callable[[str], None],
    listed_below: bool,
) -> None:
    bands = coverage["bands"]
    if not any(bands[band] for band in BANDS):
        return
    say("\nthe judge's verdicts by band:")
    for band in (*BANDS, UNJUDGED):
        name = BAND_NAMES.get(band, "not judged")
        say(f"  {name:<16} {bands[band]:>5}")
    likely = [c for c in report["citations"] if band_of(c) == LIKELY_PROBLEM]
    baselined = {id(i.citation) for i in outcome.items if i.kind == VERDICT and i.baselined}
    likely = [c for c in likely if id(c) not in baselined]
    likely.sort(key=lambda c: -((c.get("verdict") or {}).get("problem_probability") or 0.0))
    if likely and listed_below:
        say("  (the likely problems are listed under “needs attention” below)")
        return
    if likely:
        say("  likely problems:")
    for c in likely[:MAX_LISTED]:
        verdict = c.get("verdict") or {}
        probability = verdict.get("problem_probability")
        p = f"p={probability:.2f}" if probability is not None else "p=?"
        page = f"p.{c['page']} " if c.get("page") is not None else ""
        label = verdict.get("label", "-")
        say(f"    {label:<19} {p}  {c['marker']:<12} {page}“{_short(c['claim'])}”")
    if len(likely) > MAX_LISTED:
        say(f"    … and {len(likely) - MAX_LISTED} more (see the report)")


def _print_labels(report: dict, say: Callable[[str], None]) -> None:
    counts = report["summary"]["counts"]
    if not any(counts.values()):
        return
    width = max([len(label) for label in counts] + [10])
    say(f"\n{'verdict':<{width}}  citations")
    say(f"{'-' * width}  ---------")
    for label, n in counts.items():
        if n:
            say(f"{label:<{width}}  {n:>9}")
    say(f"{'total':<{width}}  {report['summary']['total']:>9}")
