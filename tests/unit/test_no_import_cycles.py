"""No import circles: in the services, shared/, devkit/ and bench/, no module imports (at module
level or inside a function) a module that imports it back, directly or through others. A circle
means two modules share a concept that belongs in a third both import (as the parsed-document
type moved out of the parser's dispatcher into `citeproof.parser.parsed`)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SOURCE_ROOTS = [
    *(REPO / "services").glob("*/src"),
    REPO / "shared" / "src",
    REPO / "devkit" / "src",
]


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for root in SOURCE_ROOTS:
        for path in root.rglob("*.py"):
            found[_name(path.relative_to(root))] = path
    for path in (REPO / "bench").rglob("*.py"):
        found[_name(path.relative_to(REPO))] = path
    return found


def _name(relative: Path) -> str:
    parts = list(relative.with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    def resolve(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        targets: set[str | None] = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets |= {resolve(alias.name) for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets |= {resolve(f"{node.module}.{alias.name}") for alias in node.names}
        graph[module] = {t for t in targets if t and t != module}
    return graph


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_detector_finds_a_circle():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_module_imports_itself_back():
    modules = _modules()
    assert "citeproof.parser.extract" in modules and "bench.library_inputs" in modules
    assert _circles(_graph(modules)) == []
