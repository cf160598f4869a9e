"""The Markdown report: the headline and summary, the problems found, one table row per
citation (most doubtful first), per-citation details with each finding's evidence, then the
reference list's findings."""

from __future__ import annotations

from citeproof.api.reports.labels import label_name
from citeproof.api.reports.rules import SEVERITY_NAMES, band_name
from citeproof.api.reports.schemas import Report, ReportCitation, ReportFinding
from citeproof.api.reports.verification import verification_summary, verification_text
from citeproof.api.reports.view import (
    cited_label,
    evidence_origin,
    first_screen_problems,
    risk_ordered,
)
from citeproof.pipeline import BANDS, UNJUDGED

CLAIM_CELL_CHARS = 120


def _cell(text: str | None, limit: int | None = None) -> str:
    """Table-cell safe: one line, pipes escaped, optionally shortened."""
    value = " ".join((text or "").split())
    if limit and len(value) > limit:
        value = value[: limit - 1].rstrip() + "…"
    return _inert(value).replace("|", "\\|") or "—"


# Backslash-escaped so text cannot open a link or image (`[`, `]`: `[x](url)`, `![x](url)`,
# `[x][ref]`), a code span or emphasis; the backslash itself first, so it cannot undo the rest.
_MARKDOWN_PUNCTUATION = frozenset("\\`*_[]")


