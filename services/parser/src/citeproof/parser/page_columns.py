"""Page geometry the layout readers share (paragraph starts of a thesis, reference-list entry
starts): which column a line is in, and where a column's left edge lies."""

from __future__ import annotations

from collections.abc import Iterable

# Two left positions closer than this (points) are one position.
INDENT_TOLERANCE_PT = 1.5
# Lines of a page whose left edge lies beyond this share of the page width are a second column.
SECOND_COLUMN_SHARE = 0.42


def column_of(left: float, page_width: float) -> int:
    """0 for the first (or only) column, 1 for the second."""
    return int(left > page_width * SECOND_COLUMN_SHARE)


def shared_edge(lefts: Iterable[float], min_lines: int) -> float | None:
    """The leftmost position at least ``min_lines`` lines share (a running header or a stray
    glyph alone does not set it); None when no position is shared by that many."""
    values = sorted(lefts)
    for index in range(len(values) - min_lines + 1):
        if values[index + min_lines - 1] - values[index] <= INDENT_TOLERANCE_PT:
            return values[index]
    return None
