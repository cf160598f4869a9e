"""Render a `DocumentSpec` to a PDF with a real text layer.

Built on reportlab's platypus (flowing paragraphs, automatic page breaks, per-page callbacks for
page furniture). The output imitates a typical journal article or thesis chapter closely enough
that our parser meets the usual obstacles: a running header and a page number on every page,
justified text, numbered or hanging-indent reference entries, PDF metadata (Title, Author).

Rendering is deterministic (reportlab's invariant mode fixes the timestamps and document id), so
an unchanged spec gives byte-identical PDFs and therefore the same content hash on upload.
"""

from __future__ import annotations

import io
from xml.sax.saxutils import escape

from reportlab.lib.enums import TA_CENTER, TA_JUSTIFY
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import BaseDocTemplate, Frame, PageTemplate, Paragraph, Spacer
from reportlab.platypus.flowables import Flowable

from citeproof.devkit.pdfgen.fonts import FontFamily, body_font_family
from citeproof.devkit.pdfgen.spec import DocumentSpec, Reference

PAGE_SIZE = A4
MARGIN_X = 25 * mm
MARGIN_TOP = 25 * mm
MARGIN_BOTTOM = 25 * mm
# Distance of the running header / page number from the paper edge (inside the margins).
FURNITURE_OFFSET = 13 * mm
BODY_SIZE = 10.5
RUNNING_HEADER_MAX_CHARS = 70
PRODUCER = "citeproof.devkit.pdfgen"


def render_pdf(doc: DocumentSpec) -> bytes:
    """The PDF bytes for `doc`."""
    fonts = body_font_family()
    buffer = io.BytesIO()
    template = BaseDocTemplate(
        buffer,
        pagesize=PAGE_SIZE,
        leftMargin=MARGIN_X,
        rightMargin=MARGIN_X,
        topMargin=MARGIN_TOP,
        bottomMargin=MARGIN_BOTTOM,
        title=fonts.printable(doc.title),
        author=fonts.printable("; ".join(doc.authors)),
        subject=fonts.printable(doc.venue or ""),
        keywords=fonts.printable(", ".join(doc.keywords)),
        creator=PRODUCER,
        producer=PRODUCER,
        invariant=1,
    )
    header = fonts.printable(running_header(doc))
    frame = Frame(
        template.leftMargin, template.bottomMargin, template.width, template.height, id="body"
    )
    template.addPageTemplates(
        [
            PageTemplate(
                id="first",
                frames=[frame],
                onPage=_running_header(fonts, None),
                onPageEnd=_page_number(fonts),
                autoNextPageTemplate="later",
            ),
            PageTemplate(
                id="later",
                frames=[frame],
                onPage=_running_header(fonts, header),
                onPageEnd=_page_number(fonts),
            ),
        ]
    )
    template.build(_story(doc, fonts))
    return buffer.getvalue()


def running_header(doc: DocumentSpec) -> str:
    """As journals print it: "Surname —", "Surname and Other —" or "Surname et al. —", then the
    title, shortened to fit."""
    if doc.running_header is not None:
        return doc.running_header
    lead = ""
    surnames = [_surname(author) for author in doc.authors]
    if len(surnames) == 1:
        lead = f"{surnames[0]} — "
    elif len(surnames) == 2:
        lead = f"{surnames[0]} and {surnames[1]} — "
    elif surnames:
        lead = f"{surnames[0]} et al. — "
    title = doc.title
    room = RUNNING_HEADER_MAX_CHARS - len(lead)
    if len(title) > room:
        title = title[: room - 1].rsplit(" ", 1)[0] + "…"
    return lead + title


# Lower-case particles that belong to the surname ("Pieter van Dijk" -> "van Dijk").
SURNAME_PARTICLES = frozenset({"van", "von", "de", "der", "den", "da", "di", "du", "le", "la"})


def _surname(full_name: str) -> str:
    words = full_name.split()
    start = len(words) - 1
    while start > 0 and words[start - 1] in SURNAME_PARTICLES:
        start -= 1
    return " ".join(words[start:])


def _running_header(fonts: FontFamily, header: str | None):
    """Per-page callback drawing the running header, before the body (as LaTeX's output routine
    does, so text extraction meets it first)."""

    def draw(canvas: Canvas, template: BaseDocTemplate) -> None:
        if not header:
            return
        width, height = PAGE_SIZE
        canvas.saveState()
        canvas.setFont(fonts.italic, 8.5)
        canvas.drawString(MARGIN_X, height - FURNITURE_OFFSET, header)
        canvas.setLineWidth(0.4)
        rule_y = height - FURNITURE_OFFSET - 3
        canvas.line(MARGIN_X, rule_y, width - MARGIN_X, rule_y)
        canvas.restoreState()

    return draw