def _inert(text: str) -> str:
    """Document text as Markdown that renders as that text: no link, image, code or tag.

    Renderers pass raw HTML through, so `<`, `>` and `&` become entities (this also stops
    `<https://...>` autolinks)."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return "".join(f"\\{ch}" if ch in _MARKDOWN_PUNCTUATION else ch for ch in text)


def _quote_block(text: str) -> str:
    return "\n".join(f"> {_inert(line)}" for line in text.splitlines() or [""])


def _source_name(citation: ReportCitation) -> str:
    if citation.source is None:
        return "—"
    return citation.source.title or citation.source.filename


def _where(c: ReportCitation) -> str:
    """Where the citation is: its page, or its file and line in a LaTeX source."""
    if c.source_file:
        return f"{c.source_file}:{c.source_line}"
    return str(c.page) if c.page is not None else "—"


def _linked_by(c: ReportCitation) -> str:
    if c.source is None or not c.source.link_method:
        return ""
    linked = f" (linked by {c.source.link_method}, {c.source.link_score or 0:.2f})"
    if c.source.shared_with:
        linked += f"; also linked to {', '.join(c.source.shared_with)}"
    return linked


def _band(c: ReportCitation) -> str:
    """The citation's band with the judge's problem probability, when it gave one."""
    band = c.risk.band if c.risk else None
    probability = c.risk.problem_probability if c.risk else None
    return band_name(band) + (f" ({probability:.2f})" if probability is not None else "")


def _finding_codes(c: ReportCitation) -> str:
    return ", ".join(f"{f.rule} {f.slug}" for f in c.findings) or "—"


def render_markdown(report: Report) -> str:
    thesis = report.thesis
    summary = report.summary
    lines = [
        f"# Citation report: {_cell(thesis.title or thesis.filename)}",
        "",
        f"**{_inert(summary.headline)}**",
        "",
        f"- File: {_cell(thesis.filename)}",
        f"- Run: `{report.run.id}` — status **{report.run.status}**",
        f"- Citations: **{summary.total}**; findings: "
        + ", ".join(
            f"**{n}** {SEVERITY_NAMES.get(s, s).lower()}" for s, n in summary.findings.items()
        ),
        "",
        "## Summary",
        "",
        "| band | citations |",
        "|---|---:|",
    ]
    lines += [
        f"| {band_name(band)} | {summary.bands.get(band, 0)} |" for band in (*BANDS, UNJUDGED)
    ]
    lines += ["", "| verdict | citations |", "|---|---:|"]
    lines += [f"| {label_name(label)} | {n} |" for label, n in summary.counts.items() if n]
    problems = first_screen_problems(report)
    if problems:
        lines += ["", "## Problems found", ""]
        lines += [
            f"{i}. **{SEVERITY_NAMES.get(p.finding.severity, p.finding.severity)}** "
            f"{p.finding.rule} {_inert(p.finding.name)} — {_cell(p.where)}: "
            f"{_cell(p.finding.message)}"
            for i, p in enumerate(problems, 1)
        ]
    lines += [
        "",
        "## Citations, most doubtful first",
        "",
        "| # | marker | claim | findings | band | verdict | confidence | page |",
        "|---:|---|---|---|---|---|---:|---:|",
    ]
    ordered = risk_ordered(report.citations)
    for c in ordered:
        verdict = c.verdict
        lines.append(
            f"| {c.ordinal} | {_cell(c.marker)} | {_cell(c.claim, CLAIM_CELL_CHARS)} "
            f"| {_finding_codes(c)} | {_band(c)} | {label_name(cited_label(c))} "
            f"| {f'{verdict.confidence:.2f}' if verdict else '—'} "
            f"| {_cell(_where(c))} |"
        )
    lines += ["", "## Details", ""]
    for c in ordered:
        lines += _details(c)
    with_findings = [e for e in report.entries if e.findings]
    lines += [
        "## Reference list",
        "",
        f"{len(report.entries)} entries, {len(with_findings)} with findings.",
        "",
    ]
    if summary := verification_summary(report.entries):
        lines += [_cell(summary), ""]
    for entry in with_findings:
        lines += [f"### [{_cell(entry.label)}] {_cell(entry.raw)}", ""]
        if entry.verification is not None:
            lines += [_cell(verification_text(entry.verification)), ""]
        if entry.source is not None:
            lines += [
                f"**Linked source:** {_cell(entry.source.title or entry.source.filename)}",
                "",
            ]
        for finding in entry.findings:
            lines += _finding(finding)
    return "\n".join(lines).rstrip() + "\n"


def _finding(f: ReportFinding) -> list[str]:
    """One finding: its rule, message, expected/found, differences and evidence."""
    out = [
        f"- **{SEVERITY_NAMES.get(f.severity, f.severity)} {f.rule}** ({f.slug}) "
        f"{_inert(f.name)}: {_cell(f.message)}"
    ]
    if f.expected is not None or f.found is not None:
        out.append(f"  - expected: {_cell(f.expected)}; found: {_cell(f.found)}")
    for d in f.differences:
        out.append(
            f"  - {_cell(d.field)}: the thesis has {_cell(d.expected)}, "
            f"the other side {_cell(d.found)}"
        )
    for e in f.evidence:
        where = evidence_origin(e.origin)
        if e.page is not None:
            where += f", page {e.page}"
        if e.printed_page is not None:
            where += f" (printed p. {_cell(e.printed_page)})"
        out.append(f"  - {_inert(where)}:" + (f" {_cell(e.text)}" if e.text else ""))
        if e.url:
            # Text, never a link: a URL from an index or a document is shown, not followed.
            out.append(f"    {_cell(e.url)}")
    return [*out, ""]


def _details(c: ReportCitation) -> list[str]:
    verdict = c.verdict
    out = [
        f"### {c.ordinal}. {_cell(c.marker)} — {label_name(cited_label(c))} · {_band(c)}",
        "",
        f"**Claim** ({'page ' if c.page is not None else ''}{_cell(_where(c))}):",
        "",
        _quote_block(c.claim),
        "",
        f"**Reference** [{_cell(c.reference.label)}]: {_cell(c.reference.raw)}",
        "",
        # _cell trims, so the space before "(linked by …)" is written here.
        f"**Source:** {_cell(_source_name(c))}"
        + (f" {_cell(_linked_by(c))}" if _linked_by(c) else ""),
        "",
    ]
    if c.findings:
        out += ["**Findings:**", ""]
        for finding in c.findings:
            out += _finding(finding)
    if verdict is not None:
        out += [f"**Confidence:** {verdict.confidence:.2f} ({verdict.backend}"
                f"{' / ' + verdict.model if verdict.model else ''})", ""]  # fmt: skip
        if verdict.rationale:
            out += [f"**Why:** {_inert(' '.join(verdict.rationale.split()))}", ""]
        if verdict.quote:
            page = f" (page {verdict.quote_page})" if verdict.quote_page is not None else ""
            out += [f"**Quote{page}:**", "", _quote_block(verdict.quote), ""]
        if verdict.downgrade_reason:
            out += [f"**Note:** {_inert(' '.join(verdict.downgrade_reason.split()))}", ""]
    if c.candidates:
        out += ["**No entry matches this marker; closest entries (not linked):**", ""]
        out += [f"- [{_cell(entry.label)}] {_cell(entry.raw)}" for entry in c.candidates]
        out += [""]
    return out
