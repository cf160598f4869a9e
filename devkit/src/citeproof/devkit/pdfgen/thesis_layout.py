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
from collections.abc import Callable
from xml.sax.saxutils import escape

import msgspec
from reportlab.lib.enums import TA_JUSTIFY, TA_LEFT
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import BaseDocTemplate, Flowable, Frame, PageTemplate, Paragraph

from citeproof.devkit.pdfgen.citestyles import RUN_SUPERSCRIPT, StyledThesis
from citeproof.devkit.pdfgen.fonts import FontFamily, body_font_family, sans_font_family

PRODUCER = "citeproof.devkit.pdfgen"
COLUMN_GAP = 8 * mm
# Footnotes: white space above the separator rule and below it (points), the rule's share of the
# column width, the space between two notes, and how much smaller than the body they are set.
FOOTNOTE_SPACE_ABOVE = 8.0
FOOTNOTE_SPACE_BELOW = 4.0
FOOTNOTE_RULE_SHARE = 0.3
FOOTNOTE_GAP = 1.5
FOOTNOTE_SIZE_DROP = 2.0
# A heading is moved to the next column unless this many body lines fit below it.
LINES_AFTER_HEADING = 3
WORD_NAMESPACE = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
FOOTNOTES_CONTENT_TYPE = (
    "application/vnd.openxmlformats-officedocument.wordprocessingml.footnotes+xml"
)


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
    # Footnotes (notes styles printed at the page foot): the note's number raised ("¹ Ana ...",
    # as Word prints it) or on the line ("1. Ana ...").
    note_number_raised: bool = True
    # Reference entries without a hanging indent may indent their first line instead.
    reference_first_line_mm: float = 0.0


def random_layout(
    seed: int | str,
    *,
    entry_gap: bool | None = None,
    hanging: bool | None = None,
    first_line_indent: bool = False,
) -> Layout:
    """A plausible thesis layout drawn from ``seed``. ``entry_gap`` forces a visible gap after
    each reference entry (True) or none (False), ``hanging`` a hanging indent or none; None
    leaves either to chance. ``first_line_indent``: entries without a hanging indent may indent
    their first line instead (drawn)."""
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
        # Drawn last, so that the layouts drawn before this field existed stay the same.
        note_number_raised=rng.random() < 0.6,
        # Only when asked for, so the layouts drawn without it stay the same.
        reference_first_line_mm=rng.choice((0.0, 5.0, 8.0)) if first_line_indent else 0.0,
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
        firstLineIndent=-hanging if hanging else layout.reference_first_line_mm * mm,
        spaceAfter=layout.entry_gap_pt,
    )
    story = [Paragraph(escape(fonts.printable(thesis.title)), heading)]
    story.append(Paragraph("1 Introduction", heading))
    for paragraph in thesis.paragraphs:
        story.append(Paragraph(_runs_markup(paragraph, fonts), body))
    if thesis.notes and not thesis.footnotes:
        story.append(Paragraph("Notes", heading))
        for number, note in enumerate(thesis.notes, start=1):
            story.append(Paragraph(f"{number}. {escape(fonts.printable(note))}", reference))
    story.append(Paragraph("Bibliography" if thesis.notes else "References", heading))
    for label, text in thesis.entries:
        # A "\n" in an entry is a line break made by hand (`reference_formats.format_entry`).
        printed = "<br/>".join(escape(fonts.printable(line)) for line in text.split("\n"))
        if label is not None:
            printed = f"{escape(label)} {printed}"
        story.append(Paragraph(printed, reference))
    if not thesis.footnotes:
        template.build(story)
        return buffer.getvalue()
    size = layout.body_size - FOOTNOTE_SIZE_DROP
    note_style = ParagraphStyle(
        "footnote", parent=body, fontSize=size, leading=size * 1.2, firstLineIndent=0,
        alignment=TA_LEFT, spaceAfter=0,
    )  # fmt: skip
    notes = []
    for number, note in enumerate(thesis.notes, start=1):
        lead = f"<super>{number}</super> " if layout.note_number_raised else f"{number}. "
        notes.append(Paragraph(lead + escape(fonts.printable(note)), note_style))
    canvas = Canvas(buffer, pagesize=A4, invariant=1)
    canvas.setTitle(fonts.printable(thesis.title))
    canvas.setAuthor(fonts.printable(thesis.author))
    canvas.setCreator(PRODUCER)
    canvas.setProducer(PRODUCER)
    boxes = [(frame._x1, frame._y1, frame._width, frame._height) for frame in frames]
    _build_with_footnotes(canvas, story, notes, boxes, furniture, body.leading)
    canvas.save()
    return buffer.getvalue()


