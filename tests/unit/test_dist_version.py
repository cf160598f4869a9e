"""One version for every distribution: the VERSION file, which the five packages declare and
the `citeproof` distribution is stamped with (deploy/pypi/build.py)."""

from __future__ import annotations

import importlib.util
import tomllib
from pathlib import Path

import pytest

from citeproof.cli import main as cli
from citeproof.version import version

REPO_ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("dist_build", REPO_ROOT / "deploy/pypi/build.py")
assert spec is not None and spec.loader is not None
build = importlib.util.module_from_spec(spec)
spec.loader.exec_module(build)


def test_every_package_declares_the_version_file() -> None:
    expected = build.read_version()
    build.check_versions(expected)  # raises on a mismatch
    with pytest.raises(build.DistError, match="set them all to one version"):
        build.check_versions(expected + ".post1")


def test_the_citeproof_distribution_pins_all_five_and_carries_the_migrations(
    tmp_path: Path,
) -> None:
    folder = build.stage_meta("9.8.7", tmp_path)
    pins = (folder / "requirements.txt").read_text().split()
    assert pins == [f"{name}{build.META_EXTRAS.get(name, '')}==9.8.7" for name in build.PACKAGES]
    assert (folder / "VERSION").read_text().strip() == "9.8.7"
    shipped = sorted(p.name for p in (folder / build.MIGRATIONS_PACKAGE).glob("*.sql"))
    assert shipped == sorted(p.name for p in (REPO_ROOT / "migrations").glob("*.sql"))
    with (folder / "pyproject.toml").open("rb") as handle:
        project = tomllib.load(handle)
    assert project["project"]["name"] == "citeproof"
    assert project["tool"]["setuptools"]["package-data"]["citeproof.migrations"] == ["*.sql"]


def test_version_flag_prints_the_installed_version(capsys) -> None:
    with pytest.raises(SystemExit) as exited:
        cli(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.strip() == f"citeproof {version()}"
    assert version() == build.read_version()
