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
    PENDING_COLOURS,
    label_name,
)
from citeproof.api.reports.rules import (
    BAND_COLOURS,
    SEVERITY_COLOURS,
    SEVERITY_NAMES,
    UNJUDGED_COLOURS,
    band_name,
)
from citeproof.api.reports.schemas import Report, ReportCitation, ReportFinding
from citeproof.api.reports.verification import verification_summary, verification_text
from citeproof.api.reports.view import (
    cited_label,
    evidence_origin,
    first_screen_problems,
    risk_ordered,
)
from citeproof.pipeline import BANDS, SEVERITIES, UNJUDGED

_PENDING_CLASS = "pending"
# Filter cards: `data-filter="<attribute>:<value>"` shows the citations whose data-<attribute>
# is that value (the script below).
_BAND_FILTER = "band"
_SEVERITY_FILTER = "severity"
_NO_FINDING = "none"


def _badge_css() -> str:
    colours = {
        **{f"badge-{name}": c for name, c in LABEL_COLOURS.items()},
        f"badge-{_PENDING_CLASS}": PENDING_COLOURS,
        **{f"sev-{name}": c for name, c in SEVERITY_COLOURS.items()},
        **{f"band-{name}": c for name, c in BAND_COLOURS.items()},
        f"band-{UNJUDGED}": UNJUDGED_COLOURS,
    }
    return "".join(f".{name}{{color:{fg};background:{bg}}}\n" for name, (fg, bg) in colours.items())


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
.card{background:var(--card);border:1px solid var(--line);border-radius:12px;padding:10px 14px;
min-width:100px;box-shadow:0 1px 2px rgba(16,24,40,.06);cursor:pointer;text-align:left;font:inherit}
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
.problems{background:var(--card);border:1px solid var(--line);border-radius:12px;padding:12px 18px;
margin:0 0 18px}
.problems h2,.section{font-size:17px;margin:4px 0 10px}
.problems ol{margin:0;padding-left:20px}.problems li{margin:4px 0}
.finding{border:1px solid var(--line);border-radius:10px;padding:8px 12px;margin:10px 0;
background:#fcfcfd}
.sev{border-radius:6px;padding:1px 7px;font-size:12px;font-weight:600}
.code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:12.5px;color:var(--muted)}
.diffs{border-collapse:collapse;font-size:13px;margin:6px 0}
.diffs th,.diffs td{border:1px solid var(--line);padding:3px 8px;text-align:left;vertical-align:top}
.url{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:12.5px;word-break:break-all}
.entry{background:var(--card);border:1px solid var(--line);border-radius:12px;margin:0 0 12px;
padding:12px 18px}
.verification{color:var(--muted)}.verification.not_found{color:#9a6700}
.verification.not_looked_up{font-style:italic}
footer{color:var(--muted);font-size:12px;padding:24px 0 40px}
@media print{.cards .card{box-shadow:none}header{background:#fff;color:#000}}
""" + _badge_css()

_SCRIPT = """
document.querySelectorAll('.card[data-filter]').forEach(function(card){
  card.addEventListener('click',function(){
    var f=card.getAttribute('data-filter'),active=card.classList.contains('active');
    var at=f.indexOf(':'),key='data-'+f.slice(0,at),value=f.slice(at+1);
    document.querySelectorAll('.card').forEach(function(c){c.classList.remove('active')});
    if(!active){card.classList.add('active')}
    document.querySelectorAll('.citation').forEach(function(el){
      el.style.display=(active||f==='all'||el.getAttribute(key)===value)?'':'none';
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


def _severity_class(severity: str | None) -> str:
    # Closed sets again: a severity this version does not know is shown as info.
    return severity if severity in SEVERITY_COLOURS else SEVERITIES[-1]


def _band_class(band: str | None) -> str:
    return band if band in BAND_COLOURS else UNJUDGED


def _worst(citation: ReportCitation) -> str:
    """The citation's worst severity (data-severity), `none` without findings."""
    findings: list[ReportFinding] = citation.findings
    return _severity_class(findings[0].severity) if findings else _NO_FINDING


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
    summary = report.summary
    cards = [{"filter": "all", "count": summary.total, "name": "citations", "css": ""}]
    # Every band is counted, zero included: "0 likely problems" is information too.
    cards += [
        {
            "filter": f"{_BAND_FILTER}:{band}",
            "count": summary.bands.get(band, 0),
            "name": band_name(band),
            "css": "band-card",
        }
        for band in (*BANDS, UNJUDGED)
    ]
    cards += [
        {
            "filter": f"{_SEVERITY_FILTER}:{severity}",
            "count": sum(1 for c in report.citations if _worst(c) == severity),
            "name": f"citations with {SEVERITY_NAMES[severity].lower()}s",
            "css": "severity-card",
        }
        for severity in SEVERITIES[:2]
    ]
    entries_with_findings = [e for e in report.entries if e.findings]
    return _TEMPLATES.get_template("report.html").render(
        **_STATIC,
        title=report.thesis.title or report.thesis.filename,
        thesis=report.thesis,
        run=report.run,
        created=report.run.created_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        headline=summary.headline,
        findings_count=summary.findings,
        cards=cards,
        problems=first_screen_problems(report),
        citations=risk_ordered(report.citations),
        entries=report.entries,
        entries_with_findings=entries_with_findings,
        badge_class=_badge_class,
        severity_class=_severity_class,
        severity_name=lambda s: SEVERITY_NAMES.get(s, s),
        band_class=_band_class,
        band_name=band_name,
        worst=_worst,
        cited_label=cited_label,
        label_name=label_name,
        origin_name=evidence_origin,
        verification_text=verification_text,
        verification_summary=verification_summary(report.entries),
    )