class _Page:
    """What the page furniture reads from reportlab's doc template: the page number."""

    def __init__(self, page: int) -> None:
        self.page = page


def _raised_numbers(flowable: Flowable) -> list[int]:
    """Note numbers printed raised in a paragraph or in a piece of a split one (whose fragments
    are lines of (fragment, word) pairs)."""
    numbers: list[int] = []
    for item in getattr(flowable, "frags", []):
        pieces = item[1:] if isinstance(item, list) else [(item, getattr(item, "text", ""))]
        for piece in pieces:
            if not isinstance(piece, tuple) or getattr(piece[0], "rise", 0) <= 0:
                continue
            if str(piece[1]).strip().isdigit():
                numbers.append(int(str(piece[1]).strip()))
    return numbers


def _build_with_footnotes(
    canvas: Canvas,
    story: list[Flowable],
    notes: list[Paragraph],
    columns: list[tuple[float, float, float, float]],
    furniture: Callable[[Canvas, _Page], None],
    line: float,
) -> None:
    """Lay ``story`` out column by column, each note at the foot of the column that holds its
    number (reportlab's frames know nothing of footnotes): a paragraph is placed, or split, only
    where it fits together with the notes of the numbers it brings."""
    pending = list(story)
    page = 0
    while pending:
        page += 1
        furniture(canvas, _Page(page))
        for x, y, width, height in columns:
            if pending:
                _fill_column(canvas, pending, notes, x, y, width, height, line)
        canvas.showPage()


def _notes_height(notes: list[Paragraph], numbers: list[int], width: float) -> float:
    if not numbers:
        return 0.0
    heights = [notes[number - 1].wrap(width, 10**6)[1] + FOOTNOTE_GAP for number in numbers]
    return FOOTNOTE_SPACE_ABOVE + FOOTNOTE_SPACE_BELOW + sum(heights)


