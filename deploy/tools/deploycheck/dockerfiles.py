"""Dockerfile checks: hadolint, plus the invariants every citeproof image must keep.

hadolint catches general mistakes; the invariants below are ours: multi-stage, non-root, tini as
PID 1, the right console script, a healthcheck, every COPY source present in the build context,
and only the service's own packages (CPU-only torch exactly where the service needs torch).
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from .dockerignore import DockerIgnore
from .findings import Finding
from .paths import DOCKER_DIR, DOCKERIGNORE, REPO_ROOT, SERVICES, rel, venv_tool

CPU_TORCH_INDEX = "https://download.pytorch.org/whl/cpu"
TINI = "/usr/bin/tini"
# Distribution names whose presence means the image needs torch (directly or via embeddings).
TORCH_DEPENDENTS = {"torch", "sentence-transformers"}
# What the API image must never carry: it serves HTTP and reads Postgres, nothing more.
HEAVY_DISTRIBUTIONS = {"torch", "sentence-transformers", "unstructured", "unstructured-inference"}
ROOT_USERS = {"root", "0", "0:0", "root:root"}
# The one-box image: every service package, `citeproof serve` supervising them.
ALL_IN_ONE = "all-in-one"
ALL_IN_ONE_COMMAND = ["citeproof", "serve"]
# Settings whose defaults suit a laptop but not a container (the API binds 127.0.0.1 by default).
CONTAINER_SETTINGS = {
    "api": ("CITEPROOF_API_HOST=0.0.0.0", "CITEPROOF_MIGRATIONS_DIR=/app/migrations"),
    "parser": ("CITEPROOF_MIGRATIONS_DIR=/app/migrations", "DO_NOT_TRACK=1", "HF_HUB_OFFLINE=1"),
    "retriever": ("CITEPROOF_MIGRATIONS_DIR=/app/migrations", "HF_HUB_OFFLINE=1"),
    "judge": ("CITEPROOF_MIGRATIONS_DIR=/app/migrations", "HF_HUB_OFFLINE=1"),
}


@dataclass(slots=True)
class Instruction:
    keyword: str
    arguments: str
    line: int


@dataclass(slots=True)
class Stage:
    base: str
    name: str | None
    instructions: list[Instruction] = field(default_factory=list)

    def all(self, keyword: str) -> list[Instruction]:
        return [i for i in self.instructions if i.keyword == keyword]

    def last(self, keyword: str) -> Instruction | None:
        found = self.all(keyword)
        return found[-1] if found else None


def parse_instructions(text: str) -> list[Instruction]:
    """Instructions with continuation lines joined; comments and directives dropped."""
    instructions: list[Instruction] = []
    pending: list[str] = []
    start = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if not pending and (not stripped or stripped.startswith("#")):
            continue
        if pending and stripped.startswith("#"):
            continue  # comment lines inside a continued instruction are skipped by Docker
        if not pending:
            start = number
        if stripped.endswith("\\"):
            pending.append(stripped[:-1].strip())
            continue
        pending.append(stripped)
        joined = " ".join(part for part in pending if part)
        pending = []
        keyword, _, arguments = joined.partition(" ")
        instructions.append(Instruction(keyword.upper(), arguments.strip(), start))
    return instructions


def split_stages(instructions: list[Instruction]) -> list[Stage]:
    stages: list[Stage] = []
    for instruction in instructions:
        if instruction.keyword == "FROM":
            words = [w for w in instruction.arguments.split() if not w.startswith("--")]
            name = words[2] if len(words) >= 3 and words[1].lower() == "as" else None
            stages.append(Stage(base=words[0], name=name))
        elif stages:
            stages[-1].instructions.append(instruction)
    return stages


def exec_form(arguments: str) -> list[str] | None:
    try:
        value = json.loads(arguments)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, list) else None


def copy_sources(instruction: Instruction) -> list[str]:
    """Build-context sources of a COPY (none for COPY --from=<stage>)."""
    words = shlex.split(instruction.arguments)
    if any(w.startswith("--from") for w in words):
        return []
    paths = [w for w in words if not w.startswith("--")]
    return paths[:-1]


def project_dependencies(package_dir: Path) -> set[str]:
    data = tomllib.loads((package_dir / "pyproject.toml").read_text(encoding="utf-8"))
    names: set[str] = set()
    for requirement in data.get("project", {}).get("dependencies", []):
        match = re.match(r"[A-Za-z0-9._-]+", requirement)
        if match:
            names.add(match.group(0).lower().replace("_", "-"))
    return names


def run_hadolint(path: Path) -> list[Finding]:
    hadolint = venv_tool("hadolint")
    if hadolint is None:
        return [Finding("hadolint", rel(path), "hadolint not installed (run make deploy-tools)")]
    result = subprocess.run(
        [hadolint, "--no-color", str(path)], capture_output=True, text=True, check=False
    )
    if result.returncode == 0:
        return []
    output = (result.stdout + result.stderr).strip() or f"exit code {result.returncode}"
    return [Finding("hadolint", rel(path), line) for line in output.splitlines()]


def check_invariants(
    path: Path,
    service: str,
    *,
    packages: tuple[str, ...] | None = None,
    command: list[str] | None = None,
) -> list[Finding]:
    """`packages`: the service packages the image carries (default: its own); `command`: its
    CMD (default: the service's console script)."""
    packages = packages or (service,)
    where = rel(path)
    instructions = parse_instructions(path.read_text(encoding="utf-8"))
    stages = split_stages(instructions)
    findings: list[Finding] = []

    def fail(message: str) -> None:
        findings.append(Finding("dockerfile", where, message))

    if len(stages) < 2:
        fail("must be multi-stage (a build stage and a slim runtime stage)")
        return findings
    runtime = stages[-1]
    user = runtime.last("USER")
    if user is None or user.arguments.strip() in ROOT_USERS:
        fail("the runtime stage must switch to a non-root USER")
    entrypoint = runtime.last("ENTRYPOINT")
    entry = exec_form(entrypoint.arguments) if entrypoint else None
    if not entry or entry[0] != TINI:
        fail(f'ENTRYPOINT must be exec form starting with "{TINI}" (tini as PID 1)')
    if not any("tini" in run.arguments for run in runtime.all("RUN")):
        fail("the runtime stage must install tini")
    cmd = runtime.last("CMD")
    expected_cmd = command or [f"citeproof-{service}"]
    if cmd is None or exec_form(cmd.arguments) != expected_cmd:
        fail(f"CMD must be {json.dumps(expected_cmd)}")
    if runtime.last("HEALTHCHECK") is None:
        fail("the runtime stage needs a HEALTHCHECK")
    environment = " ".join(i.arguments for i in runtime.all("ENV"))
    required = dict.fromkeys(s for p in packages for s in CONTAINER_SETTINGS.get(p, ()))
    for setting in required:
        if setting not in environment.split():
            fail(f"the runtime stage must set ENV {setting}")

    ignore = DockerIgnore.from_file(DOCKERIGNORE)
    copied: list[str] = []
    for stage in stages:
        for instruction in stage.all("COPY") + stage.all("ADD"):
            for source in copy_sources(instruction):
                copied.append(source.rstrip("/"))
                if not (REPO_ROOT / source).exists():
                    fail(f"line {instruction.line}: COPY source {source} does not exist")
                elif not ignore.is_included(source):
                    fail(f"line {instruction.line}: .dockerignore keeps COPY source {source} out")

    copied_services = {c.split("/")[1] for c in copied if c.startswith("services/")}
    if copied_services != set(packages):
        wanted = "its own service package" if len(packages) == 1 else str(sorted(packages))
        fail(f"must copy exactly {wanted}, copies {sorted(copied_services)}")

    deps = project_dependencies(REPO_ROOT / "shared")
    for package in packages:
        deps |= project_dependencies(REPO_ROOT / "services" / package)
    pip_runs = [i for s in stages[:-1] for i in s.all("RUN") if "pip install" in i.arguments]
    torch_runs = [i for i in pip_runs if re.search(r"\btorch\b", i.arguments)]
    if packages == ("api",):
        heavy = deps & HEAVY_DISTRIBUTIONS
        if heavy:
            fail(f"the API packages must not depend on {sorted(heavy)}")
        if torch_runs:
            fail("the API image must not install torch")
    elif deps & TORCH_DEPENDENTS:
        cpu_torch = [i for i in torch_runs if CPU_TORCH_INDEX in expand_args(instructions, i)]
        if not cpu_torch:
            fail(f"needs torch: install it from {CPU_TORCH_INDEX} (--index-url) first")
        else:
            for package in packages:
                service_install = next(
                    (i for i in pip_runs if f"./services/{package}" in i.arguments), None
                )
                if service_install is None or service_install.line < cpu_torch[0].line:
                    fail(f"CPU-only torch must be installed before services/{package}")
    return findings


def expand_args(instructions: list[Instruction], instruction: Instruction) -> str:
    """The instruction's text with ${NAME} replaced by the ARG defaults the file declares."""
    defaults: dict[str, str] = {}
    for arg in instructions:
        if arg.keyword == "ARG" and "=" in arg.arguments:
            name, value = arg.arguments.split("=", 1)
            defaults[name.strip()] = value.strip().strip('"')
    return re.sub(
        r"\$\{(\w+)\}", lambda m: defaults.get(m.group(1), m.group(0)), instruction.arguments
    )


def dockerfile_for(service: str) -> Path:
    return DOCKER_DIR / f"{service}.Dockerfile"


def check_all() -> list[Finding]:
    findings: list[Finding] = []
    for service in SERVICES:
        path = dockerfile_for(service)
        if not path.exists():
            findings.append(Finding("dockerfile", rel(path), "missing"))
            continue
        findings += run_hadolint(path)
        findings += check_invariants(path, service)
    path = dockerfile_for(ALL_IN_ONE)
    if not path.exists():
        return [*findings, Finding("dockerfile", rel(path), "missing")]
    findings += run_hadolint(path)
    findings += check_invariants(path, ALL_IN_ONE, packages=SERVICES, command=ALL_IN_ONE_COMMAND)
    return findings
