"""`citeproof check` and findings, without a stack: the --fail-on grammar, exit codes, rule
overrides, the project configuration file, baselines, SARIF, CSV and the summary."""

from __future__ import annotations

import argparse
import csv
import io
import json
from pathlib import Path

import jsonschema
import pytest

from citeproof.cli import _check, parse
from citeproof.cli._baseline import BaselineError, read_baseline, write_baseline
from citeproof.cli._failon import DEFAULT, parse_fail_on
from citeproof.cli._outcome import (
    EXIT_CLEAN,
    EXIT_ERROR,
    EXIT_NOTHING_CHECKED,
    EXIT_PROBLEMS,
    ExitPolicy,
    collect,
    coverage,
    decide,
)
from citeproof.cli._outputs import to_csv
from citeproof.cli._project import (
    ConfigError,
    RuleOverrides,
    discover,
    load,
    parse_overrides,
)
from citeproof.cli._sarif import RULE_IDS, to_sarif
from citeproof.cli._summary import print_summary
from citeproof.contracts.findings import FINGERPRINT_VERSION, fingerprint, rule_anchor
from citeproof.pipeline import (
    CONTRADICTED,
    ERROR,
    FAIL_ON_GROUPS,
    INFO,
    JUDGE_ERROR,
    LIKELY_FINE,
    LIKELY_PROBLEM,
    LIKELY_PROBLEM_GROUP,
    NEEDS_REVIEW,
    NUMBER_CONFLICT,
    NUMBER_NOT_IN_SOURCE,
    PAGE_MISMATCH,
    PARTIALLY_SUPPORTED,
    QUOTE_NOT_FOUND,
    QUOTE_VERIFIED,
    REFERENCE_MISSING_RULE,
    RULES,
    SOURCE_MISSING,
    SUPPORTED,
    UNCERTAIN,
    UNCITED_ENTRY,
    UNSUPPORTED,
    WARNING,
    WRONG_ATTACHMENT,
    Rule,
)

ROOT = Path(__file__).resolve().parents[2]
SARIF_SCHEMA = ROOT / "tests" / "data" / "sarif" / "sarif-schema-2.1.0.json"


def _finding(rule: Rule, key: str = "", severity: str | None = None, **extra: object) -> dict:
    return {
        "rule": rule.code,
        "slug": rule.slug,
        "name": rule.name,
        "severity": severity or rule.severity,
        "message": f"{rule.name}: {key}".strip(": "),
        "key": key,
        **extra,
    }


def _citation(ordinal: int, label: str | None = SUPPORTED, *, claim: str | None = None,
              marker: str | None = None, findings: list[dict] | None = None,
              band: str | None = None, source: bool = True, content_checked: bool = True,
              page: int = 1, **extra: object) -> dict:  # fmt: skip
    verdict = None
    if label is not None:
        verdict = {
            "label": label,
            "confidence": 0.8,
            "rationale": "r",
            "quote": None,
            "quote_page": None,
            "backend": "fake",
            "model": "m",
            "downgrade_reason": None,
            "band": band,
            "problem_probability": 0.7 if band == LIKELY_PROBLEM else 0.2,
        }
    return {
        "citation_id": ordinal,
        "ordinal": ordinal,
        "marker": marker or f"[{ordinal}]",
        "claim": claim or f"Claim number {ordinal} says trees cool streets.",
        "context": None,
        "page": page,
        "reference": {"label": str(ordinal), "raw": f"Author {ordinal}. Trees.", "title": "T"},
        "source": {"document_id": "d", "title": "T", "filename": f"s{ordinal}.pdf"}
        if source
        else None,
        "verdict": verdict,
        "findings": findings or [],
        "content_checked": content_checked and source,
        **extra,
    }


def _entry(label: str, raw: str, findings: list[dict]) -> dict:
    return {"reference_id": int(label), "label": label, "raw": raw, "title": raw,
            "findings": findings}  # fmt: skip


