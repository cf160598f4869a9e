"""A thesis project's own configuration of `citeproof check`: which rules run at which level,
what fails the check, the baseline - from `[tool.citeproof]` in pyproject.toml or from a
citeproof.toml, then flags.

Discovery (`discover`): next to the thesis (a LaTeX project folder: in it), then each parent
up to the repository root (the first directory holding `.git`; without a repository, up to
the file system's root), then the current directory. In each directory citeproof.toml wins
over pyproject.toml, and a pyproject.toml without a `[tool.citeproof]` table does not count
(ruff's convention). `--config FILE` names the file instead; `--no-config` ignores them all.
The file used is named on stderr and in the JSON report.

The same keys in either file (citeproof.toml holds them at its top level):

    fail-on = "error,contradicted,unsupported,likely-problem"   # or a list
    baseline = "citeproof-baseline.json"    # relative to the file
    disable = ["quote-verified", "CP202"]   # codes or slugs
    min-coverage = 0.5
    min-confidence = 0.0
    [tool.citeproof.severity]               # citeproof.toml: [severity]
    page-mismatch = "error"                 # a code or slug = error | warning | info

Flags win over the file: `--fail-on` replaces its list, `--disable RULE` adds to its disabled
rules, `--severity RULE=LEVEL` re-levels (and re-enables a rule the file disabled).
"""

from __future__ import annotations

import copy
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from citeproof.cli._failon import FailOn, parse_fail_on
from citeproof.contracts.findings import rule_for, severity_rank
from citeproof.pipeline import RULES_BY_CODE, SEVERITIES, WARNING

CONFIG_FILE = "citeproof.toml"
PYPROJECT_FILE = "pyproject.toml"
TOOL_TABLE = "citeproof"
# Where a repository's root is recognised (a worktree's .git is a file).
REPOSITORY_MARKER = ".git"

KEY_FAIL_ON = "fail-on"
KEY_BASELINE = "baseline"
KEY_DISABLE = "disable"
KEY_SEVERITY = "severity"
KEY_MIN_COVERAGE = "min-coverage"
KEY_MIN_CONFIDENCE = "min-confidence"
KEYS = (KEY_FAIL_ON, KEY_BASELINE, KEY_DISABLE, KEY_SEVERITY, KEY_MIN_COVERAGE,
        KEY_MIN_CONFIDENCE)  # fmt: skip
# The report endpoint's query parameters (REPORT_SHAPE: `?disable=CP103&level=CP202:error`).
QUERY_DISABLE = "disable"
QUERY_LEVEL = "level"


class ConfigError(ValueError):
    """A configuration file or rule flag that cannot be used; the message names where."""


# --- rules: disable and re-level ------------------------------------------------------------


def _rule_code(name: str, where: str) -> str:
    try:
        return rule_for(name.strip()).code
    except KeyError:
        raise ConfigError(
            f"{where}: unknown rule {name!r}: name a rule by its code or slug (e.g. "
            f"{next(iter(RULES_BY_CODE))} or {next(iter(RULES_BY_CODE.values())).slug}; "
            "`citeproof rules` lists them)"
        ) from None


def _level(value: object, rule: str, where: str) -> str:
    if not isinstance(value, str) or value.strip().lower() not in SEVERITIES:
        raise ConfigError(
            f"{where}: {rule} cannot be set to {value!r}: a level is one of "
            f"{', '.join(SEVERITIES)} (to turn a rule off, disable it)"
        )
    return value.strip().lower()


