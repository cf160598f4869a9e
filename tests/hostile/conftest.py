"""The heavy hostile-input suite: `make test-hostile` (sets CITEPROOF_TEST_HOSTILE=1); not in
`make test`, whose cheap hostile cases live in tests/unit and tests/integration.

Every case records what it tried and what came back; at the end of the session the record goes
to bench/results/hostile.json:
`{"cases": [{"name", "status", "code", "ok"}], "tried", "server_errors", "lost_work",
"upload_peak_rss_mib", ...}`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pytest

ENABLE_ENV = "CITEPROOF_TEST_HOSTILE"
RESULTS = Path(__file__).resolve().parents[2] / "bench" / "results" / "hostile.json"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if os.environ.get(ENABLE_ENV):
        return
    skip = pytest.mark.skip(reason=f"heavy: make test-hostile sets {ENABLE_ENV}")
    here = Path(__file__).parent
    for item in items:
        if here in Path(item.fspath).parents:
            item.add_marker(skip)


@dataclass
class Case:
    name: str
    status: int | None
    code: str | None
    ok: bool


@dataclass
class HostileRecord:
    cases: list[Case] = field(default_factory=list)
    lost_work: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    def add(self, name: str, status: int | None, code: str | None, ok: bool) -> None:
        self.cases.append(Case(name, status, code, ok))

    def as_json(self) -> dict[str, Any]:
        return {
            "cases": [asdict(case) for case in self.cases],
            "tried": len(self.cases),
            "server_errors": sum(1 for c in self.cases if _server_error(c)),
            "lost_work": self.lost_work,
            **self.extra,
        }  # fmt: skip


# 5xx answers that are documented refusals, not failures: the process is full, try again.
DOCUMENTED_UNAVAILABLE = frozenset({"upload_slots_busy"})


def _server_error(case: Case) -> bool:
    return (
        case.status is not None and case.status >= 500 and (case.code not in DOCUMENTED_UNAVAILABLE)
    )


@pytest.fixture(scope="session")
def hostile_record() -> Iterator[HostileRecord]:
    record = HostileRecord()
    yield record
    if record.cases:
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(json.dumps(record.as_json(), indent=2) + "\n", encoding="utf-8")
