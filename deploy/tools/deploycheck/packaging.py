"""What the images install are wheels of shared/ and services/<svc> (non-editable), not the
source tree that development and tests use. A data file outside the package-data globs, or a
console script missing from the entry points, works in `make setup`'s editable install and breaks
only in the container. Build each wheel (offline, no dependencies) and compare."""

from __future__ import annotations

import configparser
import shutil
import subprocess
import sys
import tempfile
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .findings import Finding
from .paths import REPO_ROOT, SERVICES, rel

PACKAGES = {"shared": REPO_ROOT / "shared"} | {s: REPO_ROOT / "services" / s for s in SERVICES}
# Console scripts the Dockerfiles' CMD and the migration Job run.
REQUIRED_SCRIPTS = {"shared": {"citeproof"}} | {s: {f"citeproof-{s}"} for s in SERVICES}
PARALLEL_BUILDS = 2
IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "build", "dist")


def source_files(package_dir: Path) -> set[str]:
    """Files under src/ that belong in the wheel, as paths inside it (citeproof/...)."""
    src = package_dir / "src"
    return {
        str(path.relative_to(src))
        for path in src.rglob("*")
        if path.is_file()
        and "__pycache__" not in path.parts
        and not any(part.endswith(".egg-info") for part in path.parts)
        and path.suffix != ".pyc"
    }


def build_wheel(package_dir: Path, workdir: Path) -> Path:
    """Build from a copy, so no build/ or egg-info litter lands in the source tree."""
    copy = workdir / package_dir.name
    shutil.copytree(package_dir, copy, ignore=IGNORED)
    out = workdir / "wheels"
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q"]
    result = subprocess.run(
        [*command, "--wheel-dir", str(out), str(copy)],
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        raise RuntimeError(result.stderr.strip() or result.stdout.strip())
    (wheel,) = out.glob("*.whl")
    return wheel


def check_package(name: str, package_dir: Path) -> list[Finding]:
    where = rel(package_dir / "pyproject.toml")
    with tempfile.TemporaryDirectory(prefix="deploycheck-wheel-") as tmp:
        try:
            wheel = build_wheel(package_dir, Path(tmp))
        except RuntimeError as error:
            return [Finding("packaging", where, f"wheel build failed: {error}")]
        with zipfile.ZipFile(wheel) as archive:
            contents = set(archive.namelist())
            entry_points = next((n for n in contents if n.endswith("entry_points.txt")), None)
            scripts: set[str] = set()
            if entry_points:
                parser = configparser.ConfigParser()
                parser.read_string(archive.read(entry_points).decode())
                if parser.has_section("console_scripts"):
                    scripts = set(parser["console_scripts"])
    findings = [
        Finding("packaging", where, f"{path} is missing from the wheel (package-data?)")
        for path in sorted(source_files(package_dir) - contents)
    ]
    findings += [
        Finding("packaging", where, f"console script {script} is not declared")
        for script in sorted(REQUIRED_SCRIPTS.get(name, set()) - scripts)
    ]
    return findings


def check_all() -> list[Finding]:
    # Each build is a pip subprocess; two at a time roughly halves the wall time on 2 cores.
    with ThreadPoolExecutor(max_workers=PARALLEL_BUILDS) as pool:
        results = pool.map(lambda item: check_package(*item), PACKAGES.items())
        return [finding for findings in results for finding in findings]
