"""No regex that reads uploaded text backtracks catastrophically (ReDoS).

Every pattern of the parser (sniffing, HTML facts, layout, metadata, thesis markers and entries;
found by `tests/unit/redos_attacks.py`, not listed by hand) gets hostile inputs of 300 bytes
built from its own repetitions (64 KiB: tests/hostile/test_redos_64k.py, `make test-hostile`).
Each input must be searched within the bound, in a child process that is killed when a pattern
does not return, so a vulnerable regex fails the test instead of hanging it.
"""

from __future__ import annotations

import os
import select
import subprocess
import sys
from pathlib import Path

import pytest

from tests.unit.redos_attacks import SMALL_INPUT_BYTES, attacks, untrusted_patterns

REPO_ROOT = Path(__file__).resolve().parents[2]
# CPU seconds for one search of one hostile input: a linear pattern needs milliseconds even on
# 64 KiB; a quadratic one needs minutes there, an exponential one never returns.
BOUND_SECONDS = 1.0


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _slow_patterns(size: int) -> dict[int, float | None]:
    """Index -> CPU seconds of its slowest attack (None: killed) for the patterns over the bound.

    The watchdog counts the child's CPU time, not wall time, so a loaded machine slows the test
    down but does not fail it: an attack that has used five times the bound in CPU since the
    child's last report is killed and its pattern recorded as hanging.
    """
    slow: dict[int, float | None] = {}
    first = 0
    while True:
        # After a kill, a new child carries on with the pattern after the one that hung.
        child = subprocess.Popen(
            [sys.executable, "-m", "tests.unit.redos_attacks", str(size), str(first)],
            cwd=REPO_ROOT,
            stdout=subprocess.PIPE,
            bufsize=0,
        )
        assert child.stdout is not None
        current: int | None = None
        killed = False
        pending = b""
        cpu_at_last_report = 0.0
        # Lines are split here, not by a buffered reader, so select() sees every one.
        while True:
            ready, _, _ = select.select([child.stdout], [], [], 0.2)
            if not ready:
                try:
                    cpu = _cpu_seconds(child.pid)
                except (FileNotFoundError, ProcessLookupError):
                    continue
                if current is not None and cpu - cpu_at_last_report > BOUND_SECONDS * 5:
                    child.kill()
                    killed = True
                    break
                continue
            chunk = os.read(child.stdout.fileno(), 65536)
            if not chunk:
                break
            *lines, pending = (pending + chunk).split(b"\n")
            cpu_at_last_report = _cpu_seconds(child.pid) if child.poll() is None else 0.0
            for line in lines:
                kind, *rest = line.decode().split()
                if kind == "start":
                    current = int(rest[0])
                elif kind == "done":
                    index, seconds = int(rest[0]), float(rest[1])
                    current = None
                    if seconds > BOUND_SECONDS:
                        slow[index] = seconds
        child.wait()
        if not killed:
            assert child.returncode == 0, "the ReDoS probe crashed"
            return slow
        assert current is not None, "the ReDoS probe did not start"
        slow[current] = None
        first = current + 1


def test_the_probe_finds_the_regexes_of_the_parser() -> None:
    names = [where for where, _, _ in untrusted_patterns()]
    assert len(names) > 50
    for expected in ("sniff._HTML_OPENING", "unstructured_io._META_ATTR", "thesis.markers"):
        assert any(expected in name for name in names), expected


def test_the_attacks_reproduce_a_known_exponential_pattern() -> None:
    import re

    vulnerable = re.compile(rb"^\s*(?:<!--.*?-->\s*)*<html", re.DOTALL)
    assert any(b"<!----><!----><!---->" in text for text in attacks(vulnerable, 300))


def test_no_untrusted_text_regex_backtracks_catastrophically() -> None:
    """300 bytes, every pattern (the 64 KiB sweep takes minutes: `make test-hostile`)."""
    assert_no_slow_patterns(SMALL_INPUT_BYTES)


def assert_no_slow_patterns(size: int) -> None:
    patterns = untrusted_patterns()
    slow = _slow_patterns(size)
    report = [
        f"{patterns[i][0]}: {'did not return' if secs is None else f'{secs:.2f} s'} "
        f"({patterns[i][1].pattern!r})"
        for i, secs in sorted(slow.items())
    ]
    assert not report, "\n".join(report)


if os.name != "posix":  # select() on a pipe
    pytestmark = pytest.mark.skip("POSIX only")


def test_a_parenthetical_item_is_only_matched_on_a_bounded_body() -> None:
    """The parenthetical item pattern only ever sees one part of a parenthesis body, which
    _PARENTHETICAL caps at 500 characters, however long the parenthesis is."""
    import time

    from citeproof.parser.thesis import markers

    seen: list[int] = []
    original = markers._parenthetical_item

    def recording(part: str) -> tuple[list, bool] | None:
        seen.append(len(part))
        return original(part)

    hostile = "Smith (" + "A A " + " " * 65536 + "2019) and (Lee, " + " " * 400 + "2020)"
    started = time.process_time()
    try:
        markers._parenthetical_item = recording  # type: ignore[assignment]
        found = markers.find_parenthetical_markers(hostile, 0, len(hostile))
    finally:
        markers._parenthetical_item = original  # type: ignore[assignment]
    assert time.process_time() - started < BOUND_SECONDS
    assert seen and max(seen) <= 500
    assert [item.year for marker in found for item in marker.items] == [2020]