def _page_number(fonts: FontFamily):
    """Per-page callback drawing the page number in the footer, after the body."""

    def draw(canvas: Canvas, template: BaseDocTemplate) -> None:
        canvas.saveState()
        canvas.setFont(fonts.regular, 9)
        canvas.drawCentredString(PAGE_SIZE[0] / 2, FURNITURE_OFFSET, str(template.page))
        canvas.restoreState()

    return draw


class _Styles:
    """Paragraph styles for one font family."""

    def __init__(self, fonts: FontFamily) -> None:
        body = ParagraphStyle(
            "body",
            fontName=fonts.regular,
            fontSize=BODY_SIZE,
            leading=BODY_SIZE * 1.4,
            alignment=TA_JUSTIFY,
            spaceAfter=0,
            firstLineIndent=5 * mm,
        )
        self.body = body
        self.body_first = ParagraphStyle("body_first", parent=body, firstLineIndent=0)
        centred = ParagraphStyle("centred", parent=body, alignment=TA_CENTER, firstLineIndent=0)
        self.title = ParagraphStyle(
            "title", parent=centred, fontName=fonts.bold, fontSize=17, leading=22, spaceAfter=10
        )
        self.authors = ParagraphStyle(
            "authors", parent=centred, fontSize=11.5, leading=15, spaceAfter=3
        )
        self.venue = ParagraphStyle(
            "venue", parent=centred, fontName=fonts.italic, fontSize=9.5, leading=13
        )
        self.doi = ParagraphStyle("doi", parent=centred, fontSize=9, leading=12)
        self.abstract_heading = ParagraphStyle(
            "abstract_heading",
            parent=centred,
            fontName=fonts.bold,
            fontSize=10,
            spaceBefore=14,
            spaceAfter=4,
        )
        self.abstract = ParagraphStyle(
            "abstract",
            parent=body,
            fontSize=9.5,
            leading=13,
            leftIndent=10 * mm,
            rightIndent=10 * mm,
            firstLineIndent=0,
        )
        self.keywords = ParagraphStyle("keywords", parent=self.abstract, spaceBefore=5)
        self.heading = ParagraphStyle(
            "heading",
            parent=body,
            fontName=fonts.bold,
            fontSize=12,
            leading=15,
            firstLineIndent=0,
            alignment=0,
            spaceBefore=14,
            spaceAfter=5,
            keepWithNext=1,
        )
        reference = ParagraphStyle(
            "reference",
            parent=body,
            fontSize=9.5,
            leading=12.5,
            alignment=0,
            spaceAfter=4,
            firstLineIndent=0,
        )
        self.reference_numbered = ParagraphStyle(
            "reference_numbered",
            parent=reference,
            leftIndent=9 * mm,
            bulletIndent=0,
            bulletFontName=fonts.regular,
            bulletFontSize=9.5,
        )
        self.reference_hanging = ParagraphStyle(
            "reference_hanging", parent=reference, leftIndent=6 * mm, firstLineIndent=-6 * mm
        )


def _para(text: str, style: ParagraphStyle, fonts: FontFamily, **kwargs) -> Paragraph:
    # Everything is escaped: specs are plain text, never reportlab markup.
    return Paragraph(escape(fonts.printable(text)), style, **kwargs)


def _story(doc: DocumentSpec, fonts: FontFamily) -> list[Flowable]:
    styles = _Styles(fonts)
    story: list[Flowable] = [_para(doc.title, styles.title, fonts)]
    if doc.authors:
        story.append(_para(", ".join(doc.authors), styles.authors, fonts))
    venue_line = ", ".join(part for part in (doc.venue, str(doc.year or "")) if part)
    if venue_line:
        story.append(_para(venue_line, styles.venue, fonts))
    if doc.doi:
        story.append(_para(f"DOI: {doc.doi}", styles.doi, fonts))
    if doc.abstract:
        story.append(_para("Abstract", styles.abstract_heading, fonts))
        story.append(_para(doc.abstract, styles.abstract, fonts))
    if doc.keywords:
        story.append(_para("Keywords: " + "; ".join(doc.keywords), styles.keywords, fonts))
    story.append(Spacer(1, 6))
    for section in doc.sections:
        if section.heading:
            story.append(_para(section.heading, styles.heading, fonts))
        for index, paragraph in enumerate(section.paragraphs):
            style = styles.body_first if index == 0 else styles.body
            story.append(_para(paragraph, style, fonts))
    if doc.references:
        story.append(_para("References", styles.heading, fonts))
        story.extend(_reference(entry, styles, fonts) for entry in doc.references)
    return story


def _reference(entry: Reference, styles: _Styles, fonts: FontFamily) -> Paragraph:
    if entry.label is None:
        return _para(entry.text, styles.reference_hanging, fonts)
    return _para(
        entry.text, styles.reference_numbered, fonts, bulletText=f"[{fonts.printable(entry.label)}]"
    )