def _report(*citations: dict, entries: list[dict] | None = None) -> dict:
    return {
        "run": {"id": "r", "status": "completed"},
        "thesis": {"id": "t", "title": "Cooling", "filename": "thesis.md"},
        "summary": {
            "total": len(citations),
            "counts": {SUPPORTED: len(citations)},
            "findings": {},
            "by_rule": {},
        },
        "citations": list(citations),
        "entries": entries or [],
    }


def _policy(spec: str, **kwargs: float) -> ExitPolicy:
    return ExitPolicy(parse_fail_on(spec), **kwargs)


# --- the --fail-on grammar -------------------------------------------------------------------


def test_default_is_errors_problem_labels_and_likely_problems_not_review() -> None:
    assert DEFAULT.names == (ERROR, CONTRADICTED, UNSUPPORTED, LIKELY_PROBLEM_GROUP)
    assert DEFAULT.labels == {CONTRADICTED, UNSUPPORTED}
    assert NEEDS_REVIEW not in DEFAULT.labels
    assert DEFAULT.bands == {LIKELY_PROBLEM}
    assert DEFAULT.severities == {ERROR}


def test_codes_slugs_groups_severities_and_the_band_in_one_list() -> None:
    fail_on = parse_fail_on(" cp202 , page-mismatch,Review,warning,likely-problem ")
    assert fail_on.names == (NUMBER_NOT_IN_SOURCE.code, PAGE_MISMATCH.code, "review", WARNING,
                             LIKELY_PROBLEM_GROUP)  # fmt: skip
    assert fail_on.rules == {NUMBER_NOT_IN_SOURCE.code, PAGE_MISMATCH.code}
    assert fail_on.severities == {ERROR, WARNING}  # warning: that level or worse
    assert fail_on.selects_finding(QUOTE_NOT_FOUND.code, ERROR)
    assert not parse_fail_on(ERROR).selects_finding(PAGE_MISMATCH.code, WARNING)
    # A named rule fails whatever level it was configured to.
    assert parse_fail_on(QUOTE_VERIFIED.slug).selects_finding(QUOTE_VERIFIED.code, INFO)
    # A label group whose labels are reported as findings selects those findings too.
    assert REFERENCE_MISSING_RULE.code in parse_fail_on("missing").rules
    assert parse_fail_on(["error", "contradicted"]).names == (ERROR, CONTRADICTED)


@pytest.mark.parametrize("spec", ["bogus", "", " , ", "info", "CP999", "error,nope"])
def test_unknown_names_are_refused_with_what_is_accepted(spec: str) -> None:
    with pytest.raises(ValueError) as refused:
        parse_fail_on(spec)
    sentence = str(refused.value)
    for accepted in (*FAIL_ON_GROUPS, LIKELY_PROBLEM_GROUP, ERROR, WARNING, RULES[0].code,
                     RULES[0].slug):  # fmt: skip
        assert accepted in sentence
    if spec.strip(" ,"):
        assert "not " in sentence


def test_an_unknown_fail_on_is_a_usage_error_exit_2(tmp_path: Path, capsys) -> None:
    thesis = tmp_path / "thesis.md"
    thesis.write_text("Trees [1].")
    args = parse(["check", str(thesis), "--fail-on", "errors", "--no-config"])
    assert args.handler(args) == EXIT_ERROR
    err = capsys.readouterr().err
    assert "--fail-on takes a comma-separated list" in err and "'errors'" in err


# --- exit codes ------------------------------------------------------------------------------


def test_an_error_finding_fails_by_default_a_warning_only_when_asked() -> None:
    error = _report(_citation(1, findings=[_finding(QUOTE_NOT_FOUND, "trees cool")]))
    assert decide(error, ExitPolicy()).exit_code == EXIT_PROBLEMS
    warning = _report(_citation(1, findings=[_finding(PAGE_MISMATCH)]))
    assert decide(warning, ExitPolicy()).exit_code == EXIT_CLEAN
    assert decide(warning, _policy("warning")).exit_code == EXIT_PROBLEMS
    assert decide(warning, _policy(PAGE_MISMATCH.slug)).exit_code == EXIT_PROBLEMS
    assert decide(warning, _policy(NUMBER_CONFLICT.code)).exit_code == EXIT_CLEAN


