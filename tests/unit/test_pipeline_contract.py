"""The pipeline contract (`citeproof.pipeline`) is the only place that spells the names the
services share: every NOTIFY channel and every verdict label is a string literal in exactly one
module of the service and shared sources, and everything that describes labels covers them all."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from citeproof import pipeline

ROOT = Path(__file__).resolve().parents[2]
SOURCE_DIRS = [ROOT / "shared" / "src", *sorted((ROOT / "services").glob("*/src"))]
CONTRACT_MODULE = ROOT / "shared" / "src" / "citeproof" / "pipeline.py"
CHANNELS = (
    pipeline.PARSE_CHANNEL,
    pipeline.RETRIEVE_CHANNEL,
    pipeline.JUDGE_CHANNEL,
    pipeline.VERIFY_CHANNEL,
    pipeline.EVENTS_CHANNEL,
    pipeline.TOKENS_CHANNEL,
)


def _literal_locations(directories: list[Path]) -> dict[str, set[Path]]:
    """string literal -> the modules it appears in (as an exact constant, not inside prose)."""
    found: dict[str, set[Path]] = {}
    for directory in directories:
        for path in directory.rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    found.setdefault(node.value, set()).add(path)
    return found


@pytest.fixture(scope="module")
def literals() -> dict[str, set[Path]]:
    return _literal_locations(SOURCE_DIRS)


def test_the_sources_are_found(literals):
    assert len(SOURCE_DIRS) >= 5  # shared + api, parser, retriever, judge
    assert CONTRACT_MODULE in literals[pipeline.PARSE_CHANNEL]


RULE_NAMES = tuple(r.code for r in pipeline.RULES) + tuple(r.slug for r in pipeline.RULES)


@pytest.mark.parametrize("name", CHANNELS + pipeline.VERDICT_LABELS + RULE_NAMES)
def test_each_channel_label_and_rule_is_spelled_only_in_the_contract(literals, name):
    where = {p.relative_to(ROOT).as_posix() for p in literals.get(name, set())}
    assert where == {CONTRACT_MODULE.relative_to(ROOT).as_posix()}, (
        f"{name!r} is spelled out in {sorted(where)}; import it from citeproof.pipeline"
    )


def test_the_literal_scan_catches_a_copy_but_not_prose(tmp_path):
    (tmp_path / "copy.py").write_text(f'CHANNEL = "{pipeline.JUDGE_CHANNEL}"\n')
    (tmp_path / "prose.py").write_text(f'"""Wakes {pipeline.JUDGE_CHANNEL} listeners."""\n')
    found = _literal_locations([tmp_path])
    assert found[pipeline.JUDGE_CHANNEL] == {tmp_path / "copy.py"}


def test_label_groups_partition_the_labels():
    assert set(pipeline.JUDGE_LABELS).isdisjoint(pipeline.PIPELINE_LABELS)
    assert len(set(pipeline.VERDICT_LABELS)) == len(pipeline.VERDICT_LABELS)
    assert set(pipeline.DEFINITE_LABELS) <= set(pipeline.JUDGE_LABELS)
    assert pipeline.LABELS_NEEDING_QUOTE <= set(pipeline.DEFINITE_LABELS)
    fail_on_names = {
        *pipeline.FAIL_ON_GROUPS,
        *pipeline.FAIL_ON_BANDS,
        *pipeline.FAIL_ON_SEVERITIES,
    }
    assert set(pipeline.DEFAULT_FAIL_ON) <= fail_on_names
    # `review` is not a problem found; errors and the judge's likely problems are.
    assert "review" not in pipeline.DEFAULT_FAIL_ON
    assert {pipeline.ERROR, pipeline.LIKELY_PROBLEM_GROUP} <= set(pipeline.DEFAULT_FAIL_ON)
    assert pipeline.FAIL_ON_SEVERITIES == pipeline.SEVERITIES[:2]


def test_every_label_has_a_name_and_a_description():
    assert set(pipeline.LABEL_NAMES) == set(pipeline.VERDICT_LABELS)
    assert set(pipeline.LABEL_DESCRIPTIONS) == set(pipeline.VERDICT_LABELS)
    assert all(pipeline.LABEL_NAMES.values()) and all(pipeline.LABEL_DESCRIPTIONS.values())


def test_every_stage_has_a_table_and_a_channel():
    assert set(pipeline.STAGE_TABLES) == set(pipeline.STAGES)
    assert set(pipeline.STAGE_CHANNELS) == set(pipeline.STAGES)
    assert set(pipeline.STAGE_CHANNELS.values()) <= set(CHANNELS)


def test_the_report_colours_and_the_ui_catalogue_cover_every_label():
    labels = pytest.importorskip("citeproof.api.reports.labels")
    assert set(labels.LABEL_COLOURS) == set(pipeline.VERDICT_LABELS)
    catalogue = labels.label_catalogue()
    assert sorted(entry.label for entry in catalogue) == sorted(pipeline.VERDICT_LABELS)
    for entry in catalogue:
        assert entry.name == pipeline.LABEL_NAMES[entry.label]
        assert entry.description == pipeline.LABEL_DESCRIPTIONS[entry.label]
    # Humans see names, never the raw labels, including for the two newest ones.
    assert labels.label_name(pipeline.NEEDS_REVIEW) == "Needs review"
    assert labels.label_name(pipeline.REFERENCE_MISSING) == "Reference missing"


def _js_code(text: str) -> str:
    """The script without its comments (a comment may name a label; code may not)."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.DOTALL)
    return re.sub(r"(^|\s)//.*$", "", text, flags=re.MULTILINE)


