"""Each runtime role's table list covers the tables its service's SQL names (read from the
source, so a new query on a table the role cannot reach fails here, not in production), and
the KEDA role's columns cover the scaler's queries."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from citeproof.db.roles import KEDA_COLUMNS, KEDA_TABLES, RUNTIME_ROLES

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT / "shared" / "src" / "citeproof"
# Where each role's SQL lives: the service's package and the shared modules it runs.
SOURCES = {
    "citeproof_api": [ROOT / "services/api/src", SHARED / "auth.py", SHARED / "queue"],
    "citeproof_parser": [ROOT / "services/parser/src", SHARED / "queue"],
    "citeproof_retriever": [
        ROOT / "services/retriever/src",
        SHARED / "queue",
        SHARED / "verdicts.py",
    ],
    "citeproof_judge": [ROOT / "services/judge/src", SHARED / "queue", SHARED / "verdicts.py"],
}
_CREATED = re.compile(r'CREATE TABLE (?:IF NOT EXISTS )?"?([a-z_]+)"?')
_NAMED = re.compile(r'\b(?:FROM|JOIN|INTO|UPDATE|TABLE)\s+"?([a-z_]+)"?')


def schema_tables() -> set[str]:
    return {
        name
        for path in (ROOT / "migrations").glob("*.sql")
        for name in _CREATED.findall(path.read_text())
    }


def tables_named(paths: list[Path], known: set[str]) -> set[str]:
    files = [p for path in paths for p in ([path] if path.is_file() else path.rglob("*.py"))]
    return {name for f in files for name in _NAMED.findall(f.read_text()) if name in known}


@pytest.mark.parametrize("role", sorted(SOURCES))
def test_every_table_a_service_queries_is_granted_to_its_role(role: str) -> None:
    known = schema_tables()
    assert {"documents", "parse_items", "api_tokens"} <= known
    named = tables_named(SOURCES[role], known)
    granted = set(RUNTIME_ROLES[role])
    assert named - granted == set(), f"{role} lacks grants on {sorted(named - granted)}"
    assert granted <= known, f"{role} lists tables that do not exist: {granted - known}"


def test_only_the_api_touches_the_tokens() -> None:
    holders = [role for role, tables in RUNTIME_ROLES.items() if "api_tokens" in tables]
    assert holders == ["citeproof_api"]


def test_keda_reads_only_what_its_queries_need() -> None:
    queries = [
        trigger["metadata"]["query"]
        for doc in yaml.safe_load_all(
            (ROOT / "deploy/k8s/base/keda-scaledobjects.yaml").read_text()
        )
        if doc
        for trigger in doc["spec"]["triggers"]
    ]
    assert queries
    for query in queries:
        for table in re.findall(r"FROM\s+([a-z_]+)", query):
            if table not in ("now",):
                assert table in KEDA_TABLES, query
        columns = set(re.findall(r"\b(state|run_after|[a-z_]+_bytes|user_id)\b", query))
        assert columns <= set(KEDA_COLUMNS), query
