"""`make dist`: wheels of the five packages and of the `citeproof` distribution into dist/.

    .venv/bin/python deploy/pypi/build.py [--out dist]

The version comes from the repository's VERSION file: the five packages must declare it (the
build refuses a mismatch rather than publish a set that cannot be installed together), and the
`citeproof` distribution is stamped with it and pins the five packages to it. Every package is
built from a copy, so no build/ or egg-info litter lands in the source tree; builds are offline
(no build isolation: the venv's setuptools).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
VERSION_FILE = REPO_ROOT / "VERSION"
MIGRATIONS = REPO_ROOT / "migrations"
META_TEMPLATE = Path(__file__).resolve().parent
# distribution name -> source folder; the `citeproof` distribution depends on all of them.
PACKAGES = {
    "citeproof-shared": REPO_ROOT / "shared",
    "citeproof-api": REPO_ROOT / "services" / "api",
    "citeproof-parser": REPO_ROOT / "services" / "parser",
    "citeproof-retriever": REPO_ROOT / "services" / "retriever",
    "citeproof-judge": REPO_ROOT / "services" / "judge",
}
# A person's install needs the embedded PostgreSQL; the images set DATABASE_URL instead.
META_EXTRAS = {"citeproof-shared": "[embedded]"}
META_FILES = ("pyproject.toml", "README.md")
MIGRATIONS_PACKAGE = Path("src") / "citeproof" / "migrations"
IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "build", "dist")


class DistError(RuntimeError):
    pass


def read_version() -> str:
    version = VERSION_FILE.read_text(encoding="utf-8").strip()
    if not version:
        raise DistError(f"{VERSION_FILE} is empty")
    return version


def declared_version(package_dir: Path) -> str:
    with (package_dir / "pyproject.toml").open("rb") as handle:
        return tomllib.load(handle)["project"]["version"]


def check_versions(version: str) -> None:
    wrong = {
        name: declared
        for name, folder in PACKAGES.items()
        if (declared := declared_version(folder)) != version
    }
    if wrong:
        listing = ", ".join(f"{name} {declared}" for name, declared in wrong.items())
        raise DistError(f"VERSION says {version} but {listing}: set them all to one version")


def stage_meta(version: str, stage: Path) -> Path:
    """The `citeproof` distribution's build folder: template, version, pins, migrations."""
    folder = stage / "citeproof"
    folder.mkdir(parents=True)
    for name in META_FILES:
        shutil.copy2(META_TEMPLATE / name, folder / name)
    (folder / "VERSION").write_text(version + "\n", encoding="utf-8")
    pins = [f"{name}{META_EXTRAS.get(name, '')}=={version}" for name in PACKAGES]
    (folder / "requirements.txt").write_text("\n".join(pins) + "\n", encoding="utf-8")
    package = folder / MIGRATIONS_PACKAGE
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(
        '"""The SQL migrations, shipped as package data (see citeproof.db.migrate)."""\n',
        encoding="utf-8",
    )
    sql = sorted(MIGRATIONS.glob("*.sql"))
    if not sql:
        raise DistError(f"no migrations in {MIGRATIONS}")
    for path in sql:
        shutil.copy2(path, package / path.name)
    return folder


def build_wheel(source: Path, stage: Path, out: Path) -> None:
    copy = stage / f"src-{source.name}"
    shutil.copytree(source, copy, ignore=IGNORED)
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q"]
    result = subprocess.run(
        [*command, "--wheel-dir", str(out), str(copy)],
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        raise DistError(f"building {source}: {result.stderr.strip() or result.stdout.strip()}")


def build(out: Path) -> list[Path]:
    version = read_version()
    check_versions(version)
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("citeproof*.whl"):
        old.unlink()  # a stale wheel of another version would make `pip install dist/*` fail
    with tempfile.TemporaryDirectory(prefix="citeproof-dist-") as tmp:
        stage = Path(tmp)
        for folder in PACKAGES.values():
            build_wheel(folder, stage, out)
        build_wheel(stage_meta(version, stage / "meta"), stage, out)
    return sorted(out.glob("citeproof*.whl"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "dist", help="wheel folder")
    args = parser.parse_args(argv)
    try:
        wheels = build(args.out)
    except DistError as exc:
        print(f"make dist: {exc}", file=sys.stderr)
        return 1
    for wheel in wheels:
        print(wheel)
    return 0


if __name__ == "__main__":
    sys.exit(main())
