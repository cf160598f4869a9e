"""The CLI's progress says what a run reused and embedded (issue 28), and nothing when the API
does not say it (zeros are omitted from the status)."""

from __future__ import annotations

import io

from citeproof.cli._progress import Progress, plain_line, stage_detail

RECHECK = {
    "status": "judging",
    "waiting_for": [],
    "progress": {
        "parse": {"done": 65, "total": 65, "reused": 64},
        "retrieve": {"done": 154, "total": 154, "reused": 148, "embedded": 31},
        "judge": {"done": 150, "total": 154, "reused": 148},
    },
}


def test_a_re_check_says_what_it_took_over_and_what_it_embedded() -> None:
    assert stage_detail("parse", RECHECK["progress"]["parse"]) == "64 already parsed"
    assert stage_detail("retrieve", RECHECK["progress"]["retrieve"]) == (
        "31 passages embedded, 148 reused"
    )
    assert plain_line(RECHECK).endswith(
        "parse 65/65 (64 already parsed)  retrieve 154/154 (31 passages embedded, 148 reused)  "
        "judge 150/154 (148 reused)"
    )


def test_a_stage_with_nothing_reused_shows_its_count_alone() -> None:
    assert stage_detail("judge", {"done": 3, "total": 14}) == ""
    screen = io.StringIO()
    screen.isatty = lambda: True  # type: ignore[method-assign]
    Progress(screen).update(RECHECK)
    drawn = screen.getvalue()
    assert "64 already parsed" in drawn and "31 passages embedded, 148 reused" in drawn
