"""A `StyledThesis` to PDF or DOCX under a randomised page layout.

The style matrix must not be one template: a parser tuned on one typeface, margin and indent
would pass it by accident. `random_layout(seed)` draws the font, size, line spacing, margins,
columns, paragraph indent and the reference list's hanging indent and gap between entries; the
same seed always gives the same layout, and reportlab's invariant mode makes the same layout give
the same bytes.
"""

from __future__ import annotations

import io
import random
from xml.sax.saxutils import escape

import msgspec
from reportlab.lib.enums import TA_JUSTIFY, TA_LEFT
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.platypus import BaseDocTemplate, Frame, PageTemplate, Paragraph

from citeproof.pdfgen.citestyles import RUN_SUPERSCRIPT, StyledThesis
from citeproof.pdfgen.fonts import FontFamily, body_font_family, sans_font_family

PRODUCER = "citeproof.pdfgen"
COLUMN_GAP = 8 * mm


class Layout(msgspec.Struct, frozen=True, kw_only=True):
    sans: bool = False
    body_size: float = 10.5
    # Line pitch as a multiple of the font size.
    leading: float = 1.4
    margin_left_mm: float = 25.0
    margin_right_mm: float = 25.0
    margin_top_mm: float = 25.0
    margin_bottom_mm: float = 25.0
    columns: int = 1
    justify: bool = True
    first_line_indent_mm: float = 5.0
    # Reference entries: hanging indent (0: none) and extra space after each entry (points).
    hanging_indent_mm: float = 6.0
    entry_gap_pt: float = 3.0
    reference_size: float = 9.5
    running_header: bool = True


def random_layout(
    seed: int | str, *, entry_gap: bool | None = None, hanging: bool | None = None
) -> Layout:
    """A plausible thesis layout drawn from ``seed``. ``entry_gap`` forces a visible gap after
    each reference entry (True) or none (False), ``hanging`` a hanging indent or none; None
    leaves either to chance."""
    rng = random.Random(str(seed))
    size = rng.choice((9.5, 10.0, 10.5, 11.0, 12.0))
    gap = rng.choice((0.0, 0.0, 2.0, 4.0, 6.0, 9.0))
    if entry_gap is True:
        gap = rng.choice((4.0, 6.0, 9.0))
    elif entry_gap is False:
        gap = 0.0
    return Layout(
        sans=rng.random() < 0.3,
        body_size=size,
        leading=rng.choice((1.15, 1.25, 1.4, 1.5, 1.8)),
        margin_left_mm=rng.uniform(18, 35),
        margin_right_mm=rng.uniform(15, 30),
        margin_top_mm=rng.uniform(18, 30),
        margin_bottom_mm=rng.uniform(18, 30),
        columns=2 if rng.random() < 0.3 else 1,
        justify=rng.random() < 0.7,
        first_line_indent_mm=rng.choice((0.0, 4.0, 6.0, 8.0)),
        hanging_indent_mm=(
            0.0
            if hanging is False
            else rng.choice((0.0, 0.0, 5.0, 7.0, 10.0) if hanging is None else (5.0, 7.0, 10.0))
        ),
        entry_gap_pt=gap,
        reference_size=max(8.5, size - rng.choice((0.0, 0.5, 1.0))),
        running_header=rng.random() < 0.7,
    )


def _runs_markup(paragraph, fonts: FontFamily) -> str:
    parts = []
    for run in paragraph:
        text = escape(fonts.printable(run.text))
        parts.append(f"<super>{text}</super>" if run.kind == RUN_SUPERSCRIPT else text)
    return "".join(parts)


