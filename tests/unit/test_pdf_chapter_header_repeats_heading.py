"""A running header that names the chapter repeats the chapter's heading ("2 Methods" at the
top of every page of chapter 2, and "2 Methods" set large where the chapter begins, inside a
page). The repetition rule refused such a header, because a line also printed inside a page is
content that happens to fall at page edges; set like the body and at its margin, neither did
its type tell it, so it stayed in the text and cut the sentence that a page break cuts in two
("... that run on and" / "2 Methods" / "on until the sentence ..."). Issue 25.

The thesis is drawn line by line (reportlab canvas): two chapters of two-line paragraphs, the
second chapter beginning inside a page, the header on every page after the first.
"""

from __future__ import annotations

import io
import re

import pytest

pytest.importorskip("reportlab", reason="needs the pdfgen extra: pip install -e 'devkit'")

from reportlab.lib.pagesizes import A4
from reportlab.pdfgen.canvas import Canvas

from citeproof.devkit.pdfgen.fonts import body_font_family
from citeproof.parser.extract import parse_bytes
from citeproof.parser.settings import ParserSettings

WIDTH, HEIGHT = A4
LEFT = 70.0
BODY_SIZE, BODY_PITCH = 10.5, 14.0
HEADING_SIZE, HEADING_PITCH = 12.0, 18.0
FIRST_LINE_Y = HEIGHT - 80.0
BOTTOM_Y = 60.0
CHAPTERS = (("1 Introduction", 30), ("2 Methods", 80))


def _sentence(number: int) -> tuple[str, str]:
    return (
        f"Paragraph {number} opens with words that run on and",
        f"on until the sentence number {number} ends right here.",
    )


def _render(header_size: float) -> bytes:
    fonts = body_font_family()
    flow: list[tuple[str, float, float]] = []
    number = 0
    for heading, paragraphs in CHAPTERS:
        flow.append((heading, HEADING_SIZE, HEADING_PITCH))
        for _ in range(paragraphs):
            flow += [(line, BODY_SIZE, BODY_PITCH) for line in _sentence(number)]
            number += 1
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=A4, invariant=1)
    position, page = 0, 0
    while position < len(flow):
        page += 1
        placed: list[tuple[tuple[str, float, float], float]] = []
        y = FIRST_LINE_Y
        while position < len(flow) and y > BOTTOM_Y:
            placed.append((flow[position], y))
            y -= flow[position][2]
            position += 1
        # The chapter the header names: the last heading begun by the end of the page.
        chapter = [text for text, size, _ in flow[:position] if size > BODY_SIZE][-1]
        canvas.setFont(fonts.regular, 9)
        canvas.drawCentredString(WIDTH / 2, 34, str(page))
        if page > 1:
            canvas.setFont(fonts.italic, header_size)
            canvas.drawString(LEFT, HEIGHT - 40, chapter)
        for (text, size, _), line_y in placed:
            canvas.setFont(fonts.bold if size > BODY_SIZE else fonts.regular, size)
            canvas.drawString(LEFT, line_y, text)
        canvas.showPage()
    canvas.save()
    return buffer.getvalue()


# Set like the body at its margin; and smaller (which the type-size rule already told).
@pytest.mark.parametrize("header_size", [BODY_SIZE, 8.5], ids=["like-the-body", "smaller"])
def test_a_chapter_header_repeating_its_heading_is_furniture(header_size: float) -> None:
    parsed = parse_bytes(_render(header_size), "thesis.pdf", None, ParserSettings(), kind="thesis")
    text = re.sub(r"\s+", " ", parsed.text)
    total = sum(paragraphs for _, paragraphs in CHAPTERS)
    cut = [number for number in range(total) if " ".join(_sentence(number)) not in text]
    assert cut == []
    # The headings stay, once each.
    for heading, _ in CHAPTERS:
        assert text.count(heading) == 1