def test_the_web_ui_has_no_copy_of_the_labels():
    static = ROOT / "services" / "api" / "src" / "citeproof" / "api" / "static"
    for script in static.glob("*.js"):
        code = _js_code(script.read_text())
        for label in pipeline.VERDICT_LABELS:
            # Neither a string literal nor an object key.
            assert not re.search(rf"[\"'`]{label}[\"'`]|(^|[{{,\s]){label}\s*:", code), (
                script.name,
                label,
            )
    assert 'fetch("/labels"' in (static / "labels.js").read_text()


def test_the_api_and_the_parser_take_their_caps_from_the_contract():
    api_settings = pytest.importorskip("citeproof.api.settings")
    parser_settings = pytest.importorskip("citeproof.parser.settings")
    assert api_settings.ApiSettings().max_file_bytes == pipeline.MAX_FILE_BYTES
    assert parser_settings.ParserSettings().max_file_bytes == pipeline.MAX_FILE_BYTES
    assert parser_settings.ParserSettings().max_pages == pipeline.MAX_PAGES


def test_rules_have_unique_stable_codes_slugs_and_valid_severities():
    codes = [r.code for r in pipeline.RULES]
    slugs = [r.slug for r in pipeline.RULES]
    assert len(set(codes)) == len(codes) and len(set(slugs)) == len(slugs)
    assert codes == sorted(codes), "rules are listed in code order"
    for rule in pipeline.RULES:
        assert re.fullmatch(r"CP[1-9]\d\d", rule.code), rule
        assert re.fullmatch(r"[a-z]+(-[a-z]+)*", rule.slug), rule
        assert rule.severity in pipeline.SEVERITIES
        assert rule.subject in (pipeline.ON_CITATION, pipeline.ON_ENTRY)
        assert rule.name and rule.summary.endswith(".") and rule.fix.endswith(".")
    assert pipeline.RULES_BY_CODE == {r.code: r for r in pipeline.RULES}
    assert pipeline.RULES_BY_SLUG == {r.slug: r for r in pipeline.RULES}
    # A slug names a rule; a --fail-on group names verdict labels or a band; a severity a
    # level: one word, one meaning (case-blind, as `--fail-on` reads them).
    names = [
        *(n.lower() for n in codes), *slugs, *pipeline.FAIL_ON_GROUPS, *pipeline.FAIL_ON_BANDS,
        *pipeline.SEVERITIES,
    ]  # fmt: skip
    assert len(set(names)) == len(names)


def test_the_pipeline_labels_that_are_findings_map_to_citation_rules():
    assert set(pipeline.LABEL_FINDINGS) <= set(pipeline.PIPELINE_LABELS)
    for rule in pipeline.LABEL_FINDINGS.values():
        assert rule in pipeline.RULES and rule.subject == pipeline.ON_CITATION


def test_the_band_check_in_the_schema_names_exactly_the_contract_bands():
    sql = (ROOT / "migrations" / "0017_verdict_bands.sql").read_text()
    for check in re.findall(r"band IN \(([^)]*)\)", sql):
        assert set(re.findall(r"'([a-z_]+)'", check)) == set(pipeline.BANDS)
    assert set(pipeline.BAND_NAMES) == set(pipeline.BANDS)
