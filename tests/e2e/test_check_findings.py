"""`citeproof check` as a thesis repository's CI uses it: a citeproof.toml found next to the
thesis, a baseline written from one run, the same thesis exiting 0 against it, and one more
seeded error (plus an unrelated edit) exiting 1 and naming only that error - through the whole
stack, on the sample thesis.

The judge is the `llm` backend against a fake of the OpenAI API on 127.0.0.1 that calls every
citation unsupported: this test is about findings, baselines and exit codes, and a problem
verdict on every linked citation is what a baseline must absorb; the offline judge's decisions
are measured in bench/.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import asyncpg
import jsonschema
import pytest

from tests.conftest import _with_database
from tests.integration.llm_support import FakeOpenAI, Reply

REPO_ROOT = Path(__file__).resolve().parents[2]
SAMPLE = REPO_ROOT / "samples" / "demo"
SARIF_SCHEMA = REPO_ROOT / "tests" / "data" / "sarif" / "sarif-schema-2.1.0.json"
CHECK_TIMEOUT_S = 900
# A misquotation of source [1] (its sentence says 0.6 °C): an error finding (CP101, the
# quotation is not in the source) whatever the judge says.
SEEDED = (
    "Kowalczyk and colleagues report that “each 10 percentage-point increase in canopy cover "
    "was associated with a 1.6 °C lower afternoon air temperature” [1]."
)
SEEDED_START = "Kowalczyk and colleagues report"
UNRELATED = ("This chapter reviews the evidence", "This chapter surveys the evidence")
UNSUPPORTED_REPLY = json.dumps({"label": "unsupported", "confidence": 0.9,
                                "rationale": "The passages are about something else.",
                                "quote": None, "passage": None})  # fmt: skip

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def llm() -> Iterator[FakeOpenAI]:
    with FakeOpenAI([Reply(content=UNSUPPORTED_REPLY)]) as fake:
        yield fake


@pytest.fixture(scope="module")
def own_database(database_url: str) -> str:
    """A database of its own: the session's end-to-end stack (the local judge) works the
    shared one, and its judge workers claimed this check's judge tasks, mixing the local
    judge's verdicts with the fake LLM's (a baseline written from one mix, compared with
    another, named citations as new)."""
    name = f"citeproof_findings_{uuid.uuid4().hex[:8]}"

    async def create() -> None:
        conn = await asyncpg.connect(database_url)
        try:
            await conn.execute(f'CREATE DATABASE "{name}"')
        finally:
            await conn.close()

    asyncio.run(create())
    return _with_database(database_url, name)


@pytest.fixture(scope="module")
def work() -> Iterator[Path]:
    # Not pytest's tmp_path: as root the server runs as another user that must traverse it.
    root = Path(tempfile.mkdtemp(prefix="citeproof-findings-"))
    try:
        (root / "repo" / ".git").mkdir(parents=True)
        shutil.copy(SAMPLE / "thesis.md", root / "repo" / "thesis.md")
        shutil.copytree(SAMPLE / "sources", root / "repo" / "sources")
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _check(
    work: Path, database_url: str, llm: FakeOpenAI, *args: str
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CITEPROOF_TOKEN",
                                                            "CITEPROOF_API_URL")}  # fmt: skip
    env["NO_COLOR"] = "1"
    repo = work / "repo"
    return subprocess.run(
        [sys.executable, "-m", "citeproof.cli", "check", str(repo / "thesis.md"),
         str(repo / "sources"), "--database-url", database_url, "--data-dir",
         str(work / "data"), "--judge", "llm", "--llm-url", llm.base_url, "--llm-model",
         "fake-model", *args],
        cwd=work, env=env, capture_output=True, text=True, timeout=CHECK_TIMEOUT_S, check=False,
    )  # fmt: skip


def _needs_attention(stdout: str) -> list[str]:
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("needs attention"))
    listed = []
    for line in lines[start + 1 :]:
        if not line.startswith("  "):
            break
        listed.append(line)
    return listed


def test_a_baseline_from_one_run_passes_the_same_thesis_and_catches_one_new_error(
    work: Path, own_database: str, llm: FakeOpenAI
) -> None:
    database_url = own_database
    repo = work / "repo"
    (repo / "citeproof.toml").write_text(
        'baseline = "citeproof-baseline.json"\ndisable = ["quote-verified"]\n'
    )
    baseline = repo / "citeproof-baseline.json"

    wrote = _check(work, database_url, llm, "--write-baseline", str(baseline), "-f", "json",
                   "-o", "first.json")  # fmt: skip
    assert wrote.returncode == 0, wrote.stdout + wrote.stderr
    assert f"configuration: {repo / 'citeproof.toml'}" in wrote.stdout
    written = json.loads(baseline.read_text())
    assert written["tool"] == "citeproof" and written["entries"], "the sample has findings"
    first = json.loads((work / "first.json").read_text())
    assert first["schema_version"] == "2"
    assert first["configuration"]["disabled"] == ["CP103"]
    assert first["outcome"]["exit_code"] == 0 and first["outcome"]["baseline"] is not None

    same = _check(work, database_url, llm, "-f", "json", "-o", "same.json")
    assert same.returncode == 0, same.stdout + same.stderr
    assert json.loads((work / "same.json").read_text())["outcome"]["new_problems"] == 0

    text = (repo / "thesis.md").read_text()
    assert UNRELATED[0] in text
    text = text.replace(UNRELATED[0], UNRELATED[1])
    synthesis = text.index("# 2.5 Synthesis")
    paragraph_end = text.index("\n", text.index("\n", synthesis) + 1)
    (repo / "thesis.md").write_text(text[:paragraph_end] + " " + SEEDED + text[paragraph_end:])

    seeded = _check(work, database_url, llm, "-f", "sarif", "-f", "json", "-o", "seeded")
    assert seeded.returncode == 1, seeded.stdout + seeded.stderr
    assert "Traceback" not in seeded.stderr
    # Only the seeded citation is named: its misquotation (and the fake judge's verdict on it).
    listed = _needs_attention(seeded.stdout)
    assert listed and all(SEEDED_START in line for line in listed), seeded.stdout
    assert any(line.strip().startswith("CP101 quote-not-found") for line in listed)
    sarif = json.loads((work / "seeded.sarif").read_text())
    jsonschema.Draft4Validator(json.loads(SARIF_SCHEMA.read_text())).validate(sarif)
    new = [r for r in sarif["runs"][0]["results"] if r["baselineState"] == "new"]
    assert {r["properties"]["marker"] for r in new} == {"[1]"}
    assert all(SEEDED_START in r["message"]["text"] for r in new)
    quote = next(r for r in new if r["ruleId"] == "CP101")
    assert quote["level"] == "error"
    assert quote["locations"][0]["physicalLocation"]["region"]["startLine"] > 1
    report = json.loads((work / "seeded.json").read_text())
    assert report["outcome"]["new_problems"] == len(listed)
    assert not any(f["rule"] == "CP103" for c in report["citations"] for f in c["findings"])
