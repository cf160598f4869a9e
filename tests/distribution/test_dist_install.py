"""The wheels `make dist` builds, installed as a researcher installs them: a fresh venv outside
the checkout, `pip install` of the wheels (dependencies from the registry, pinned by the
constraints file), then `citeproof check` on the sample thesis from a temporary folder.

Run by `make test-dist` (it sets CITEPROOF_TEST_DIST=1); several minutes, so not in `make test`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import jsonschema
import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
SAMPLE = REPO_ROOT / "samples" / "demo"
SARIF_SCHEMA = REPO_ROOT / "tests" / "data" / "sarif" / "sarif-schema-2.1.0.json"
CONSTRAINTS = REPO_ROOT / "requirements" / "constraints.txt"
TORCH_PIN = "torch==2.13.0"
ENABLE_ENV = "CITEPROOF_TEST_DIST"
INSTALL_TIMEOUT_S = 1800
CHECK_TIMEOUT_S = 900
# Variables that would point the installed command back at this checkout or its database.
CHECKOUT_ENV = ("DATABASE_URL", "PYTHONPATH", "VIRTUAL_ENV", "CITEPROOF_API_URL", "CITEPROOF_TOKEN")

pytestmark = [
    pytest.mark.dist,
    pytest.mark.timeout(INSTALL_TIMEOUT_S + 2 * CHECK_TIMEOUT_S),
    pytest.mark.skipif(not os.environ.get(ENABLE_ENV), reason=f"make test-dist sets {ENABLE_ENV}"),
]


@dataclass(frozen=True)
class Installed:
    bin: Path
    work: Path
    env: dict[str, str]

    def run(self, *args: str, timeout: float = CHECK_TIMEOUT_S) -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(self.bin / "citeproof"), *args],
            cwd=self.work, env=self.env, capture_output=True, text=True, timeout=timeout,
            check=False,
        )  # fmt: skip

    def explain(self, result: subprocess.CompletedProcess) -> str:
        """The command's stderr and the end of every service log, for a failure message."""
        logs = Path(self.env["XDG_DATA_HOME"]) / "citeproof" / "logs"
        tails = [
            f"--- {path.name}\n" + "".join(path.read_text(errors="replace").splitlines(True)[-15:])
            for path in sorted(logs.glob("*.log"))
        ]
        return "\n".join([result.stderr, *tails])


def _step(args: list[str], **kwargs) -> None:
    result = subprocess.run(args, capture_output=True, text=True, check=False, **kwargs)
    assert result.returncode == 0, f"{' '.join(args[:4])} …\n{result.stdout}\n{result.stderr}"


@pytest.fixture(scope="module")
def installed() -> Iterator[Installed]:
    # Outside the checkout, and not pytest's tmp_path: the embedded server runs as another user
    # when the tests run as root and must traverse the path.
    root = Path(tempfile.mkdtemp(prefix="citeproof-dist-test-"))
    try:
        dist = root / "dist"
        _step([sys.executable, str(REPO_ROOT / "deploy" / "pypi" / "build.py"), "--out",
               str(dist)], timeout=INSTALL_TIMEOUT_S)  # fmt: skip
        venv = root / "venv"
        base_python = getattr(sys, "_base_executable", sys.executable)
        _step([base_python, "-m", "venv", str(venv)], timeout=300)
        wheels = sorted(str(p) for p in dist.glob("*.whl"))
        _step([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "-c", str(CONSTRAINTS),
               TORCH_PIN, *wheels], timeout=INSTALL_TIMEOUT_S)  # fmt: skip
        work = root / "work"
        shutil.copytree(SAMPLE, work / "sample")
        env = {k: v for k, v in os.environ.items() if k not in CHECKOUT_ENV}
        env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
        # The default data directory (no --data-dir), kept inside this test's folder.
        env["XDG_DATA_HOME"] = str(root / "xdg")
        env["CITEPROOF_EMBEDDED_PG_FAST"] = "1"  # throw-away data
        yield Installed(venv / "bin", work, env)
    finally:
        pg = root / "xdg" / "citeproof" / "pg"
        if (pg / "postmaster.pid").exists():
            subprocess.run([str(root / "venv" / "bin" / "python"), "-c",
                            "import sys; from citeproof.db.embedded import EmbeddedPostgres; "
                            "EmbeddedPostgres(__import__('pathlib').Path(sys.argv[1])).stop()",
                            str(pg)], check=False, timeout=120)  # fmt: skip
        shutil.rmtree(root, ignore_errors=True)


def test_version_and_installed_migrations(installed: Installed) -> None:
    expected = (REPO_ROOT / "VERSION").read_text().strip()
    result = installed.run("--version", timeout=120)
    assert result.returncode == 0 and result.stdout.strip() == f"citeproof {expected}"
    where = subprocess.run(
        [str(installed.bin / "python"), "-c",
         "from citeproof.db.migrate import default_migrations_dir as d; print(d())"],
        cwd=installed.work, env=installed.env, capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    assert "site-packages" in where and not where.startswith(str(REPO_ROOT))


def test_check_from_a_temporary_folder_finds_problems_and_writes_sarif_and_json(
    installed: Installed,
) -> None:
    # --min-coverage 0: this test proves the installed distribution end to end; whether the
    # judge of the day is decisive enough for the default coverage gate (exit 3) is the judge's
    # accuracy, measured in bench/, and the gate itself has unit tests.
    result = installed.run("check", "sample/thesis.md", "sample/sources", "--format", "sarif",
                           "--format", "json", "-o", "report", "--min-coverage", "0")  # fmt: skip
    assert result.returncode == 1, installed.explain(result)
    assert "Traceback" not in result.stderr
    sarif = json.loads((installed.work / "report.sarif").read_text())
    jsonschema.Draft4Validator(json.loads(SARIF_SCHEMA.read_text())).validate(sarif)
    assert sarif["runs"][0]["results"]
    report = json.loads((installed.work / "report.json").read_text())
    assert report["coverage"]["citations_found"] > 10
    assert report["coverage"]["linked_to_source"] > 0
    assert (Path(installed.env["XDG_DATA_HOME"]) / "citeproof" / "pg" / "PG_VERSION").exists()


def test_check_without_sources_exits_3_with_a_reason(installed: Installed) -> None:
    result = installed.run("check", "sample/thesis.md", "-f", "json", "-o", "alone.json")
    assert result.returncode == 3, installed.explain(result)
    assert "nothing could be checked" in result.stdout
    assert "could be linked to an uploaded source" in result.stdout
