"""Alert rules, the Grafana dashboard, the scrape config, and the metric names they reference.

`referenced_metrics()` is the contract with the services: every name it returns must be exported
by a running citeproof service (the lead's end-to-end test scrapes them and compares).
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import promql_parser
import yaml

from .dashboard import build_dashboard
from .durations import parse_duration
from .findings import Finding
from .paths import (
    ALERT_RULES,
    DASHBOARD,
    DASHBOARD_CONFIGMAP,
    OPERATIONS_DOC,
    PROMETHEUS_CONFIG,
    PROMETHEUS_RULE_CR,
    REPO_ROOT,
    rel,
)
from .yamlio import load_one

SEVERITIES = {"critical", "warning", "info"}
METRIC_PREFIX = "citeproof_"
# Grafana's built-in interval variables, replaced by a plausible value before parsing PromQL.
GRAFANA_VARIABLES = {"$__rate_interval": "1m", "$__interval": "30s", "$__range": "6h"}
HISTOGRAM_SUFFIXES = ("_bucket", "_sum", "_count")
PROMETHEUS_RULE_NAME = "citeproof"


def generated_header(source: str) -> str:
    return (
        f"# GENERATED from {source} by `python deploy/check.py --write`.\n"
        "# Edit the source, not this file; make deploy-check fails when they drift apart.\n"
    )


# --- PromQL --------------------------------------------------------------------------------------


def parse_promql(expr: str) -> Any:
    """The PromQL AST (ValueError on a syntax error); Grafana variables are substituted first."""
    text = expr
    for variable, value in GRAFANA_VARIABLES.items():
        text = text.replace(variable, value)
    return promql_parser.parse(text)


def selected_metrics(expr: str) -> set[str]:
    """Metric (sample) names an expression selects, e.g. {"x_bucket", "y_total"}."""
    names: set[str] = set()

    def visit(node: Any) -> None:
        if isinstance(node, promql_parser.VectorSelector):
            if node.name:
                names.add(node.name)
            for matcher in node.matchers.matchers:
                if matcher.name == "__name__" and matcher.op == promql_parser.MatchOp.Equal:
                    names.add(matcher.value)

    promql_parser.walk(parse_promql(expr), visit)
    return names


def selected_label_names(expr: str) -> set[str]:
    """Label names an expression filters on, groups by or matches on."""
    found = set(re.findall(r"([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)\s*\"", expr))
    for group in re.findall(r"\b(?:by|without|on|ignoring)\s*\(([^)]*)\)", expr):
        found |= {label.strip() for label in group.split(",") if label.strip()}
    return found - {"__name__", "le"}


def metric_family(sample_name: str) -> str:
    """The family a sample belongs to as `# TYPE` lines name it: histograms lose their suffix,
    counters keep `_total` (prometheus-client writes `# TYPE x_total counter`)."""
    for suffix in HISTOGRAM_SUFFIXES:
        if sample_name.endswith(suffix):
            return sample_name[: -len(suffix)]
    return sample_name


# --- the files ----------------------------------------------------------------------------------


def alert_rules() -> list[dict[str, Any]]:
    document = load_one(ALERT_RULES)
    return [rule for group in document.get("groups", []) for rule in group.get("rules", [])]


def dashboard_queries(dashboard: dict[str, Any]) -> list[tuple[str, str]]:
    """(panel title, expr) for every query target of every panel, rows included."""
    queries: list[tuple[str, str]] = []

    def walk(panels: list[dict[str, Any]]) -> None:
        for panel in panels:
            for target in panel.get("targets", []):
                if "expr" in target:
                    queries.append((panel.get("title", ""), target["expr"]))
            walk(panel.get("panels", []))

    walk(dashboard.get("panels", []))
    return queries


def load_dashboard(path: Path = DASHBOARD) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def referenced_metrics() -> dict[str, set[str]]:
    """Metric family name -> the files (and alert / panel) that use it, from the alert rules and
    the dashboard. Only citeproof_* names: the contract is about our exporters."""
    references: dict[str, set[str]] = defaultdict(set)
    for rule in alert_rules():
        for name in selected_metrics(rule["expr"]):
            references[metric_family(name)].add(f"{rel(ALERT_RULES)}:{rule['alert']}")
    for title, expr in dashboard_queries(load_dashboard()):
        for name in selected_metrics(expr):
            references[metric_family(name)].add(f"{rel(DASHBOARD)}:{title}")
    return {
        name: refs for name, refs in sorted(references.items()) if name.startswith(METRIC_PREFIX)
    }


def exported_metric_families(exposition: str) -> set[str]:
    """Family names a /metrics page declares in its `# TYPE` lines, whether or not a labelled
    metric has samples yet (prometheus-client lists every registered family). Counters are
    named with `_total` in both the Prometheus text format and OpenMetrics."""
    families: set[str] = set()
    for line in exposition.splitlines():
        parts = line.split()
        if len(parts) >= 4 and parts[:2] == ["#", "TYPE"]:
            name, kind = parts[2], parts[3]
            families.add(
                f"{name}_total" if kind == "counter" and not name.endswith("_total") else name
            )
    return families


def unexported_metrics(expositions: Iterable[str]) -> dict[str, set[str]]:
    """Referenced metrics that none of the given /metrics pages declares, with where each is
    used. The lead's end-to-end test scrapes every service and asserts this is empty."""
    exported: set[str] = set()
    for exposition in expositions:
        exported |= exported_metric_families(exposition)
    return {name: refs for name, refs in referenced_metrics().items() if name not in exported}