@dataclass(frozen=True)
class RuleOverrides:
    """Rules turned off and rules re-levelled (codes; levels from pipeline.SEVERITIES)."""

    disabled: frozenset[str] = frozenset()
    levels: Mapping[str, str] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.disabled or self.levels)

    def then(self, later: RuleOverrides) -> RuleOverrides:
        """These overrides, overridden by `later` (flags after the file): a rule `later`
        re-levels is enabled again."""
        disabled = (self.disabled - frozenset(later.levels)) | later.disabled
        levels = {code: level for code, level in {**self.levels, **later.levels}.items()
                  if code not in disabled}  # fmt: skip
        return RuleOverrides(frozenset(disabled), levels)

    def severity(self, finding: Mapping[str, Any]) -> str:
        """A finding's level under these overrides: re-levelled, or as the report gives it,
        or the rule's default (a rule this client does not know yet: a warning)."""
        code = finding["rule"]
        if code in self.levels:
            return self.levels[code]
        stored = finding.get("severity")
        if stored in SEVERITIES:
            return str(stored)
        rule = RULES_BY_CODE.get(code)
        return rule.severity if rule else WARNING

    def query_params(self) -> list[tuple[str, str]]:
        """For the report endpoint, so the API's HTML and Markdown honour them too."""
        params = []
        if self.disabled:
            params.append((QUERY_DISABLE, ",".join(sorted(self.disabled))))
        if self.levels:
            levels = ",".join(f"{code}:{level}" for code, level in sorted(self.levels.items()))
            params.append((QUERY_LEVEL, levels))
        return params

    def as_json(self) -> dict:
        return {"disabled": sorted(self.disabled), "levels": dict(sorted(self.levels.items()))}

    def _findings(self, findings: list[dict]) -> list[dict]:
        kept = [f | {"severity": self.severity(f)} for f in findings
                if f.get("rule") not in self.disabled]  # fmt: skip
        return sorted(kept, key=lambda f: severity_rank(f["severity"]))

    def apply(self, report: dict) -> dict:
        """The report with disabled rules' findings dropped, every finding's severity
        resolved, worst first, and the summary's finding counts recounted. Idempotent: an API
        that already applied them changes nothing; one that did not (an older server) is
        corrected here."""
        applied = copy.copy(report)
        applied["citations"] = [c | {"findings": self._findings(c.get("findings") or [])}
                                for c in report.get("citations", [])]  # fmt: skip
        if "entries" in report:
            applied["entries"] = [e | {"findings": self._findings(e.get("findings") or [])}
                                  for e in report["entries"]]  # fmt: skip
        summary = report.get("summary")
        if isinstance(summary, dict) and "findings" in summary:
            every = [f for s in (*applied["citations"], *applied.get("entries", []))
                     for f in s["findings"]]  # fmt: skip
            by_rule: dict[str, int] = {}
            for finding in every:
                by_rule[finding["rule"]] = by_rule.get(finding["rule"], 0) + 1
            applied["summary"] = summary | {
                "findings": {s: sum(f["severity"] == s for f in every) for s in SEVERITIES},
                "by_rule": dict(sorted(by_rule.items())),
            }
        return applied


NO_OVERRIDES = RuleOverrides()


def parse_overrides(
    disable: Iterable[str], levels: Mapping[str, object] | Iterable[str], where: str
) -> RuleOverrides:
    """Disabled rule names (each may hold a comma-separated list) and levels (a mapping
    RULE -> LEVEL, or `RULE=LEVEL` strings as the flag gives them) -> RuleOverrides, refusing
    unknown rules and levels and a rule both disabled and re-levelled in one place."""
    disabled = {_rule_code(name, where) for item in disable for name in item.split(",")
                if name.strip()}  # fmt: skip
    pairs: list[tuple[str, object]]
    # A mapping (the file's table) holds any TOML value; `_level` refuses what is no level.
    if isinstance(levels, Mapping):
        pairs = list(levels.items())
    else:
        pairs = []
        for item in levels:
            name, sep, value = item.partition("=")
            if not sep:
                raise ConfigError(f"{where}: {item!r} is not RULE=LEVEL (e.g. page-mismatch=error)")
            pairs.append((name, value))
    relevelled: dict[str, str] = {}
    for rule, level in pairs:
        code = _rule_code(rule, where)
        relevelled[code] = _level(level, code, where)
    both = sorted(disabled & set(relevelled))
    if both:
        raise ConfigError(f"{where}: {', '.join(both)} both disabled and re-levelled: pick one")
    return RuleOverrides(frozenset(disabled), relevelled)


