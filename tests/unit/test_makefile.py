"""The Makefile is the project's front door: `make help` names every target with one line, and
each target is declared in exactly one place (Makefile or one mk/*.mk fragment)."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MAKEFILES = [ROOT / "Makefile", *sorted((ROOT / "mk").glob("*.mk"))]
# A rule line for a named target (not a `$(STAMP):` file rule, not a `VAR := ...` assignment).
RULE = re.compile(r"^([A-Za-z0-9_-]+):(?![:=])")


def _rules() -> list[str]:
    return [
        match.group(1)
        for path in MAKEFILES
        for line in path.read_text().splitlines()
        if (match := RULE.match(line))
    ]


def _phony() -> set[str]:
    names: set[str] = set()
    for path in MAKEFILES:
        for line in path.read_text().splitlines():
            if line.startswith(".PHONY:"):
                names.update(line.removeprefix(".PHONY:").split())
    return names


def test_every_target_is_declared_once():
    counts = Counter(_rules())
    assert [name for name, n in counts.items() if n > 1] == []


def test_every_phony_target_has_a_rule():
    assert _phony() <= set(_rules())


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_help_lists_every_target_with_one_line():
    out = subprocess.run(
        ["make", "-s", "--no-print-directory", "help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    listed = {}
    for line in out.splitlines():
        words = line.split(maxsplit=2)
        assert len(words) == 3 and words[0] == "make", f"not a help line: {line!r}"
        listed[words[1]] = words[2]
    assert set(listed) == set(_rules())
    assert all(description.strip() for description in listed.values())