def test_likely_problem_band_fails_by_default_needs_review_does_not() -> None:
    likely = _report(_citation(1, PARTIALLY_SUPPORTED, band=LIKELY_PROBLEM), _citation(2))
    outcome = decide(likely, ExitPolicy())
    assert outcome.exit_code == EXIT_PROBLEMS and [p.band for p in outcome.problems] == [
        LIKELY_PROBLEM
    ]
    assert decide(likely, _policy("contradicted")).exit_code == EXIT_CLEAN
    review = _report(_citation(1, NEEDS_REVIEW, band=UNCERTAIN), _citation(2, band=LIKELY_FINE))
    assert decide(review, ExitPolicy()).exit_code == EXIT_CLEAN
    assert decide(review, _policy("review")).exit_code == EXIT_PROBLEMS


def test_needs_review_counts_as_examined_for_min_coverage() -> None:
    report = _report(*(_citation(i, NEEDS_REVIEW, content_checked=False) for i in range(1, 5)))
    outcome = decide(report, ExitPolicy(min_coverage=1.0))
    assert outcome.exit_code == EXIT_CLEAN and outcome.reason is None
    assert coverage(report["citations"])["examined"] == 4


def test_content_rules_that_ran_count_as_examined_even_when_the_judge_failed() -> None:
    citations = [_citation(i, JUDGE_ERROR, content_checked=True) for i in range(1, 4)]
    citations[0]["findings"] = [_finding(NUMBER_CONFLICT, "43%")]
    outcome = decide(_report(*citations), ExitPolicy(min_coverage=1.0))
    assert outcome.exit_code == EXIT_PROBLEMS, outcome.reason


def test_an_outage_with_no_rule_run_is_exit_3_whatever_min_coverage_says() -> None:
    citations = [_citation(i, JUDGE_ERROR, content_checked=False) for i in range(1, 4)]
    citations.append(_citation(4, None, source=False,
                               findings=[_finding(REFERENCE_MISSING_RULE)]))  # fmt: skip
    outcome = decide(_report(*citations), ExitPolicy(min_coverage=0.0))
    assert outcome.exit_code == EXIT_NOTHING_CHECKED
    assert "judge failed on every one of the 3" in (outcome.reason or "")


def test_no_citation_is_exit_3_and_a_reference_list_alone_is_checked_at_min_coverage_0() -> None:
    entry = _entry("7", "Smith 2020. Trees.", [_finding(WRONG_ATTACHMENT)])
    assert decide(_report(entries=[entry]), ExitPolicy(min_coverage=0.0)).exit_code == (
        EXIT_NOTHING_CHECKED
    )
    no_sources = _report(_citation(1, SOURCE_MISSING, source=False), entries=[entry])
    assert decide(no_sources, ExitPolicy()).exit_code == EXIT_NOTHING_CHECKED
    lint_only = decide(no_sources, ExitPolicy(min_coverage=0.0))
    assert lint_only.exit_code == EXIT_PROBLEMS
    assert [p.name for p in lint_only.problems] == [WRONG_ATTACHMENT.code]


def test_report_v2_label_findings_count_under_their_label_group() -> None:
    report = _report(
        _citation(1),
        _citation(2, None, source=False, findings=[_finding(REFERENCE_MISSING_RULE)]),
    )
    assert decide(report, ExitPolicy()).exit_code == EXIT_PROBLEMS  # CP401 is an error
    assert decide(report, _policy("missing")).exit_code == EXIT_PROBLEMS
    assert decide(report, _policy("contradicted")).exit_code == EXIT_CLEAN
    assert coverage(report["citations"])["by_label"]["reference_missing"] == 1


# --- rule overrides --------------------------------------------------------------------------


