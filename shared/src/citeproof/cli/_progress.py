"""Progress of a run on stderr: one bar per stage redrawn in place on a terminal, one plain line
per change otherwise (CI logs), colour only on a terminal and never with NO_COLOR set.
"""

from __future__ import annotations

import os
import sys
from typing import IO

BAR_WIDTH = 24
NO_COLOR_ENV = "NO_COLOR"
_GREEN, _YELLOW, _DIM, _RESET = "\033[32m", "\033[33m", "\033[2m", "\033[0m"


def _fraction(done: int, total: int) -> float:
    return min(1.0, done / total) if total else 0.0


def stage_detail(stage: str, progress: dict) -> str:
    """What a stage did besides its count, when the API says (absent keys are zero): documents
    already parsed when the run started, source passages embedded on demand for this run's
    claims (the embedding moved from parsing to retrieval, ADR 0022), and evidence or verdicts
    reused from an earlier run of the same claims (a re-check)."""
    parts = []
    if progress.get("embedded"):
        parts.append(f"{progress['embedded']} passages embedded")
    if progress.get("reused"):
        parts.append(f"{progress['reused']} {'already parsed' if stage == 'parse' else 'reused'}")
    return ", ".join(parts)


class Progress:
    def __init__(self, stream: IO[str] | None = None) -> None:
        self._stream = stream or sys.stderr
        self._tty = self._stream.isatty()
        # https://no-color.org: any non-empty value turns colour off.
        self._colour = self._tty and not os.environ.get(NO_COLOR_ENV)
        self._last_plain = ""
        self._drawn_lines = 0

    def _paint(self, code: str, text: str) -> str:
        return f"{code}{text}{_RESET}" if self._colour else text

    def message(self, text: str) -> None:
        """A line that stays (starting services, uploads, warnings)."""
        self._clear()
        self._stream.write(text + "\n")
        self._stream.flush()

    def update(self, status: dict) -> None:
        if self._tty:
            self._draw(status)
        else:
            line = plain_line(status)
            if line != self._last_plain:
                self._stream.write(line + "\n")
                self._stream.flush()
                self._last_plain = line

    def finish(self) -> None:
        # The last drawing stays on screen; later output starts below it.
        self._drawn_lines = 0

    def _clear(self) -> None:
        if self._tty and self._drawn_lines:
            self._stream.write(f"\033[{self._drawn_lines}F\033[J")
            self._drawn_lines = 0

    def _draw(self, status: dict) -> None:
        lines = []
        for stage, p in status["progress"].items():
            fraction = 1.0 if status["status"] == "completed" else _fraction(p["done"], p["total"])
            filled = round(BAR_WIDTH * fraction)
            colour = _GREEN if fraction >= 1.0 else _YELLOW
            bar = self._paint(colour, "█" * filled) + self._paint(_DIM, "·" * (BAR_WIDTH - filled))
            line = f"  {stage:<9} {bar} {p['done']:>4}/{p['total']:<4}"
            detail = stage_detail(stage, p)
            lines.append(f"{line} {self._paint(_DIM, detail)}" if detail else line)
        state = status["status"]
        if status.get("waiting_for"):
            state += f"  (waiting for: {', '.join(status['waiting_for'])})"
        lines.append(f"  {state}")
        self._clear()
        self._stream.write("\n".join(lines) + "\n")
        self._stream.flush()
        self._drawn_lines = len(lines)


def plain_line(status: dict) -> str:
    progress = status["progress"]
    # Each stage is an equal share of the bar, so the bar never moves back when a later stage
    # learns its total (retrieve/judge totals are known only once the run is planned).
    fraction = sum(_fraction(p["done"], p["total"]) for p in progress.values()) / len(progress)
    if status["status"] == "completed":
        fraction = 1.0
    filled = round(BAR_WIDTH * fraction)
    stages = "  ".join(
        f"{name} {p['done']}/{p['total']}"
        + (f" ({detail})" if (detail := stage_detail(name, p)) else "")
        for name, p in progress.items()
    )
    line = f"[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {status['status']:<21} {stages}"
    if status.get("waiting_for"):
        line += f"  (waiting for: {', '.join(status['waiting_for'])})"
    return line
