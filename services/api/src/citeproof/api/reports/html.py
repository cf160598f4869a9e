"""The standalone HTML report: one self-contained page (inline CSS and a tiny filter script).

Every string that comes from a user or a source document goes through `_e` (html.escape with
quotes), including inside attributes; the only script is static and reads data attributes.
The inline script and style are constants, so the Content-Security-Policy allows them by hash
(the API's header, and a meta tag for a copy saved to disk); the page has no inline `style=` or
event-handler attributes, which a strict policy would block.
"""

from __future__ import annotations

import html
from datetime import UTC

from citeproof.api.headers import content_security_policy
from citeproof.api.reports.labels import (
    LABEL_COLOURS,
    LABEL_NAMES,
    PENDING_COLOURS,
    label_name,
)
from citeproof.api.reports.schemas import PROBLEM_LABELS, Report, ReportCitation


def _e(value: object) -> str:
    return html.escape("" if value is None else str(value), quote=True)


_PENDING_CLASS = "pending"


def _badge(label: str | None) -> str:
    # Labels are identifiers from a closed set, so they can name CSS classes; anything else
    # (a label this version does not know) gets the pending colours.
    css_class = label if label in LABEL_COLOURS else _PENDING_CLASS
    return f'<span class="badge badge-{css_class}">{_e(label_name(label))}</span>'


def _badge_css() -> str:
    colours = {**LABEL_COLOURS, _PENDING_CLASS: PENDING_COLOURS}
    return "".join(
        f".badge-{name}{{color:{fg};background:{bg}}}\n" for name, (fg, bg) in colours.items()
    )


_CSS = """
:root{--ink:#1f2328;--muted:#59636e;--line:#e5e7eb;--bg:#f6f7f9;--card:#fff;--accent:#2f5bd3}
*{box-sizing:border-box}
body{margin:0;font:15px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;
color:var(--ink);background:var(--bg)}
header{background:#101828;color:#fff;padding:28px 0 24px}
.wrap{max-width:1080px;margin:0 auto;padding:0 24px}
.brand{font-weight:700;letter-spacing:.02em;color:#9db4ff;font-size:13px;text-transform:uppercase}
h1{margin:6px 0 4px;font-size:26px;line-height:1.25}
.meta{color:#c7d0e0;font-size:13px}
.headline{margin:2px 0 8px;font-size:16px;color:#e6ebf5}
.cards{display:flex;flex-wrap:wrap;gap:12px;margin:-18px 0 20px}
.card{background:var(--card);border:1px solid var(--line);border-radius:12px;padding:12px 16px;
min-width:130px;box-shadow:0 1px 2px rgba(16,24,40,.06);cursor:pointer;text-align:left;font:inherit}
.card b{display:block;font-size:24px}
.card.active{outline:2px solid var(--accent)}
.card small{color:var(--muted)}
.citation{background:var(--card);border:1px solid var(--line);border-radius:12px;margin:0 0 14px;
padding:16px 18px;box-shadow:0 1px 2px rgba(16,24,40,.04)}
.row{display:flex;gap:10px;align-items:center;flex-wrap:wrap}
.num{color:var(--muted);font-variant-numeric:tabular-nums;min-width:2.2em}
.marker{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;background:#eef2ff;
border-radius:6px;padding:1px 6px;font-size:13px}
.badge{border-radius:999px;padding:2px 10px;font-size:12px;font-weight:600;white-space:nowrap}
.conf{color:var(--muted);font-size:13px;margin-left:auto}
.claim{margin:10px 0 6px;font-size:15.5px}
.label{color:var(--muted);font-size:12px;text-transform:uppercase;letter-spacing:.04em}
blockquote{margin:6px 0 8px;padding:8px 12px;border-left:3px solid var(--accent);
background:#f8faff;border-radius:0 8px 8px 0}
.small{color:var(--muted);font-size:13px}
details summary{cursor:pointer;color:var(--accent);font-size:13px;margin-top:6px}
footer{color:var(--muted);font-size:12px;padding:24px 0 40px}
@media print{.cards .card{box-shadow:none}header{background:#fff;color:#000}}
""" + _badge_css()

_SCRIPT = """
document.querySelectorAll('.card[data-filter]').forEach(function(card){
  card.addEventListener('click',function(){
    var f=card.getAttribute('data-filter'),active=card.classList.contains('active');
    document.querySelectorAll('.card').forEach(function(c){c.classList.remove('active')});
    if(!active){card.classList.add('active')}
    document.querySelectorAll('.citation').forEach(function(el){
      el.style.display=(active||f==='all'||el.getAttribute('data-label')===f)?'':'none';
    });
  });
});
"""
# The policy of a report saved to disk: only its own inline script and style may run.
SAVED_REPORT_POLICY = content_security_policy(
    inline_scripts=[_SCRIPT], inline_styles=[_CSS], same_origin=False
)
INLINE_SCRIPTS = (_SCRIPT,)
INLINE_STYLES = (_CSS,)


