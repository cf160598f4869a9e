"""Footnotes at the foot of a PDF page: told from the body by size and place, read as notes.

A Chicago notes-bibliography thesis prints each note at the foot of the page (or column) whose
text holds its number: a run of lines set smaller than the body, below the body's last line,
opening with the note's number ("14 Ivanova, SARS-CoV2 Testing, 34." or "14. ..."). In the text
layer those lines sit between the column's last sentence and the next column's or page's first,
often cutting a sentence in two. `footnote_lines` finds them per page; the caller blanks them out
of the body for a thesis (so the sentence is whole again) and `collect_notes` reads the notes by
number, each continuing over lines (and pages) until the next number in sequence.
"""

from __future__ import annotations

import re

from citeproof.parser.blocks import LineBox

# A footnote line is printed at least this much smaller than the body (points): Word sets
# footnotes 2 pt below the body, LaTeX 2 pt, LibreOffice 2 pt; reference lists at most 1 pt.
MIN_SIZE_DROP = 1.2
# Sizes closer than this are the same size.
BODY_SIZE_TOLERANCE = 0.6
# A note opens with its number, with or without a full stop, then its text.
_NOTE_START = re.compile(r"(\d{1,4})\.?[ \t]+\S")
_BARE_NUMBER = re.compile(r"\d{1,4}")


def body_size(boxes: list[list[LineBox | None]]) -> float | None:
    """The size most lines are printed in (the median over every measured line)."""
    sizes = sorted(box.size for page in boxes for box in page if box is not None)
    return sizes[len(sizes) // 2] if sizes else None


def _opens_note(line: str) -> bool:
    # A raised one-digit number is a line of its own in the text layer (its baseline differs).
    return bool(_NOTE_START.match(line) or _BARE_NUMBER.fullmatch(line))


def _is_small(box: LineBox | None, body: float) -> bool:
    return box is not None and box.size <= body - MIN_SIZE_DROP


def footnote_lines(lines: list[str], boxes: list[LineBox | None], body: float) -> list[int]:
    """Indexes of the lines of ``lines`` that are notes at the foot of a column of this page.

    A run of small lines (blank lines inside it allowed) is a footnote block when its first line
    opens with a number, the line before it is a body line printed above it, and nothing follows
    it on the page but a bare page number or text higher up (the next column or page). A bare
    number at the run's end is the page number and stays.
    """
    found: list[int] = []
    count = min(len(lines), len(boxes))
    visible = [index for index in range(count) if lines[index].strip() and boxes[index]]
    position = 0
    while position < len(visible):
        start = visible[position]
        if not _is_small(boxes[start], body) or not _opens_note(lines[start].strip()):
            position += 1
            continue
        end = position
        while end + 1 < len(visible) and _is_small(boxes[visible[end + 1]], body):
            end += 1
        run = visible[position : end + 1]
        while run and _BARE_NUMBER.fullmatch(lines[run[-1]].strip()):
            run.pop()
        first = boxes[start]
        before = boxes[visible[position - 1]] if position > 0 else None
        after = boxes[visible[end + 1]] if end + 1 < len(visible) else None
        assert first is not None
        # Above it: the body, or (on the page the bibliography starts) an entry set larger.
        above = (
            before is not None
            and before.size >= first.size + MIN_SIZE_DROP - BODY_SIZE_TOLERANCE
            and before.bottom >= first.top
        )
        # The next line, if any, starts another column or page: it is printed higher up.
        ends_column = after is None or after.bottom > first.top
        if run and above and ends_column:
            found.extend(run)
        position = end + 1
    return found


def _joined(text: str, line: str) -> str:
    if not text:
        return line
    if text.endswith("-") and line[:1].islower():
        return text + line
    return f"{text} {line}"


def collect_notes(pages: list[list[str]], note_lines: list[list[int]]) -> dict[int, str]:
    """The notes printed on ``note_lines`` of ``pages``, by number: a line opening with the next
    number in sequence starts a note (the first note any number), any other line ("2019 (BMJ
    Open 32), 4.") continues the note before it."""
    notes: dict[int, str] = {}
    current: int | None = None
    for lines, indexes in zip(pages, note_lines, strict=False):
        for index in indexes:
            line = lines[index].strip()
            match = _NOTE_START.match(line) or _BARE_NUMBER.fullmatch(line)
            number = int(match.group(1) if match.groups() else match.group(0)) if match else None
            if number is not None and (current is None or number == current + 1):
                current = number
                notes[current] = line[len(str(number)) :].lstrip(". \t")
            elif current is not None:
                notes[current] = _joined(notes[current], line)
    return notes