def test_overrides_take_codes_or_slugs_and_refuse_unknown_rules_and_levels() -> None:
    overrides = parse_overrides(["quote-verified,CP202"], ["page-mismatch=error"], "--flags")
    assert overrides.disabled == {QUOTE_VERIFIED.code, NUMBER_NOT_IN_SOURCE.code}
    assert overrides.levels == {PAGE_MISMATCH.code: ERROR}
    assert overrides.query_params() == [
        ("disable", f"{QUOTE_VERIFIED.code},{NUMBER_NOT_IN_SOURCE.code}"),
        ("level", f"{PAGE_MISMATCH.code}:error"),
    ]
    for disable, levels, message in (
        (["no-such-rule"], [], "unknown rule 'no-such-rule'"),
        ([], ["page-mismatch=fatal"], "a level is one of error, warning, info"),
        ([], ["page-mismatch"], "is not RULE=LEVEL"),
        (["CP301"], ["page-mismatch=error"], "both disabled and re-levelled"),
    ):
        with pytest.raises(ConfigError, match=message):
            parse_overrides(disable, levels, "--flags")


def test_overrides_apply_to_the_report_idempotently_and_flags_win_over_the_file() -> None:
    report = _report(
        _citation(1, findings=[_finding(QUOTE_VERIFIED), _finding(PAGE_MISMATCH)]),
        entries=[_entry("2", "Doe 2019.", [_finding(UNCITED_ENTRY)])],
    )
    overrides = parse_overrides(["quote-verified"], {"page-mismatch": "error"}, "f")
    applied = overrides.apply(report)
    assert [f["rule"] for f in applied["citations"][0]["findings"]] == [PAGE_MISMATCH.code]
    assert applied["citations"][0]["findings"][0]["severity"] == ERROR
    assert applied["summary"]["findings"] == {ERROR: 1, WARNING: 1, INFO: 0}
    assert applied["summary"]["by_rule"] == {PAGE_MISMATCH.code: 1, UNCITED_ENTRY.code: 1}
    assert overrides.apply(applied) == applied
    assert report["citations"][0]["findings"][0]["rule"] == QUOTE_VERIFIED.code  # not mutated
    assert decide(applied, ExitPolicy()).exit_code == EXIT_PROBLEMS
    # The file disables page-mismatch; the flag re-levels it, which turns it back on.
    merged = RuleOverrides(frozenset({PAGE_MISMATCH.code}), {}).then(
        parse_overrides([], ["CP301=info"], "flags")
    )
    assert merged.disabled == frozenset() and merged.levels == {PAGE_MISMATCH.code: INFO}


# --- the configuration file ------------------------------------------------------------------


def _tree(tmp_path: Path) -> tuple[Path, Path]:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    thesis = repo / "chapters" / "thesis.md"
    thesis.parent.mkdir()
    thesis.write_text("Trees [1].")
    return repo, thesis


def test_discovery_next_to_the_thesis_then_up_to_the_repository_root_then_the_cwd(
    tmp_path: Path,
) -> None:
    repo, thesis = _tree(tmp_path)
    elsewhere = tmp_path / "cwd"
    elsewhere.mkdir()
    assert discover(thesis, elsewhere) is None
    # Above the repository root: not ours.
    (tmp_path / "citeproof.toml").write_text('fail-on = "any"\n')
    assert discover(thesis, elsewhere) is None
    (elsewhere / "citeproof.toml").write_text('fail-on = "any"\n')
    assert discover(thesis, elsewhere) == (elsewhere / "citeproof.toml").resolve()
    # A pyproject.toml without [tool.citeproof] does not count; with it, it does.
    (repo / "pyproject.toml").write_text("[tool.ruff]\nline-length = 100\n")
    assert discover(thesis, elsewhere) == (elsewhere / "citeproof.toml").resolve()
    (repo / "pyproject.toml").write_text('[tool.citeproof]\nfail-on = "error"\n')
    assert discover(thesis, elsewhere) == (repo / "pyproject.toml").resolve()
    # citeproof.toml beats pyproject.toml in one directory; the nearest directory wins.
    (repo / "citeproof.toml").write_text('fail-on = "warning"\n')
    assert discover(thesis, elsewhere) == (repo / "citeproof.toml").resolve()
    (thesis.parent / "citeproof.toml").write_text('fail-on = "warning"\n')
    assert discover(thesis, elsewhere) == (thesis.parent / "citeproof.toml").resolve()


