"""The standalone HTML report: one self-contained page (inline CSS and a tiny filter script).

The page is the autoescaping Jinja2 template `templates/report.html`: every value that comes
from a user or a source document is escaped by default, attributes included; only the static
style, script and policy below are marked safe. The only script is static and reads data
attributes.
The inline script and style are constants, so the Content-Security-Policy allows them by hash
(the API's header, and a meta tag for a copy saved to disk); the page has no inline `style=` or
event-handler attributes, which a strict policy would block.
"""

from __future__ import annotations

from datetime import UTC

import jinja2
from markupsafe import Markup

from citeproof.api.headers import content_security_policy
from citeproof.api.reports.labels import (
    LABEL_COLOURS,
    LABEL_NAMES,
    PENDING_COLOURS,
    label_name,
)
from citeproof.api.reports.schemas import PROBLEM_LABELS, Report

_PENDING_CLASS = "pending"


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


def _badge_class(label: str | None) -> str:
    # Labels are identifiers from a closed set, so they can name CSS classes; anything else
    # (a label this version does not know) gets the pending colours.
    return label if label in LABEL_COLOURS else _PENDING_CLASS


_TEMPLATES = jinja2.Environment(
    loader=jinja2.PackageLoader("citeproof.api", "templates"),
    # On for every template: a value is escaped unless Python marked it safe.
    autoescape=True,
    keep_trailing_newline=True,
    undefined=jinja2.StrictUndefined,
)
# Static constants, not data: emitted verbatim so their CSP hashes match.
_STATIC = {
    "css": Markup(_CSS),
    "script": Markup(_SCRIPT),
    "policy": Markup(SAVED_REPORT_POLICY),
}


def render_html(report: Report) -> str:
    counts = report.summary.counts
    cards = [{"filter": "all", "count": report.summary.total, "name": "citations"}]
    cards += [
        {"filter": label, "count": n, "name": LABEL_NAMES.get(label, label)}
        for label, n in counts.items()
        if n
    ]
    problems = sum(counts.get(label, 0) for label in PROBLEM_LABELS)
    headline = (
        f"{problems} of {report.summary.total} citations need attention "
        "(contradicted or unsupported)."
        if problems
        else f"No citation among {report.summary.total} was found contradicted or unsupported."
    )
    return _TEMPLATES.get_template("report.html").render(
        **_STATIC,
        title=report.thesis.title or report.thesis.filename,
        thesis=report.thesis,
        run=report.run,
        created=report.run.created_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        headline=headline,
        cards=cards,
        citations=report.citations,
        badge_class=_badge_class,
        label_name=label_name,
    )
