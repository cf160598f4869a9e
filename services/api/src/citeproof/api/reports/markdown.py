"""The Markdown report: a summary, one table row per citation, then per-citation details."""

from __future__ import annotations

from citeproof.api.reports.labels import label_name
from citeproof.api.reports.schemas import PROBLEM_LABELS, Report, ReportCitation

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


def render_markdown(report: Report) -> str:
    thesis = report.thesis
    lines = [
        f"# Citation report: {_cell(thesis.title or thesis.filename)}",
        "",
        f"- File: {_cell(thesis.filename)}",
        f"- Run: `{report.run.id}` — status **{report.run.status}**",
        f"- Citations checked: **{report.summary.total}**, needing attention (contradicted or "
        f"unsupported): **{sum(report.summary.counts.get(x, 0) for x in PROBLEM_LABELS)}**",
        "",
        "## Summary",
        "",
        "| verdict | citations |",
        "|---|---:|",
    ]
    lines += [f"| {label_name(label)} | {n} |" for label, n in report.summary.counts.items() if n]
    lines += [
        "",
        "## Citations",
        "",
        "| # | marker | claim | source | verdict | confidence | page |",
        "|---:|---|---|---|---|---:|---:|",
    ]
    for c in report.citations:
        verdict = c.verdict
        lines.append(
            f"| {c.ordinal} | {_cell(c.marker)} | {_cell(c.claim, CLAIM_CELL_CHARS)} "
            f"| {_cell(_source_name(c), 60)} | {label_name(verdict.label if verdict else None)} "
            f"| {f'{verdict.confidence:.2f}' if verdict else '—'} "
            f"| {_cell(_where(c))} |"
        )
    lines += ["", "## Details", ""]
    for c in report.citations:
        lines += _details(c)
    return "\n".join(lines).rstrip() + "\n"


def _details(c: ReportCitation) -> list[str]:
    verdict = c.verdict
    out = [
        f"### {c.ordinal}. {_cell(c.marker)} — {label_name(verdict.label if verdict else None)}",
        "",
        f"**Claim** ({'page ' if c.page is not None else ''}{_cell(_where(c))}):",
        "",
        _quote_block(c.claim),
        "",
        f"**Reference** [{_cell(c.reference.label)}]: {_cell(c.reference.raw)}",
        "",
        f"**Source:** {_cell(_source_name(c))}{_cell(_linked_by(c))}",
        "",
    ]
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