# --- the configuration file -----------------------------------------------------------------


@dataclass(frozen=True)
class ProjectConfig:
    path: Path | None = None
    fail_on: FailOn | None = None
    baseline: Path | None = None
    overrides: RuleOverrides = field(default_factory=RuleOverrides)
    min_coverage: float | None = None
    min_confidence: float | None = None


def _has_tool_table(pyproject: Path) -> bool:
    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        # A broken pyproject.toml that may not even be ours: only one that says
        # [tool.citeproof] is read (and then its errors are reported by `load`).
        return f"[tool.{TOOL_TABLE}" in pyproject.read_text(encoding="utf-8", errors="replace")
    return isinstance(data.get("tool"), dict) and TOOL_TABLE in data["tool"]


def _config_in(directory: Path) -> Path | None:
    own = directory / CONFIG_FILE
    if own.is_file():
        return own
    pyproject = directory / PYPROJECT_FILE
    if pyproject.is_file() and _has_tool_table(pyproject):
        return pyproject
    return None


def discover(thesis: Path, cwd: Path | None = None) -> Path | None:
    """The configuration file for a thesis (see the module docstring), or None."""
    start = (thesis if thesis.is_dir() else thesis.parent).resolve()
    for directory in (start, *start.parents):
        found = _config_in(directory)
        if found is not None:
            return found
        if (directory / REPOSITORY_MARKER).exists():
            break
    return _config_in((cwd or Path.cwd()).resolve())


def _number(table: Mapping[str, Any], key: str, where: str) -> float | None:
    value = table.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise ConfigError(f"{where}: {key} is a fraction between 0 and 1, not {value!r}")
    return float(value)


def _strings(value: object, key: str, where: str) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    raise ConfigError(f"{where}: {key} is a string or a list of strings, not {value!r}")


def load(path: Path) -> ProjectConfig:
    """Read and validate one configuration file (citeproof.toml or pyproject.toml)."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from None
    where = str(path)
    # A pyproject.toml holds it under [tool.citeproof]; any other file (citeproof.toml, or
    # one --config names) at its top level.
    if path.name == PYPROJECT_FILE:
        tool = data.get("tool")
        table = tool.get(TOOL_TABLE) if isinstance(tool, dict) else None
        if table is None:
            raise ConfigError(f"{path}: no [tool.{TOOL_TABLE}] table in it")
        where = f"{path} [tool.{TOOL_TABLE}]"
    else:
        table = data
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: the configuration is a table of settings")
    unknown = sorted(set(table) - set(KEYS))
    if unknown:
        raise ConfigError(
            f"{where}: unknown setting {', '.join(unknown)} (the settings are {', '.join(KEYS)})"
        )
    fail_on = None
    if KEY_FAIL_ON in table:
        try:
            fail_on = parse_fail_on(_strings(table[KEY_FAIL_ON], KEY_FAIL_ON, where))
        except ValueError as exc:
            raise ConfigError(f"{where}: {KEY_FAIL_ON}: {exc}") from None
    baseline = None
    if KEY_BASELINE in table:
        value = table[KEY_BASELINE]
        if not isinstance(value, str) or not value.strip():
            raise ConfigError(f"{where}: {KEY_BASELINE} is a file path, not {value!r}")
        baseline = (path.parent / value).resolve()
    severity = table.get(KEY_SEVERITY, {})
    if not isinstance(severity, dict):
        raise ConfigError(
            f"{where}: {KEY_SEVERITY} is a table of RULE = LEVEL, e.g. "
            f'{KEY_SEVERITY} = {{ page-mismatch = "error" }}'
        )
    overrides = parse_overrides(
        _strings(table.get(KEY_DISABLE, []), KEY_DISABLE, where), severity, where
    )
    return ProjectConfig(
        path=path,
        fail_on=fail_on,
        baseline=baseline,
        overrides=overrides,
        min_coverage=_number(table, KEY_MIN_COVERAGE, where),
        min_confidence=_number(table, KEY_MIN_CONFIDENCE, where),
    )