def test_a_configuration_file_is_read_and_validated(tmp_path: Path) -> None:
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(
        "[tool.citeproof]\n"
        'fail-on = ["error", "page-mismatch"]\n'
        'baseline = "ci/baseline.json"\n'
        'disable = ["quote-verified"]\n'
        "min-coverage = 0.25\n"
        "[tool.citeproof.severity]\n"
        'CP202 = "error"\n'
    )
    config = load(pyproject)
    assert config.fail_on is not None and config.fail_on.names == (ERROR, PAGE_MISMATCH.code)
    assert config.baseline == (tmp_path / "ci" / "baseline.json").resolve()
    assert config.overrides.disabled == {QUOTE_VERIFIED.code}
    assert config.overrides.levels == {NUMBER_NOT_IN_SOURCE.code: ERROR}
    assert config.min_coverage == 0.25 and config.min_confidence is None
    own = tmp_path / "citeproof.toml"
    for text, message in (
        ("fail-on = 'bogus'\n", "fail-on: --fail-on takes"),
        ("fail_on = 'error'\n", "unknown setting fail_on"),
        ("disable = ['CP999']\n", "unknown rule 'CP999'"),
        ("[severity]\nCP101 = 'loud'\n", "a level is one of"),
        ("severity = 'error'\n", "severity is a table"),
        ("min-coverage = 2\n", "min-coverage is a fraction"),
        ("baseline = 3\n", "baseline is a file path"),
        ("fail-on = \n", "not valid TOML"),
    ):
        own.write_text(text)
        with pytest.raises(ConfigError, match=message) as refused:
            load(own)
        assert str(own) in str(refused.value)


def test_check_reads_the_file_found_and_flags_override_it(tmp_path: Path) -> None:
    repo, thesis = _tree(tmp_path)
    (repo / "citeproof.toml").write_text(
        'fail-on = "warning"\ndisable = ["page-mismatch"]\nmin-confidence = 0.3\n'
    )
    args = parse(["check", str(thesis), "-o", str(tmp_path / "r.json")])
    plan = _check._plan(args, tmp_path)
    assert plan.config_path == (repo / "citeproof.toml").resolve()
    assert plan.policy.fail_on.names == (WARNING,) and plan.policy.min_confidence == 0.3
    assert plan.overrides.disabled == {PAGE_MISMATCH.code}
    args = parse(["check", str(thesis), "-o", str(tmp_path / "r.json"), "--fail-on", "error",
                  "--severity", "page-mismatch=warning", "--disable", "CP103"])  # fmt: skip
    plan = _check._plan(args, tmp_path)
    assert plan.policy.fail_on.names == (ERROR,)
    assert plan.overrides.disabled == {QUOTE_VERIFIED.code}
    assert plan.overrides.levels == {PAGE_MISMATCH.code: WARNING}
    args = parse(["check", str(thesis), "-o", str(tmp_path / "r.json"), "--no-config"])
    assert _check._plan(args, tmp_path).config_path is None


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--disable", "nope"], "unknown rule 'nope'"),
        (["--severity", "CP101=loud"], "a level is one of"),
        (["--baseline", "missing.json"], "no such baseline file"),
        (["--config", "nowhere.toml"], "no such configuration file"),
    ],
)
def test_bad_rule_flags_and_files_are_usage_errors(tmp_path: Path, capsys, extra, message) -> None:
    thesis = tmp_path / "thesis.md"
    thesis.write_text("Trees [1].")
    args: argparse.Namespace = parse(["check", str(thesis), *extra])
    assert args.handler(args) == EXIT_ERROR
    assert message in capsys.readouterr().err


# --- baselines -------------------------------------------------------------------------------


