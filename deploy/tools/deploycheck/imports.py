"""Does each image carry what its code imports?

An image installs `./shared ./services/<svc>` (plus, for the parser, its extra requirements), so
it holds the dependency closure of those packages. Every third-party module the service's own
code imports — lazily inside a function too — must come from a distribution in that closure,
or the container fails at the first call that needs it. The closure is computed from the
installed metadata in the running venv, which `make setup` builds from the same pyprojects.
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from functools import cache
from importlib import metadata
from pathlib import Path

from .dockerfiles import project_dependencies
from .findings import Finding
from .paths import REPO_ROOT, rel

# Distributions an image installs besides the pyproject dependencies (see the Dockerfiles).
EXTRA_ROOTS: dict[str, Path | set[str]] = {
    "parser": REPO_ROOT / "requirements" / "parser-extra.txt",
}
EXTRA_DISTRIBUTIONS = {"parser": {"unstructured-inference"}}
IMPORT_ERRORS = {"ImportError", "ModuleNotFoundError"}
# Imported only on code paths a container never takes, each with the reason.
NOT_NEEDED_IN_IMAGES = {
    "pgserver": "the embedded PostgreSQL, used only when DATABASE_URL is unset",
}


def normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _module_file(module: str, roots: list[Path]) -> Path | None:
    parts = module.split(".")
    for root in roots:
        candidate = root.joinpath(*parts)
        if candidate.with_suffix(".py").is_file():
            return candidate.with_suffix(".py")
        if (candidate / "__init__.py").is_file():
            return candidate / "__init__.py"
        if candidate.is_dir():
            return candidate  # a namespace package: nothing to run
    return None


def _is_package(path: Path) -> bool:
    return path.name == "__init__.py"


def reachable_imports(entry_modules: list[str], roots: list[Path]) -> dict[str, set[Path]]:
    """Third-party top-level module -> files importing it, over every `citeproof.*` module the
    entry modules reach through imports (lazy ones inside functions included: they may run).
    Imports guarded by `except ImportError` and TYPE_CHECKING blocks are skipped. A citeproof
    module missing from the image is reported under its own dotted name."""
    found: dict[str, set[Path]] = {}
    seen: set[str] = set()
    pending = list(entry_modules)
    while pending:
        module = pending.pop()
        if module in seen:
            continue
        seen.add(module)
        path = _module_file(module, roots)
        if path is None:
            found.setdefault(module, set())
            continue
        # Importing a.b.c runs the __init__ of a.b first.
        parent = module.rpartition(".")[0]
        if parent and parent != "citeproof":
            pending.append(parent)
        if path.is_dir():
            continue
        package = module if _is_package(path) else parent
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in _unguarded_imports(tree):
            for target in _targets(node, package):
                if target.split(".")[0] == "citeproof":
                    pending.append(target)
                    # `from citeproof.x import y` may name the submodule citeproof.x.y.
                    if isinstance(node, ast.ImportFrom):
                        pending.extend(
                            f"{target}.{alias.name}"
                            for alias in node.names
                            if _module_file(f"{target}.{alias.name}", roots)
                        )
                else:
                    found.setdefault(target.split(".")[0], set()).add(path)
    return found


def _targets(node: ast.Import | ast.ImportFrom, package: str) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level:
        base = package.split(".")
        base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
        return [".".join([*base, node.module] if node.module else base)]
    return [node.module or ""]


def _unguarded_imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    imports: list[ast.Import | ast.ImportFrom] = []

    def visit(node: ast.AST, guarded: bool) -> None:
        if isinstance(node, ast.Try):
            catches = {
                getattr(handler.type, "id", None)
                for handler in node.handlers
                if handler.type is not None
            } | {
                getattr(elt, "id", None)
                for handler in node.handlers
                if isinstance(handler.type, ast.Tuple)
                for elt in handler.type.elts
            }
            body_guarded = guarded or bool(catches & IMPORT_ERRORS)
            for child in node.body:
                visit(child, body_guarded)
            for child in [*node.handlers, *node.orelse, *node.finalbody]:
                visit(child, guarded)
            return
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            return  # typing-only imports never run
        if isinstance(node, ast.Import | ast.ImportFrom) and not guarded:
            imports.append(node)
        for child in ast.iter_child_nodes(node):
            visit(child, guarded)

    visit(tree, False)
    return imports


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


@cache
def _module_owners() -> dict[str, list[str]]:
    return {
        module: [normalize(d) for d in dists]
        for module, dists in metadata.packages_distributions().items()
    }


def _requirement_names(requirements: list[str] | None) -> set[str]:
    names = set()
    for requirement in requirements or []:
        # Extras-only and environment-specific requirements are not part of a default install.
        if "extra ==" in requirement or "extra==" in requirement:
            continue
        marker = requirement.split(";", 1)[1] if ";" in requirement else ""
        if "sys_platform" in marker and "linux" not in marker:
            continue
        match = re.match(r"[A-Za-z0-9._-]+", requirement)
        if match:
            names.add(normalize(match.group(0)))
    return names


def distribution_closure(roots: set[str]) -> set[str]:
    """Every distribution pip installs for these roots (as far as the venv's metadata says)."""
    closure: set[str] = set()
    pending = [normalize(r) for r in roots]
    while pending:
        name = pending.pop()
        if name in closure:
            continue
        closure.add(name)
        try:
            requirements = metadata.requires(name)
        except metadata.PackageNotFoundError:
            continue
        pending.extend(_requirement_names(requirements) - closure)
    return closure


def _requirements_file(path: Path) -> set[str]:
    names = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        match = re.match(r"[A-Za-z0-9._-]+", line)
        if match and not line.startswith("-"):
            names.add(normalize(match.group(0)))
    return names


def image_roots(service: str) -> set[str]:
    roots = project_dependencies(REPO_ROOT / "shared") | project_dependencies(
        REPO_ROOT / "services" / service
    )
    extra = EXTRA_ROOTS.get(service)
    if isinstance(extra, Path):
        roots |= _requirements_file(extra)
    roots |= EXTRA_DISTRIBUTIONS.get(service, set())
    return {normalize(r) for r in roots if not r.startswith("citeproof")}


def entry_modules(service: str) -> list[str]:
    """The service's console script plus the citeproof CLI, which every image installs."""
    modules = []
    for package in (REPO_ROOT / "services" / service, REPO_ROOT / "shared"):
        data = tomllib.loads((package / "pyproject.toml").read_text(encoding="utf-8"))
        for target in data.get("project", {}).get("scripts", {}).values():
            modules.append(target.split(":")[0])
    # The CLI loads its subcommand modules with importlib, which no import statement shows.
    cli = REPO_ROOT / "shared" / "src" / "citeproof" / "cli"
    modules += [f"citeproof.cli.{p.stem}" for p in sorted(cli.glob("*.py")) if p.stem != "__init__"]
    return modules


def check_service(service: str) -> list[Finding]:
    roots = [REPO_ROOT / "services" / service / "src", REPO_ROOT / "shared" / "src"]
    closure = distribution_closure(image_roots(service))
    stdlib = set(sys.stdlib_module_names)
    findings: list[Finding] = []
    for module, files in sorted(reachable_imports(entry_modules(service), roots).items()):
        where = ", ".join(sorted(rel(f) for f in files)) or f"services/{service}"
        if module.startswith("citeproof."):
            findings.append(Finding("imports", where, f"{module} is not in the {service} image"))
            continue
        if module in stdlib or module == "__future__" or module in NOT_NEEDED_IN_IMAGES:
            continue
        owners = _module_owners().get(module)
        if not owners:
            message = f"imports {module}, which no installed distribution provides"
            findings.append(Finding("imports", where, message))
        elif not set(owners) & closure:
            message = (
                f"imports {module} ({owners[0]}), which the {service} image does not install: "
                f"add it to the dependencies in services/{service}/pyproject.toml"
            )
            findings.append(Finding("imports", where, message))
    return findings


def check_all() -> list[Finding]:
    from .paths import SERVICES

    return [finding for service in SERVICES for finding in check_service(service)]
