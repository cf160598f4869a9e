"""The web UI takes rule names, help texts, severities and bands from the API (GET /rules), as
it takes labels from GET /labels: no rule code, slug or band is spelled in its
scripts, so a rule added to the pipeline contract shows up with its name and help."""

from __future__ import annotations

import re
from pathlib import Path

from citeproof import pipeline

STATIC = Path(__file__).resolve().parents[2] / "services/api/src/citeproof/api/static"


def _code(text: str) -> str:
    """The script without its comments (a comment may name a rule; code may not)."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.DOTALL)
    return re.sub(r"(^|\s)//.*$", "", text, flags=re.MULTILINE)


def test_the_web_ui_has_no_copy_of_the_rules_severities_or_bands():
    names = [r.code for r in pipeline.RULES] + [r.slug for r in pipeline.RULES]
    # Severities are ordinary words in UI code (`toast(..., { error: true })`): the scripts take
    # them from SEVERITIES by position, and the literal check below is left to the rest.
    names += [*pipeline.BANDS, pipeline.UNJUDGED]
    scripts = sorted(STATIC.glob("*.js"))
    assert scripts
    for script in scripts:
        code = _code(script.read_text(encoding="utf-8"))
        assert not re.search(r"CP\d{3}", code), script.name
        for name in names:
            # Neither a string literal nor an object key.
            assert not re.search(rf"[\"'`]{re.escape(name)}[\"'`]|(^|[{{,\s]){name}\s*:", code), (
                script.name,
                name,
            )


def test_the_rules_come_from_the_api():
    labels = (STATIC / "labels.js").read_text(encoding="utf-8")
    assert 'fetch("/rules"' in labels
    report = (STATIC / "report.js").read_text(encoding="utf-8")
    assert "RULES[" in report and "SEVERITIES" in report and "BANDS" in report