def referenced_label_names() -> set[str]:
    labels: set[str] = set()
    for rule in alert_rules():
        labels |= selected_label_names(rule["expr"])
    for _, expr in dashboard_queries(load_dashboard()):
        labels |= selected_label_names(expr)
    return labels


# --- generated files ------------------------------------------------------------------------------


def render_prometheus_rule() -> str:
    groups = load_one(ALERT_RULES)["groups"]
    resource = {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "PrometheusRule",
        "metadata": {
            "name": PROMETHEUS_RULE_NAME,
            "labels": {"app.kubernetes.io/name": "citeproof"},
        },
        "spec": {"groups": groups},
    }
    body = yaml.dump(resource, Dumper=_BlockDumper, sort_keys=False, width=100, allow_unicode=True)
    return generated_header(rel(ALERT_RULES)) + body


class _BlockDumper(yaml.SafeDumper):
    """Writes multi-line strings (PromQL expressions) as literal blocks, as in the rule file."""


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_BlockDumper.add_representer(str, _represent_str)


def render_dashboard() -> str:
    return json.dumps(build_dashboard(), indent=2, ensure_ascii=False) + "\n"


def render_dashboard_configmap() -> str:
    """The dashboard as a ConfigMap that Grafana's dashboard sidecar (kube-prometheus-stack)
    picks up by its `grafana_dashboard` label."""
    resource = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": "citeproof-grafana-dashboard",
            "labels": {"grafana_dashboard": "1", "app.kubernetes.io/name": "citeproof"},
        },
        "data": {DASHBOARD.name: render_dashboard()},
    }
    header = generated_header("deploy/tools/deploycheck/dashboard.py")
    return header + yaml.dump(resource, Dumper=_BlockDumper, sort_keys=False, width=100)


GENERATED: dict[Path, Any] = {
    PROMETHEUS_RULE_CR: render_prometheus_rule,
    DASHBOARD: render_dashboard,
    DASHBOARD_CONFIGMAP: render_dashboard_configmap,
}


def write_generated() -> list[Path]:
    written = []
    for path, render in GENERATED.items():
        content = render()
        if not path.exists() or path.read_text(encoding="utf-8") != content:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content, encoding="utf-8")
            written.append(path)
    return written


def check_generated() -> list[Finding]:
    return [
        Finding("generated", rel(path), "out of date: run python deploy/check.py --write")
        for path, render in GENERATED.items()
        if not path.exists() or path.read_text(encoding="utf-8") != render()
    ]


# --- checks ----------------------------------------------------------------------------------


def _doc_anchors() -> set[str] | None:
    if not OPERATIONS_DOC.exists():
        return None
    anchors = set()
    for line in OPERATIONS_DOC.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            anchors.add(re.sub(r"[^a-z0-9 _-]", "", title).replace(" ", "-"))
    return anchors


