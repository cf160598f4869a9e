"""The HTML report comes from an autoescaping template: values from users and source documents
are escaped by default, and only the static style, script and policy are emitted verbatim."""

from __future__ import annotations

import uuid

import msgspec

from citeproof.api.reports import html
from citeproof.api.reports.schemas import Report
from citeproof.pipeline import NEEDS_REVIEW

HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)>'


def _report(claim: str, label: str) -> Report:
    stage = {"done": 1, "total": 1}
    return msgspec.convert(
        {
            "run": {
                "id": str(uuid.uuid4()),
                "status": "completed",
                "session_id": str(uuid.uuid4()),
                "thesis_document_id": str(uuid.uuid4()),
                "created_at": "2026-12-01T10:00:00+00:00",
                "finished_at": None,
                "message": None,
                "waiting_for": [],
                "progress": {"parse": stage, "retrieve": stage, "judge": stage},
                "counts": {label: 1},
            },
            "thesis": {"id": str(uuid.uuid4()), "title": HOSTILE, "filename": HOSTILE},
            "summary": {"total": 1, "counts": {label: 1}},
            "citations": [
                {
                    "citation_id": 1,
                    "ordinal": 1,
                    "marker": HOSTILE,
                    "claim": claim,
                    "context": HOSTILE,
                    "page": 2,
                    "reference": {"label": '1" onmouseover="x', "raw": HOSTILE, "title": None},
                    "source": None,
                    "verdict": {
                        "label": label,
                        "confidence": 0.5,
                        "rationale": HOSTILE,
                        "quote": HOSTILE,
                        "quote_page": 3,
                        "backend": HOSTILE,
                        "model": HOSTILE,
                        "downgrade_reason": HOSTILE,
                    },
                }
            ],
        },
        Report,
    )


def test_the_template_environment_escapes_by_default():
    assert html._TEMPLATES.autoescape is True


def test_every_user_value_is_escaped_and_only_the_static_script_runs():
    page = html.render_html(_report(HOSTILE, f'{NEEDS_REVIEW}" data-x="'))
    assert "<script>alert" not in page and "<img" not in page
    assert "&lt;script&gt;alert(&#34;x&#34;)" in page
    # A hostile label cannot leave its attribute (or name a CSS class).
    assert 'data-x="' not in page and "badge badge-pending" in page
    assert page.count("<script>") == 1 and html.INLINE_SCRIPTS[0] in page
    assert html.INLINE_STYLES[0] in page


def test_new_labels_render_with_their_names():
    page = html.render_html(_report("A claim.", NEEDS_REVIEW))
    assert "badge badge-needs_review" in page and ">Needs review<" in page