def _fill_column(
    canvas: Canvas,
    pending: list[Flowable],
    notes: list[Paragraph],
    x: float,
    y: float,
    width: float,
    height: float,
    line: float,
) -> None:
    placed: list[tuple[Flowable, float, float]] = []
    numbers: list[int] = []
    used = 0.0
    while pending:
        flowable = pending[0]
        before = flowable.getSpaceBefore() if placed else 0.0
        _, own = flowable.wrap(width, height)
        more = [n for n in _raised_numbers(flowable) if 0 < n <= len(notes)]
        need = used + before + own + _notes_height(notes, numbers + more, width)
        if flowable.getKeepWithNext():
            need += LINES_AFTER_HEADING * line
        if need <= height:
            placed.append((flowable, used + before, own))
            used += before + own + flowable.getSpaceAfter()
            numbers += more
            pending.pop(0)
            continue
        room = height - used - before - _notes_height(notes, numbers + more, width)
        parts = (
            flowable.split(width, room) if room > line and not flowable.getKeepWithNext() else []
        )
        if len(parts) >= 2:
            _, first = parts[0].wrap(width, room)
            placed.append((parts[0], used + before, first))
            numbers += [n for n in _raised_numbers(parts[0]) if 0 < n <= len(notes)]
            pending[0:1] = parts[1:]
        elif not placed:
            # Too large for an empty column even when split: placed anyway rather than never.
            placed.append((flowable, 0.0, own))
            numbers += more
            pending.pop(0)
        break
    top = y + height
    for flowable, offset, own in placed:
        flowable.drawOn(canvas, x, top - offset - own)
    if not numbers:
        return
    cursor = y + _notes_height(notes, numbers, width) - FOOTNOTE_SPACE_ABOVE
    canvas.saveState()
    canvas.setLineWidth(0.5)
    canvas.line(x, cursor, x + width * FOOTNOTE_RULE_SHARE, cursor)
    canvas.restoreState()
    cursor -= FOOTNOTE_SPACE_BELOW
    for number in numbers:
        note = notes[number - 1]
        _, own = note.wrap(width, 10**6)
        cursor -= own
        note.drawOn(canvas, x, cursor)
        cursor -= FOOTNOTE_GAP


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
            if thesis.footnotes and run.kind == RUN_SUPERSCRIPT:
                _footnote_reference(para, int(run.text))
                continue
            added = para.add_run(run.text)
            added.font.superscript = run.kind == RUN_SUPERSCRIPT
    if thesis.footnotes:
        _add_footnotes_part(document, thesis.notes, layout.body_size - FOOTNOTE_SIZE_DROP)
    elif thesis.notes:
        document.add_heading("Notes", level=1)
        for number, note in enumerate(thesis.notes, start=1):
            document.add_paragraph(f"{number}. {note}")
    document.add_heading("Bibliography" if thesis.notes else "References", level=1)
    for label, text in thesis.entries:
        para = document.add_paragraph(f"{label} {text}" if label else text)
        para.paragraph_format.left_indent = Mm(layout.hanging_indent_mm)
        para.paragraph_format.first_line_indent = Mm(
            -layout.hanging_indent_mm
            if layout.hanging_indent_mm
            else layout.reference_first_line_mm
        )
        para.paragraph_format.space_after = Pt(layout.entry_gap_pt)
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def _footnote_reference(paragraph, number: int) -> None:
    """Word's footnote mark: a superscript run holding ``w:footnoteReference``."""
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    run = paragraph.add_run()
    raised = OxmlElement("w:vertAlign")
    raised.set(qn("w:val"), "superscript")
    run._r.get_or_add_rPr().append(raised)
    reference = OxmlElement("w:footnoteReference")
    reference.set(qn("w:id"), str(number))
    run._r.append(reference)


def _add_footnotes_part(document, notes: tuple[str, ...], size: float) -> None:
    """word/footnotes.xml as Word writes it (python-docx has no footnote API): the two separator
    notes Word requires, then one note per number, its mark a superscript ``w:footnoteRef``."""
    from docx.opc.constants import RELATIONSHIP_TYPE
    from docx.opc.packuri import PackURI
    from docx.opc.part import Part

    half_points = round(size * 2)
    sized = f'<w:rPr><w:sz w:val="{half_points}"/></w:rPr>'
    raised = f'<w:rPr><w:vertAlign w:val="superscript"/><w:sz w:val="{half_points}"/></w:rPr>'
    items = [
        '<w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p>'
        "</w:footnote>",
        '<w:footnote w:type="continuationSeparator" w:id="0"><w:p><w:r>'
        "<w:continuationSeparator/></w:r></w:p></w:footnote>",
    ]
    for number, note in enumerate(notes, start=1):
        items.append(
            f'<w:footnote w:id="{number}"><w:p><w:pPr><w:spacing w:after="0"/></w:pPr>'
            f"<w:r>{raised}<w:footnoteRef/></w:r>"
            f'<w:r>{sized}<w:t xml:space="preserve"> {escape(note)}</w:t></w:r></w:p></w:footnote>'
        )
    xml = (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
        f'<w:footnotes xmlns:w="{WORD_NAMESPACE}">{"".join(items)}</w:footnotes>'
    )
    part = Part(
        PackURI("/word/footnotes.xml"),
        FOOTNOTES_CONTENT_TYPE,
        xml.encode("utf-8"),
        document.part.package,
    )
    document.part.relate_to(part, RELATIONSHIP_TYPE.FOOTNOTES)