def check_alert_rules() -> list[Finding]:
    where = rel(ALERT_RULES)
    findings: list[Finding] = []
    document = load_one(ALERT_RULES)
    groups = document.get("groups") if isinstance(document, dict) else None
    if not groups:
        return [Finding("alerts", where, "no rule groups")]
    anchors = _doc_anchors()
    group_names: set[str] = set()
    alert_names: set[str] = set()
    for group in groups:
        if group.get("name") in group_names:
            findings.append(Finding("alerts", where, f"duplicate group {group.get('name')}"))
        group_names.add(group.get("name"))
        for rule in group.get("rules", []):
            name = rule.get("alert") or rule.get("record")
            at = f"{where}:{name}"
            unknown = set(rule) - {
                "alert",
                "record",
                "expr",
                "for",
                "keep_firing_for",
                "labels",
                "annotations",
            }
            if unknown:
                findings.append(Finding("alerts", at, f"unknown rule fields {sorted(unknown)}"))
            if "alert" not in rule:
                continue
            if name in alert_names:
                findings.append(Finding("alerts", at, "duplicate alert name"))
            alert_names.add(name)
            try:
                parse_promql(rule.get("expr", ""))
            except ValueError as error:
                findings.append(Finding("promql", at, str(error)))
            if "for" in rule:
                try:
                    parse_duration(rule["for"])
                except ValueError as error:
                    findings.append(Finding("alerts", at, str(error)))
            if rule.get("labels", {}).get("severity") not in SEVERITIES:
                findings.append(
                    Finding("alerts", at, f"labels.severity must be one of {sorted(SEVERITIES)}")
                )
            annotations = rule.get("annotations", {})
            for key in ("summary", "description", "runbook"):
                if not annotations.get(key):
                    findings.append(Finding("alerts", at, f"annotations.{key} is missing"))
            runbook = annotations.get("runbook", "")
            if anchors is not None and "#" in runbook:
                anchor = runbook.split("#", 1)[1]
                if anchor not in anchors:
                    findings.append(
                        Finding(
                            "alerts",
                            at,
                            f"runbook anchor #{anchor} is not a heading in docs/operations.md",
                        )
                    )
    return findings


def check_dashboard() -> list[Finding]:
    where = rel(DASHBOARD)
    try:
        dashboard = load_dashboard()
    except (OSError, json.JSONDecodeError) as error:
        return [Finding("grafana", where, f"cannot load: {error}")]
    findings: list[Finding] = []
    for key in ("uid", "title", "panels", "schemaVersion"):
        if key not in dashboard:
            findings.append(Finding("grafana", where, f"missing {key}"))
    variables = {v.get("name") for v in dashboard.get("templating", {}).get("list", [])}
    ids: set[int] = set()

    def walk(panels: list[dict[str, Any]]) -> None:
        for panel in panels:
            at = f"{where}:{panel.get('title', panel.get('id'))}"
            if panel.get("id") in ids:
                findings.append(Finding("grafana", at, f"duplicate panel id {panel.get('id')}"))
            ids.add(panel.get("id"))
            grid = panel.get("gridPos", {})
            if (
                not all(k in grid for k in ("x", "y", "w", "h"))
                or grid.get("x", 0) + grid.get("w", 0) > 24
            ):
                findings.append(Finding("grafana", at, f"bad gridPos {grid}"))
            uid = panel.get("datasource", {}).get("uid", "")
            if panel.get("type") != "row" and uid.strip("${}") not in variables:
                findings.append(
                    Finding("grafana", at, f"datasource {uid!r} is not a dashboard variable")
                )
            for target in panel.get("targets", []):
                try:
                    parse_promql(target.get("expr", ""))
                except ValueError as error:
                    findings.append(Finding("promql", at, f"{target.get('refId')}: {error}"))
            walk(panel.get("panels", []))

    walk(dashboard.get("panels", []))
    return findings


def check_prometheus_config() -> list[Finding]:
    where = rel(PROMETHEUS_CONFIG)
    config = load_one(PROMETHEUS_CONFIG)
    findings: list[Finding] = []
    for rule_file in config.get("rule_files", []):
        if not (PROMETHEUS_CONFIG.parent / rule_file).exists():
            findings.append(Finding("prometheus", where, f"rule file {rule_file} does not exist"))
    metric_labels = referenced_label_names()
    job_names: set[str] = set()
    for job in config.get("scrape_configs", []):
        name = job.get("job_name")
        if not name or name in job_names:
            findings.append(Finding("prometheus", where, f"missing or duplicate job_name {name!r}"))
        job_names.add(name)
        for relabel in job.get("relabel_configs", []):
            target = relabel.get("target_label")
            # A target label named like a metric label renames the metric's own label to
            # exported_<name> and silently breaks every rule that filters on it.
            if target in metric_labels and not job.get("honor_labels"):
                findings.append(
                    Finding(
                        "prometheus",
                        f"{where}:{name}",
                        f"target_label {target!r} collides with a metric label",
                    )
                )
    return findings


def check_all() -> list[Finding]:
    return check_alert_rules() + check_dashboard() + check_prometheus_config() + check_generated()


def relative_to_repo(path: Path) -> str:
    return str(path.relative_to(REPO_ROOT))