def render_thesis_pdf(thesis: StyledThesis, layout: Layout) -> bytes:
    fonts = sans_font_family() if layout.sans else body_font_family()
    buffer = io.BytesIO()
    width, height = A4
    left, right = layout.margin_left_mm * mm, layout.margin_right_mm * mm
    top, bottom = layout.margin_top_mm * mm, layout.margin_bottom_mm * mm
    template = BaseDocTemplate(
        buffer,
        pagesize=A4,
        leftMargin=left,
        rightMargin=right,
        topMargin=top,
        bottomMargin=bottom,
        title=fonts.printable(thesis.title),
        author=fonts.printable(thesis.author),
        creator=PRODUCER,
        producer=PRODUCER,
        invariant=1,
    )
    frame_width = (template.width - COLUMN_GAP * (layout.columns - 1)) / layout.columns
    frames = [
        Frame(left + k * (frame_width + COLUMN_GAP), bottom, frame_width, template.height)
        for k in range(layout.columns)
    ]

    def furniture(canvas, doc) -> None:
        canvas.saveState()
        canvas.setFont(fonts.regular, 9)
        canvas.drawCentredString(width / 2, 12 * mm, str(doc.page))
        if layout.running_header and doc.page > 1:
            canvas.setFont(fonts.italic, 8.5)
            canvas.drawString(left, height - 12 * mm, fonts.printable(thesis.title)[:80])
        canvas.restoreState()

    template.addPageTemplates([PageTemplate(id="page", frames=frames, onPage=furniture)])
    body = ParagraphStyle(
        "body",
        fontName=fonts.regular,
        fontSize=layout.body_size,
        leading=layout.body_size * layout.leading,
        alignment=TA_JUSTIFY if layout.justify else TA_LEFT,
        firstLineIndent=layout.first_line_indent_mm * mm,
        spaceAfter=0 if layout.first_line_indent_mm else layout.body_size * 0.6,
    )
    heading = ParagraphStyle(
        "heading",
        parent=body,
        fontName=fonts.bold,
        fontSize=layout.body_size + 2,
        leading=(layout.body_size + 2) * 1.3,
        firstLineIndent=0,
        alignment=TA_LEFT,
        spaceBefore=12,
        spaceAfter=6,
        keepWithNext=1,
    )
    hanging = layout.hanging_indent_mm * mm
    reference = ParagraphStyle(
        "reference",
        parent=body,
        fontSize=layout.reference_size,
        leading=layout.reference_size * min(layout.leading, 1.3),
        alignment=TA_LEFT,
        leftIndent=hanging,
        firstLineIndent=-hanging,
        spaceAfter=layout.entry_gap_pt,
    )
    story = [Paragraph(escape(fonts.printable(thesis.title)), heading)]
    story.append(Paragraph("1 Introduction", heading))
    for paragraph in thesis.paragraphs:
        story.append(Paragraph(_runs_markup(paragraph, fonts), body))
    if thesis.notes:
        story.append(Paragraph("Notes", heading))
        for number, note in enumerate(thesis.notes, start=1):
            story.append(Paragraph(f"{number}. {escape(fonts.printable(note))}", reference))
    story.append(Paragraph("Bibliography" if thesis.notes else "References", heading))
    for label, text in thesis.entries:
        printed = escape(fonts.printable(text))
        if label is not None:
            printed = f"{escape(label)} {printed}"
        story.append(Paragraph(printed, reference))
    template.build(story)
    return buffer.getvalue()


def render_thesis_docx(thesis: StyledThesis, layout: Layout) -> bytes:
    """The same thesis as a Word document: one paragraph per body paragraph and per entry,
    superscript markers as superscript runs, the hanging indent as a paragraph format."""
    from docx import Document
    from docx.shared import Mm, Pt

    document = Document()
    section = document.sections[0]
    section.left_margin = Mm(layout.margin_left_mm)
    section.right_margin = Mm(layout.margin_right_mm)
    section.top_margin = Mm(layout.margin_top_mm)
    section.bottom_margin = Mm(layout.margin_bottom_mm)
    normal = document.styles["Normal"]
    normal.font.name = "DejaVu Sans" if layout.sans else "DejaVu Serif"
    normal.font.size = Pt(layout.body_size)
    document.core_properties.title = thesis.title
    document.core_properties.author = thesis.author
    document.add_heading(thesis.title, level=0)
    document.add_heading("1 Introduction", level=1)
    for paragraph in thesis.paragraphs:
        para = document.add_paragraph()
        para.paragraph_format.first_line_indent = Mm(layout.first_line_indent_mm)
        for run in paragraph:
            added = para.add_run(run.text)
            added.font.superscript = run.kind == RUN_SUPERSCRIPT
    if thesis.notes:
        document.add_heading("Notes", level=1)
        for number, note in enumerate(thesis.notes, start=1):
            document.add_paragraph(f"{number}. {note}")
    document.add_heading("Bibliography" if thesis.notes else "References", level=1)
    for label, text in thesis.entries:
        para = document.add_paragraph(f"{label} {text}" if label else text)
        para.paragraph_format.left_indent = Mm(layout.hanging_indent_mm)
        para.paragraph_format.first_line_indent = Mm(-layout.hanging_indent_mm)
        para.paragraph_format.space_after = Pt(layout.entry_gap_pt)
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()
