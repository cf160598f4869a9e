"""`citeproof check` as a person runs it: one command starts PostgreSQL in its data directory and
the four services, checks the sample thesis, writes the reports and stops everything."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import jsonschema
import pytest

from citeproof.db.embedded import EmbeddedPostgres

REPO_ROOT = Path(__file__).resolve().parents[2]
SAMPLE = REPO_ROOT / "samples" / "demo"
SARIF_SCHEMA = REPO_ROOT / "tests" / "data" / "sarif" / "sarif-schema-2.1.0.json"
CHECK_TIMEOUT_S = 600

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def data_dir() -> Iterator[Path]:
    # Not pytest's tmp_path: as root the server runs as another user that must traverse it.
    root = Path(tempfile.mkdtemp(prefix="citeproof-check-"))
    try:
        yield root / "data"
    finally:
        EmbeddedPostgres(root / "data" / "pg").destroy()
        shutil.rmtree(root, ignore_errors=True)


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CITEPROOF_TOKEN",
                                                            "CITEPROOF_API_URL")}  # fmt: skip
    env["CITEPROOF_EMBEDDED_PG_FAST"] = "1"  # throw-away data
    env["NO_COLOR"] = "1"
    return env


def _check(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "citeproof.cli", "check", *args],
        cwd=cwd, env=_env(), capture_output=True, text=True, timeout=CHECK_TIMEOUT_S, check=False,
    )  # fmt: skip


def test_check_runs_the_pipeline_locally_and_exits_1_on_problems(data_dir: Path) -> None:
    work = data_dir.parent
    # --min-coverage 0 and --fail-on any: this test is about the local pipeline and the
    # problem exit code, not about how decisive the judge of the day is (exit 3 and the default
    # --fail-on have their own unit tests, and `make test-dist` runs the sample with the
    # defaults); the sample's two citations without a source are problems under `any`.
    result = _check(str(SAMPLE / "thesis.md"), str(SAMPLE / "sources"), "--data-dir",
                    str(data_dir), "--format", "sarif", "--format", "json", "-o", "out/report",
                    "--min-coverage", "0", "--fail-on", "any", cwd=work)  # fmt: skip
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    sarif = json.loads((work / "out" / "report.sarif").read_text())
    jsonschema.Draft4Validator(json.loads(SARIF_SCHEMA.read_text())).validate(sarif)
    assert sarif["runs"][0]["results"], "the sample has problem citations"
    report = json.loads((work / "out" / "report.json").read_text())
    assert report["schema_version"] == "2"
    assert report["coverage"]["citations_found"] == len(report["citations"]) > 10
    assert report["coverage"]["linked_to_source"] > 0
    assert "needs attention" in result.stdout
    assert not EmbeddedPostgres(data_dir / "pg").is_running(), "the check left PostgreSQL running"


def test_check_without_sources_exits_3_and_says_why(data_dir: Path) -> None:
    result = _check(str(SAMPLE / "thesis.md"), "--data-dir", str(data_dir), "-f", "json",
                    "-o", "-", cwd=data_dir.parent)  # fmt: skip
    assert result.returncode == 3, result.stderr
    assert "could be linked to an uploaded source" in result.stderr
    assert json.loads(result.stdout)["outcome"]["exit_code"] == 3  # stdout is only the report


def test_ctrl_c_drains_stops_everything_and_exits_130(data_dir: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "citeproof.cli", "check", str(SAMPLE / "thesis.md"),
         str(SAMPLE / "sources"), "--data-dir", str(data_dir), "-o", "interrupted.html"],
        cwd=data_dir.parent, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    assert proc.stderr is not None
    seen = []
    deadline = time.monotonic() + CHECK_TIMEOUT_S
    for line in proc.stderr:
        seen.append(line)
        if "started" in line and line.startswith("run "):
            break
        assert time.monotonic() < deadline
    proc.send_signal(signal.SIGINT)
    _, rest = proc.communicate(timeout=CHECK_TIMEOUT_S)
    stderr = "".join(seen) + rest
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr
    assert "interrupted; run" in stderr and "cancelled" in stderr
    assert not EmbeddedPostgres(data_dir / "pg").is_running()


def test_database_url_runs_the_services_on_that_server_instead(
    database_url: str, data_dir: Path
) -> None:
    other = data_dir.parent / "with-url"
    result = _check(str(SAMPLE / "thesis.md"), "--database-url", database_url, "--data-dir",
                    str(other), "-f", "json", "-o", "-", cwd=data_dir.parent)  # fmt: skip
    assert result.returncode == 3, result.stderr
    assert json.loads(result.stdout)["coverage"]["citations_found"] > 10
    assert not (other / "pg").exists(), "no embedded server when a database URL is given"
    assert (other / "logs").is_dir()
