"""Benchmarks are a package of their own: nothing under bench/ imports the test suite (helpers
both need live in the citeproof packages, e.g. `citeproof.devkit.journey`,
`citeproof.devkit.pdfgen.plain`)."""

from __future__ import annotations

import ast
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"


def _imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_bench_never_imports_the_tests():
    offenders = {
        path.relative_to(BENCH).as_posix()
        for path in BENCH.rglob("*.py")
        if any(name == "tests" or name.startswith("tests.") for name in _imported_modules(path))
    }
    assert not offenders, sorted(offenders)