def _seeded(extra_citation: bool = False, edited: bool = False) -> dict:
    """A thesis with findings of every kind; `edited`: unrelated text, pages and ordinals
    changed; `extra_citation`: one more misquotation seeded."""
    shift = 5 if edited else 0
    citations = [
        _citation(
            1 + shift,
            claim="As Smith wrote, “trees cool the street”.",
            marker="[3]",
            findings=[_finding(QUOTE_NOT_FOUND, "trees cool the street")],
            page=4 + shift,
        ),
        _citation(2 + shift, CONTRADICTED, claim="Roofs heat cities by 3 °C.", marker="[4]"),
        _citation(
            3 + shift,
            PARTIALLY_SUPPORTED,
            band=LIKELY_PROBLEM,
            claim="Parks lower mortality.",
            marker="[5]",
        ),
        _citation(
            4 + shift,
            claim=("Other text, rewritten entirely." if edited else "Some unrelated sentence."),
            marker="[6]",
        ),
    ]
    if extra_citation:
        citations.append(
            _citation(
                9,
                claim="“Shade matters most”, says Doe.",
                marker="[7]",
                findings=[_finding(QUOTE_NOT_FOUND, "shade matters most")],
            )
        )
    entries = [_entry("8", "Lee 2018. Unused work.", [_finding(UNCITED_ENTRY)])]
    return _report(*citations, entries=entries)


def test_a_baseline_accepts_what_it_holds_and_names_only_what_is_new(tmp_path: Path) -> None:
    before = _seeded()
    assert decide(before, ExitPolicy()).exit_code == EXIT_PROBLEMS
    path = tmp_path / "ci" / "baseline.json"
    items = collect(before, ExitPolicy())
    assert write_baseline(path, items, "thesis.md", "1.0") == len(items) == 4
    baseline = read_baseline(path)
    same = decide(before, ExitPolicy(), baseline)
    assert same.exit_code == EXIT_CLEAN and same.baselined == 3 and same.new == []
    # Unrelated edits: other text, page numbers and ordinals change; fingerprints hold.
    assert decide(_seeded(edited=True), ExitPolicy(), baseline).exit_code == EXIT_CLEAN
    more = decide(_seeded(extra_citation=True), ExitPolicy(), baseline)
    assert more.exit_code == EXIT_PROBLEMS
    assert [(i.name, i.citation["marker"]) for i in more.new if i.citation] == [
        (QUOTE_NOT_FOUND.code, "[7]")
    ]
    lines: list[str] = []
    cov = coverage(_seeded(extra_citation=True)["citations"])
    print_summary(_seeded(extra_citation=True), more, ExitPolicy(), cov, lines.append, [], None)
    text = "\n".join(lines)
    assert "Shade matters most" in text and "trees cool the street" not in text
    assert "1 not in the baseline" in text and "errors (1 new, 1 in the baseline)" in text
    # Editing the cited sentence itself makes its findings new.
    reworded = _seeded()
    reworded["citations"][1]["claim"] = "Roofs heat cities by 4 °C."
    changed = decide(reworded, ExitPolicy(), baseline)
    assert [i.name for i in changed.new] == [CONTRADICTED] and changed.absent == 1


