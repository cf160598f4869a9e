"""`citeproof check` without a stack: output planning, exit codes, SARIF, JSON and CSV."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import jsonschema
import pytest

from citeproof.cli._failon import parse_fail_on
from citeproof.cli._outcome import (
    EXIT_CLEAN,
    EXIT_NOTHING_CHECKED,
    EXIT_PROBLEMS,
    ExitPolicy,
    coverage,
    decide,
)
from citeproof.cli._outputs import Output, OutputError, plan_outputs, to_csv, to_json
from citeproof.cli._sarif import locate, to_sarif
from citeproof.pipeline import (
    CONTRADICTED,
    JUDGE_ERROR,
    NEEDS_REVIEW,
    SOURCE_MISSING,
    SUPPORTED,
    UNSUPPORTED,
)

SARIF_SCHEMA = Path(__file__).resolve().parents[1] / "data" / "sarif" / "sarif-schema-2.1.0.json"
DEFAULT = ExitPolicy()


def _policy(fail_on: str, **kwargs: float) -> ExitPolicy:
    return ExitPolicy(parse_fail_on(fail_on), **kwargs)


def _citation(ordinal: int, label: str | None, *, source: bool = True, confidence: float = 0.8,
              claim: str = "Trees cool streets by 2 °C", marker: str = "[1]",
              findings: list[dict] | None = None, band: str | None = None,
              content_checked: bool | None = None) -> dict:  # fmt: skip
    verdict = None
    if label is not None:
        verdict = {
            "label": label,
            "confidence": confidence,
            "rationale": "because",
            "quote": "Trees cooled streets by 2 °C." if label == SUPPORTED else None,
            "quote_page": 3 if label == SUPPORTED else None,
            "backend": "fake",
            "model": "m",
            "downgrade_reason": None,
            "band": band,
            "problem_probability": None if band is None else 0.5,
        }
    citation = {
        "citation_id": ordinal,
        "ordinal": ordinal,
        "marker": marker,
        "claim": f"{claim} {marker}.",
        "context": None,
        "page": 1,
        "reference": {"label": "1", "raw": "Smith 2020. Trees.", "title": "Trees"},
        "source": {"document_id": "d", "title": "Trees", "filename": "smith.pdf"}
        if source
        else None,
        "verdict": verdict,
        "findings": findings or [],
    }
    if content_checked is not None:
        citation["content_checked"] = content_checked
    return citation


def _report(*citations: dict) -> dict:
    return {
        "run": {"id": "r", "status": "completed"},
        "thesis": {"id": "t", "title": "Cooling", "filename": "thesis.md"},
        "summary": {"total": len(citations), "counts": {}},
        "citations": list(citations),
    }


# --- outputs ---------------------------------------------------------------------------------


def test_one_format_goes_to_the_named_file_several_to_path_dot_format() -> None:
    assert plan_outputs(None, None) == [Output("html", Path("citeproof-report.html"))]
    assert plan_outputs(["json"], "out/r.json") == [Output("json", Path("out/r.json"))]
    assert plan_outputs(None, "r.sarif") == [Output("sarif", Path("r.sarif"))]
    assert plan_outputs(["sarif", "json"], "out/report") == [
        Output("sarif", Path("out/report.sarif")),
        Output("json", Path("out/report.json")),
    ]
    # A known extension on -o is the stem's, not doubled.
    assert [o.path for o in plan_outputs(["csv", "json"], "r.json")] == [
        Path("r.csv"),
        Path("r.json"),
    ]
    assert plan_outputs(["md"], "-") == [Output("md", None)]


@pytest.mark.parametrize(
    ("formats", "output", "message"),
    [
        (["json", "sarif"], "-", "one format"),
        (None, "report.docx", "cannot tell the report format"),
        (["pdf"], None, "unknown format"),
    ],
)
def test_impossible_output_requests_are_refused(formats, output, message) -> None:
    with pytest.raises(OutputError, match=message):
        plan_outputs(formats, output)


# --- exit codes ------------------------------------------------------------------------------


def test_clean_and_problem_runs() -> None:
    assert decide(_report(_citation(1, SUPPORTED)), DEFAULT).exit_code == EXIT_CLEAN
    outcome = decide(_report(_citation(1, SUPPORTED), _citation(2, CONTRADICTED)), DEFAULT)
    assert outcome.exit_code == EXIT_PROBLEMS
    assert [p.citation["ordinal"] for p in outcome.problems if p.citation] == [2]
    # Missing sources are problems only when asked for.
    report = _report(_citation(1, SUPPORTED), _citation(2, SOURCE_MISSING, source=False))
    assert decide(report, DEFAULT).exit_code == EXIT_CLEAN
    assert decide(report, _policy("missing")).exit_code == EXIT_PROBLEMS


@pytest.mark.parametrize(
    ("citations", "why"),
    [
        ([], "no citations were found"),
        ([_citation(1, SOURCE_MISSING, source=False)] * 3, "none of the 3 citations could be"),
        (
            [_citation(1, JUDGE_ERROR)] * 14 + [_citation(2, SOURCE_MISSING, source=False)] * 2,
            "the judge failed on every one of the 14",
        ),
        (
            [_citation(1, SUPPORTED)]
            + [_citation(2, JUDGE_ERROR, content_checked=False)]
            + [_citation(3, SOURCE_MISSING, source=False)] * 2,
            "only 1 of 4 citations (25%) could be examined",
        ),
    ],
)
def test_nothing_checked_is_exit_3_with_a_reason(citations, why) -> None:
    outcome = decide(_report(*citations), DEFAULT)
    assert outcome.exit_code == EXIT_NOTHING_CHECKED
    assert outcome.reason is not None and why in outcome.reason


def test_exit_3_wins_even_when_something_failed() -> None:
    report = _report(_citation(1, CONTRADICTED), *[_citation(2, JUDGE_ERROR)] * 3)
    assert decide(report, DEFAULT).exit_code == EXIT_NOTHING_CHECKED
    assert decide(report, ExitPolicy(min_coverage=0.2)).exit_code == EXIT_PROBLEMS


def test_min_confidence_turns_weak_verdicts_into_review() -> None:
    report = _report(_citation(1, SUPPORTED, confidence=0.4), _citation(2, SUPPORTED))
    assert decide(report, DEFAULT).exit_code == EXIT_CLEAN
    strict = _policy("contradicted,unsupported,review", min_confidence=0.5)
    assert decide(report, strict).exit_code == EXIT_PROBLEMS
    assert [p.citation["ordinal"] for p in decide(report, strict).problems if p.citation] == [1]
    assert [p.name for p in decide(report, strict).problems] == [NEEDS_REVIEW]
    lenient = _policy("contradicted", min_confidence=0.5)
    assert decide(report, lenient).exit_code == EXIT_CLEAN


def test_policy_refuses_bad_values() -> None:
    for policy in (ExitPolicy(min_coverage=1.5), ExitPolicy(min_confidence=-0.1)):
        with pytest.raises(ValueError):
            policy.validate()
    for spec in ("bogus", "", ","):
        with pytest.raises(ValueError):
            parse_fail_on(spec)
    assert parse_fail_on("any").labels >= {UNSUPPORTED, CONTRADICTED, SOURCE_MISSING}


# --- formats ---------------------------------------------------------------------------------


THESIS_TEXT = """# Cooling
Cities are warm.
Trees cool streets
by 2 °C [1]. Roofs help [2].
"""


def test_sarif_is_valid_against_the_official_schema(tmp_path: Path) -> None:
    thesis = tmp_path / "thesis.md"
    thesis.write_text(THESIS_TEXT)
    report = _report(
        _citation(1, SUPPORTED),
        _citation(2, CONTRADICTED, claim="Roofs help", marker="[2]"),
        _citation(3, UNSUPPORTED, claim="Not in the file at all"),
        _citation(4, SOURCE_MISSING, source=False),
    )
    outcome = decide(report, DEFAULT)
    sarif = to_sarif(outcome, DEFAULT.fail_on, thesis, "1.2.3", coverage(report["citations"]))
    schema = json.loads(SARIF_SCHEMA.read_text())
    jsonschema.Draft4Validator(schema).validate(json.loads(json.dumps(sarif)))
    results = sarif["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == [CONTRADICTED, UNSUPPORTED]
    assert results[0]["level"] == "error"
    assert results[0]["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 4, "startColumn": 14, "endLine": 4, "endColumn": 28,  # end is exclusive
    }  # fmt: skip
    # A claim that is not in the text keeps its file but gets no invented lines.
    assert "region" not in results[1]["locations"][0]["physicalLocation"]
    rule_ids = [r["id"] for r in sarif["runs"][0]["tool"]["driver"]["rules"]]
    assert all(rule_ids[r["ruleIndex"]] == r["ruleId"] for r in results)


def test_a_claim_is_located_across_line_breaks() -> None:
    region = locate(THESIS_TEXT, "Trees cool streets by 2 °C [1].", "[1]")
    assert region == {"startLine": 3, "startColumn": 1, "endLine": 4, "endColumn": 12}


def test_json_carries_schema_version_coverage_and_outcome() -> None:
    report = _report(_citation(1, SUPPORTED), _citation(2, SOURCE_MISSING, source=False))
    outcome = decide(report, DEFAULT)
    document = json.loads(to_json(report, coverage(report["citations"]), outcome.as_json(DEFAULT)))
    assert document["schema_version"] == "2"
    assert document["citations"] == report["citations"]  # the API's report, extended
    assert document["coverage"] | {"by_label": None, "bands": None} == {
        "citations_found": 2, "linked_to_reference": 2, "linked_to_source": 1,
        "content_checked": 0, "judged": 1, "examined": 1, "examined_fraction": 0.5,
        "definite": 1, "definite_fraction": 0.5, "unjudged": 0, "by_label": None, "bands": None,
    }  # fmt: skip
    assert document["coverage"]["by_label"][SOURCE_MISSING] == 1
    assert document["outcome"]["exit_code"] == EXIT_CLEAN


def test_csv_has_one_row_per_citation() -> None:
    report = _report(_citation(1, SUPPORTED), _citation(2, None), _citation(3, CONTRADICTED))
    labels = [DEFAULT.effective_label(c["verdict"]) for c in report["citations"]]
    rows = list(csv.DictReader(io.StringIO(to_csv(report, labels))))
    assert [r["ordinal"] for r in rows] == ["1", "2", "3"]
    assert rows[0]["quote"] == "Trees cooled streets by 2 °C." and rows[1]["label"] == ""


# --- sources and progress --------------------------------------------------------------------


def test_source_folders_are_searched_recursively_for_readable_files(tmp_path: Path) -> None:
    from citeproof.cli._check import _expand_sources

    (tmp_path / "zotero" / "storage" / "ABCD").mkdir(parents=True)
    (tmp_path / "zotero" / "storage" / "ABCD" / "smith.pdf").write_bytes(b"%PDF")
    (tmp_path / "zotero" / "notes.md").write_text("# notes")
    (tmp_path / "zotero" / "zotero.sqlite").write_bytes(b"x")  # not a format we read
    (tmp_path / "zotero" / ".cache").mkdir()
    (tmp_path / "zotero" / ".cache" / "hidden.pdf").write_bytes(b"%PDF")
    single = tmp_path / "doe.pdf"
    single.write_bytes(b"%PDF")
    found = _expand_sources([tmp_path / "zotero", single, single])
    assert [p.name for p in found] == ["notes.md", "smith.pdf", "doe.pdf"]


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


STATUS = {
    "status": "judging",
    "waiting_for": [],
    "progress": {
        "parse": {"done": 6, "total": 6},
        "retrieve": {"done": 3, "total": 14},
        "judge": {"done": 0, "total": 14},
    },
}


def test_progress_on_a_terminal_redraws_one_bar_per_stage(monkeypatch) -> None:
    from citeproof.cli._progress import Progress

    monkeypatch.delenv("NO_COLOR", raising=False)
    screen = _Terminal()
    progress = Progress(screen)
    progress.update(STATUS)
    progress.update(STATUS | {"status": "completed"})
    drawn = screen.getvalue()
    assert drawn.count("retrieve") == 2 and "\033[4F" in drawn  # cursor back over 4 lines
    assert "\033[32m" in drawn  # coloured
    monkeypatch.setenv("NO_COLOR", "1")
    plain = _Terminal()
    Progress(plain).update(STATUS)
    assert "\033[3" not in plain.getvalue() and "3/14" in plain.getvalue()


def test_progress_in_a_log_is_one_plain_line_per_change() -> None:
    from citeproof.cli._progress import Progress

    log = io.StringIO()
    progress = Progress(log)
    progress.update(STATUS)
    progress.update(STATUS)
    assert log.getvalue().splitlines() == [
        "[##########..............] judging               parse 6/6  retrieve 3/14  judge 0/14"
    ]