def _citation_html(c: ReportCitation) -> str:
    verdict = c.verdict
    parts = [
        f'<article class="citation" data-label="{_e(verdict.label if verdict else "pending")}">',
        '<div class="row">',
        f'<span class="num">#{c.ordinal}</span>',
        f'<span class="marker">{_e(c.marker)}</span>',
        _badge(verdict.label if verdict else None),
    ]
    if verdict is not None:
        parts.append(f'<span class="conf">confidence {verdict.confidence:.2f}</span>')
    parts.append("</div>")
    page = f" · page {_e(c.page)}" if c.page is not None else ""
    parts.append(f'<p class="claim">{_e(c.claim)}</p>')
    source = "no uploaded source matched this reference"
    if c.source is not None:
        source = _e(c.source.title or c.source.filename)
        if c.source.title:
            source += f' <span class="small">({_e(c.source.filename)})</span>'
    parts.append(
        f'<div class="small">Reference [{_e(c.reference.label)}]{page} · Source: {source}</div>'
    )
    if verdict is not None:
        if verdict.quote:
            quote_page = (
                f" (page {_e(verdict.quote_page)})" if verdict.quote_page is not None else ""
            )
            parts.append(f'<div class="label">Quote from the source{quote_page}</div>')
            parts.append(f"<blockquote>{_e(verdict.quote)}</blockquote>")
        if verdict.rationale:
            parts.append(f'<div class="small"><b>Why:</b> {_e(verdict.rationale)}</div>')
        if verdict.downgrade_reason:
            parts.append(f'<div class="small"><b>Note:</b> {_e(verdict.downgrade_reason)}</div>')
    if c.candidates:
        parts.append(
            '<div class="label">No entry matches this marker; closest entries (not linked)</div>'
        )
        parts.append(
            '<ul class="candidates">'
            + "".join(
                f'<li class="small"><b>[{_e(entry.label)}]</b> {_e(entry.raw)}</li>'
                for entry in c.candidates
            )
            + "</ul>"
        )
    extra = []
    if c.reference.raw:
        extra.append(f'<div class="small"><b>Reference entry:</b> {_e(c.reference.raw)}</div>')
    if c.context:
        extra.append(f'<div class="small"><b>Context:</b> {_e(c.context)}</div>')
    if verdict is not None:
        model = f" / {_e(verdict.model)}" if verdict.model else ""
        extra.append(f'<div class="small"><b>Judge:</b> {_e(verdict.backend)}{model}</div>')
    if extra:
        parts.append("<details><summary>More</summary>" + "".join(extra) + "</details>")
    parts.append("</article>")
    return "".join(parts)


def render_html(report: Report) -> str:
    thesis = report.thesis
    title = thesis.title or thesis.filename
    counts = report.summary.counts
    cards = [
        f'<button class="card" data-filter="all"><b>{report.summary.total}</b>'
        "<small>citations</small></button>"
    ]
    for label, n in counts.items():
        if n:
            cards.append(
                f'<button class="card" data-filter="{_e(label)}"><b>{n}</b>'
                f"<small>{_e(LABEL_NAMES.get(label, label))}</small></button>"
            )
    problems = sum(counts.get(label, 0) for label in PROBLEM_LABELS)
    headline = (
        f"{problems} of {report.summary.total} citations need attention "
        "(contradicted or unsupported)."
        if problems
        else f"No citation among {report.summary.total} was found contradicted or unsupported."
    )
    created = report.run.created_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
    body = "".join(_citation_html(c) for c in report.citations) or (
        '<p class="small">No citations were found in this document.</p>'
    )
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{SAVED_REPORT_POLICY}">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>citeproof report — {_e(title)}</title>
<style>{_CSS}</style></head>
<body>
<header><div class="wrap">
<div class="brand">citeproof · citation report</div>
<h1>{_e(title)}</h1>
<p class="headline">{_e(headline)}</p>
<div class="meta">{_e(thesis.filename)} · run {_e(report.run.id)} · {_e(report.run.status)}
 · {_e(created)}</div>
</div></header>
<main class="wrap">
<div class="cards">{"".join(cards)}</div>
{body}
</main>
<footer class="wrap">Generated by citeproof. Verdicts are machine judgements with the quoted
evidence; read the quote before relying on a verdict.</footer>
<script>{_SCRIPT}</script>
</body></html>
"""