def test_a_baseline_counts_repeats_and_uses_the_apis_fingerprint(tmp_path: Path) -> None:
    twice = _finding(QUOTE_NOT_FOUND, "same words")
    report = _report(_citation(1, claim="Same sentence.", marker="[1]", findings=[twice]))
    path = tmp_path / "b.json"
    write_baseline(path, collect(report, ExitPolicy()), "t", "1")
    report["citations"][0]["findings"] = [twice, twice]
    assert len(decide(report, ExitPolicy(), read_baseline(path)).new) == 1
    # The fingerprint is the contract's (claim + marker, rule, key); the API's is used as is.
    assert collect(report, ExitPolicy())[0].fingerprint == fingerprint(
        QUOTE_NOT_FOUND.code, "Same sentence. [1]", "same words"
    )
    report["citations"][0]["findings"] = [twice | {"fingerprint": "f" * 16}]
    assert collect(report, ExitPolicy())[0].fingerprint == "f" * 16


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "not a citeproof baseline (not JSON"),
        ('{"tool": "ruff", "entries": []}', 'no "tool": "citeproof"'),
        ('{"tool": "citeproof", "baseline_format": 1, "fingerprint_version": FV}',
         'no "entries" list'),
        ('{"tool": "citeproof", "baseline_format": 1, "fingerprint_version": FV, "entries": '
         '[{"count": 1}]}', "entry 1 has no fingerprint"),
        ('{"tool": "citeproof", "baseline_format": 1, "fingerprint_version": FV, "entries": '
         '[{"fingerprint": "ab", "count": 0}]}', "not a positive integer"),
        ('{"tool": "citeproof", "baseline_format": 9, "fingerprint_version": FV, "entries": []}',
         "baseline format 9"),
        ('{"tool": "citeproof", "baseline_format": 1, "fingerprint_version": 0, "entries": []}',
         "stale baseline"),
    ],
)  # fmt: skip
def test_malformed_and_stale_baselines_are_refused_clearly(
    tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "baseline.json"
    path.write_text(content.replace("FV", str(FINGERPRINT_VERSION)))
    with pytest.raises(BaselineError) as refused:
        read_baseline(path)
    assert message in str(refused.value) and "--write-baseline" in str(refused.value)


# --- SARIF, CSV, summary ---------------------------------------------------------------------


THESIS = """# Cooling
As Smith wrote, “trees cool the street”. [3]
Roofs heat cities by 3 °C. [4]

## References
Lee 2018. Unused work.
"""


def test_sarif_has_the_registry_rules_findings_verdicts_and_baseline_states(
    tmp_path: Path,
) -> None:
    thesis = tmp_path / "thesis.md"
    thesis.write_text(THESIS)
    report = _seeded()
    path = tmp_path / "b.json"
    write_baseline(path, collect(report, ExitPolicy())[:2], "thesis.md", "1")
    overrides = parse_overrides(["CP202"], ["page-mismatch=error"], "f")
    outcome = decide(report, ExitPolicy(), read_baseline(path))
    sarif = to_sarif(outcome, DEFAULT, thesis, "1.2.3", coverage(report["citations"]),
                     overrides.as_json())  # fmt: skip
    jsonschema.Draft4Validator(json.loads(SARIF_SCHEMA.read_text())).validate(sarif)
    run = sarif["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == list(RULE_IDS)
    by_id = {r["id"]: r for r in rules}
    assert by_id[QUOTE_NOT_FOUND.code]["defaultConfiguration"] == {"level": "error"}
    assert by_id[PAGE_MISMATCH.code]["defaultConfiguration"] == {"level": "warning"}
    assert by_id[QUOTE_VERIFIED.code]["defaultConfiguration"] == {"level": "note"}
    assert by_id[QUOTE_NOT_FOUND.code]["helpUri"].endswith(
        f"docs/rules.md#{rule_anchor(QUOTE_NOT_FOUND)}"
    )
    assert QUOTE_NOT_FOUND.fix in by_id[QUOTE_NOT_FOUND.code]["help"]["text"]
    overrides_seen = run["invocations"][0]["ruleConfigurationOverrides"]
    assert {o["descriptor"]["id"]: o["configuration"] for o in overrides_seen} == {
        NUMBER_NOT_IN_SOURCE.code: {"enabled": False},
        PAGE_MISMATCH.code: {"level": "error"},
    }
    results = run["results"]
    assert [(r["ruleId"], r["level"], r["baselineState"]) for r in results] == [
        (QUOTE_NOT_FOUND.code, "error", "unchanged"),
        (CONTRADICTED, "error", "unchanged"),
        (PARTIALLY_SUPPORTED, "warning", "new"),  # a likely problem: at least a warning
        (UNCITED_ENTRY.code, "warning", "new"),
    ]
    assert all(rules[r["ruleIndex"]]["id"] == r["ruleId"] for r in results)
    quote = results[0]
    assert quote["locations"][0]["physicalLocation"]["region"]["startLine"] == 2
    assert quote["locations"][0]["message"]["text"] == "page 4"
    assert quote["partialFingerprints"]["citeproof/v1"] == outcome.items[0].fingerprint
    entry = results[3]["locations"][0]["physicalLocation"]
    assert entry["region"]["startLine"] == 6  # the entry, found in the thesis text


def test_sarif_points_latex_citations_at_their_project_file_and_line(tmp_path: Path) -> None:
    project = tmp_path / "thesis"
    (project / "chapters").mkdir(parents=True)
    (project / "chapters" / "intro.tex").write_text("x\n" * 30)
    report = _report(_citation(1, CONTRADICTED, source_file="chapters/intro.tex",
                               source_line=12))  # fmt: skip
    outcome = decide(report, ExitPolicy())
    sarif = to_sarif(outcome, DEFAULT, project, "1", coverage(report["citations"]))
    jsonschema.Draft4Validator(json.loads(SARIF_SCHEMA.read_text())).validate(sarif)
    location = sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"].endswith("thesis/chapters/intro.tex")
    assert location["region"] == {"startLine": 12}


def test_csv_has_a_findings_column_and_rows_for_entries_with_findings() -> None:
    report = _seeded()
    labels = [ExitPolicy().effective_label(c["verdict"]) for c in report["citations"]]
    rows = list(csv.DictReader(io.StringIO(to_csv(report, labels))))
    assert [r["kind"] for r in rows] == ["citation"] * 4 + ["entry"]
    assert rows[0]["findings"].startswith(f"{QUOTE_NOT_FOUND.code} {QUOTE_NOT_FOUND.slug} (error)")
    assert rows[0]["errors"] == "1" and rows[1]["findings"] == ""
    assert rows[2]["band"] == LIKELY_PROBLEM
    assert rows[4]["reference"] == "8" and UNCITED_ENTRY.slug in rows[4]["findings"]


def test_the_summary_lists_errors_then_warnings_then_bands_and_does_not_reassure() -> None:
    report = _seeded()
    report["citations"].append(_citation(20, SOURCE_MISSING, source=False))
    outcome = decide(report, ExitPolicy())
    lines: list[str] = []
    print_summary(report, outcome, ExitPolicy(), coverage(report["citations"]), lines.append,
                  [], Path("/x/citeproof.toml"))  # fmt: skip
    text = "\n".join(lines)
    assert text.index("errors (1)") < text.index("warnings (1)") < text.index("by band")
    assert "1 of 5 citations could not be examined" in text
    assert "needs attention (--fail-on error,contradicted,unsupported,likely-problem)" in text
    assert "configuration: /x/citeproof.toml" in text
    # A likely problem that fails the check is listed once, under "needs attention", with the
    # judge's probability; when --fail-on leaves the band out, the band section lists it.
    assert text.count("Parks lower mortality") == 1
    assert text.index("Parks lower mortality") > text.index("needs attention")
    assert f"{PARTIALLY_SUPPORTED} p=0.70" in text
    lines.clear()
    policy = _policy("error")
    outcome = decide(report, policy)
    print_summary(report, outcome, policy, coverage(report["citations"]), lines.append, [], None)
    text = "\n".join(lines)
    assert "likely problems:" in text and text.count("Parks lower mortality") == 1


def test_every_sarif_help_uri_points_at_a_heading_of_docs_rules_md() -> None:
    headings = {
        line[3:].strip().lower().replace(" ", "-")
        for line in (ROOT / "docs" / "rules.md").read_text().splitlines()
        if line.startswith("## ")
    }
    report = _report(_citation(1))
    sarif = to_sarif(decide(report, ExitPolicy()), DEFAULT, Path("t.md"), "1", {})
    for rule in sarif["runs"][0]["tool"]["driver"]["rules"][: len(RULES)]:
        document, _, anchor = rule["helpUri"].partition("#")
        assert document == "docs/rules.md" and anchor in headings, rule["id"]
