"""Source PDFs for the seeded theses: a cited document's sentences spread over a few pages of a
journal-like article, among other text, with the page numbers a journal prints.

A source is its front matter (title, authors, the citation line "Venue 12(3), 211-216, 2021",
a DOI) and sections whose paragraphs hold the cited document's own sentences, in their order,
cut into a few groups, between paragraphs of filler sentences (other documents' text). Its
printed page numbers start at the article's first page in the volume, so they differ from the
PDF's page indices; a share of sources print no page numbers at all (a preprint), and a writer
then cites the page a PDF viewer shows. The layout (typeface, size, spacing, margins, one or two
columns, where the page number sits, running header, whether the PDF's metadata names the title
and authors) is drawn from the seed.

After rendering, the PDF's own text layer (pdfium) says on which pages each sentence landed:
that is the answer key's truth for pinpoints, not where the layout engine was asked to put it.
"""

from __future__ import annotations

import io
import itertools
import random
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final
from xml.sax.saxutils import escape

import msgspec
import pypdfium2 as pdfium
from reportlab.lib.enums import TA_CENTER, TA_JUSTIFY, TA_LEFT
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import BaseDocTemplate, Frame, FrameBreak, PageTemplate, Paragraph

from citeproof.devkit.pdfgen.fonts import FontFamily, body_font_family, sans_font_family

PRODUCER: Final = "citeproof.devkit.seeded"
SECTION_HEADINGS: Final = ("Introduction", "Methods", "Results", "Discussion", "Conclusions")
# Filler sentences per source: with the document's own sentences, three to seven pages.
MIN_FILLER: Final = 30
MAX_FILLER: Final = 75
# Filler sentences per filler paragraph.
MIN_PARAGRAPH: Final = 3
MAX_PARAGRAPH: Final = 7
# Share of sources printing no page numbers (preprints): the PDF's page index is the page.
UNNUMBERED_SHARE: Final = 0.15
# Share of numbered sources starting at page 1 (the first page of an issue, a report).
FIRST_PAGE_ONE_SHARE: Final = 0.3
# Share of sources whose PDF metadata carries no title and authors (the parser reads the
# first page's layout instead).
BARE_METADATA_SHARE: Final = 0.3
# Words of a sentence's start searched for in the text layer (fewer when a page break falls
# inside them), and the most words of page furniture a page break puts inside a sentence.
PROBE_WORDS: Final = (6, 3)
FURNITURE_WORDS: Final = 30
PAGE_NUMBER_POSITIONS: Final = ("foot-centre", "foot-outside", "head-outside")
COLUMN_GAP: Final = 7 * mm
# Height of page 1's front matter (title, authors, citation line, DOI) above the body.
FRONT_MATTER_HEIGHT: Final = 62 * mm


class WorkMeta(msgspec.Struct, frozen=True, kw_only=True):
    """A cited work as its publisher printed it (the truth the thesis's entry is checked
    against). ``authors`` are (given, surname) pairs."""

    key: str
    authors: tuple[tuple[str, str], ...]
    year: int
    title: str
    venue: str
    volume: int
    issue: int
    # Printed number of the first page; None when the source prints no page numbers.
    first_page: int | None
    doi: str | None


class SourceLayout(msgspec.Struct, frozen=True, kw_only=True):
    sans: bool
    body_size: float
    leading: float
    margin_mm: float
    columns: int
    justify: bool
    number_position: str
    running_header: bool
    # The PDF's metadata dictionary names the title and the authors.
    metadata: bool
    # The first page prints the authors' initials rather than their given names.
    initials: bool


def random_source_layout(rng: random.Random) -> SourceLayout:
    return SourceLayout(
        sans=rng.random() < 0.3,
        body_size=rng.choice((9.0, 9.5, 10.0, 10.5, 11.0)),
        leading=rng.choice((1.2, 1.3, 1.4, 1.5)),
        margin_mm=rng.uniform(16, 28),
        columns=2 if rng.random() < 0.35 else 1,
        justify=rng.random() < 0.75,
        number_position=rng.choice(PAGE_NUMBER_POSITIONS),
        running_header=rng.random() < 0.7,
        metadata=rng.random() >= BARE_METADATA_SHARE,
        initials=rng.random() < 0.3,
    )


class Block(msgspec.Struct, frozen=True):
    """A heading (``heading`` set) or a paragraph of sentences (indices into the source's
    sentence list)."""

    heading: str | None = None
    sentences: tuple[int, ...] = ()


class SourceSpec(msgspec.Struct, frozen=True, kw_only=True):
    work: WorkMeta
    layout: SourceLayout
    # Every sentence of the source's body: the cited document's own first (0..own-1), then
    # the filler.
    sentences: tuple[str, ...]
    own: int
    blocks: tuple[Block, ...]


class RenderedSource(msgspec.Struct, frozen=True):
    pdf: bytes
    # Per sentence: the first and last PDF page (0-based) it is printed on; None if the text
    # layer did not show it (never expected; such a sentence is not used for pinpoints).
    sentence_pages: tuple[tuple[int, int] | None, ...]
    # What a writer cites for each PDF page: the printed number, or the page index from 1.
    page_labels: tuple[str, ...]


def compose_source(
    work: WorkMeta, own: Sequence[str], filler: Sequence[str], rng: random.Random
) -> SourceSpec:
    """The document's sentences in their order, cut into groups placed in different sections
    between filler paragraphs."""
    count = rng.randint(MIN_FILLER, MAX_FILLER)
    chosen = rng.sample(list(filler), min(count, len(filler)))
    sentences = tuple(own) + tuple(chosen)
    groups = _groups(len(own), rng)
    filler_ids = list(range(len(own), len(sentences)))
    paragraphs: list[tuple[int, ...]] = []
    while filler_ids:
        size = rng.randint(MIN_PARAGRAPH, MAX_PARAGRAPH)
        paragraphs.append(tuple(filler_ids[:size]))
        filler_ids = filler_ids[size:]
    # Each group of the document's own sentences goes between filler paragraphs, in order, with
    # a filler sentence or two before or after it in the same paragraph now and then.
    slots = sorted(rng.sample(range(len(paragraphs) + 1), min(len(groups), len(paragraphs) + 1)))
    while len(slots) < len(groups):
        slots.append(len(paragraphs))
    body: list[tuple[int, ...]] = []
    group_at = dict(zip(slots, groups, strict=False))
    extra_groups = groups[len(group_at) :]
    for index in range(len(paragraphs) + 1):
        if index in group_at:
            body.append(group_at[index])
        if index < len(paragraphs):
            body.append(paragraphs[index])
    body.extend(extra_groups)
    headings = list(SECTION_HEADINGS[: rng.randint(3, len(SECTION_HEADINGS))])
    cuts = sorted(rng.sample(range(1, len(body)), min(len(headings) - 1, len(body) - 1)))
    blocks: list[Block] = []
    numbered = rng.random() < 0.7
    section = 0
    for index, paragraph in enumerate(body):
        if index == 0 or index in cuts:
            name = headings[min(section, len(headings) - 1)]
            section += 1
            blocks.append(Block(heading=f"{section} {name}" if numbered else name))
        blocks.append(Block(sentences=paragraph))
    return SourceSpec(
        work=work, layout=random_source_layout(rng), sentences=sentences, own=len(own),
        blocks=tuple(blocks),
    )  # fmt: skip


def _groups(count: int, rng: random.Random) -> list[tuple[int, ...]]:
    parts = rng.randint(1, min(4, count)) if count else 0
    cuts = sorted(rng.sample(range(1, count), parts - 1)) if parts > 1 else []
    bounds = [0, *cuts, count]
    return [tuple(range(a, b)) for a, b in itertools.pairwise(bounds) if b > a]


def render_source(spec: SourceSpec) -> RenderedSource:
    """The PDF and where each sentence landed. Rendered twice when the pages are numbered: the
    citation line prints the article's page range, known after the first rendering."""
    pages = _page_count(_render(spec, last_page=None))
    pdf = _render(spec, last_page=pages)
    first = spec.work.first_page
    labels = tuple(str((first or 1) + index) for index in range(_page_count(pdf)))
    order = [index for block in spec.blocks for index in block.sentences]
    located = dict(zip(order, _locate(pdf, [spec.sentences[i] for i in order]), strict=True))
    pages_of = tuple(located.get(index) for index in range(len(spec.sentences)))
    return RenderedSource(pdf=pdf, sentence_pages=pages_of, page_labels=labels)


def names_line(work: WorkMeta, initials: bool) -> str:
    people = []
    for given, surname in work.authors:
        if not given:
            people.append(surname)
        elif initials:
            people.append(f"{' '.join(part[0] + '.' for part in given.split())} {surname}")
        else:
            people.append(f"{given} {surname}")
    if len(people) > 1:
        return ", ".join(people[:-1]) + " and " + people[-1]
    return people[0] if people else ""


def citation_line(work: WorkMeta, pages: int | None) -> str:
    """ "Venue 12(3), 211–216, 2021"; a source without page numbers (a preprint, an article
    published online first) prints "Published online 2021 · Venue" instead."""
    if work.first_page is not None and pages is not None:
        last = work.first_page + pages - 1
        return f"{work.venue} {work.volume}({work.issue}), {work.first_page}–{last}, {work.year}"
    return f"Published online {work.year} · {work.venue}"


@dataclass(frozen=True)
class _Styles:
    body: ParagraphStyle
    title: ParagraphStyle
    authors: ParagraphStyle
    line: ParagraphStyle
    heading: ParagraphStyle


def _styles(fonts: FontFamily, layout: SourceLayout) -> _Styles:
    size = layout.body_size
    body = ParagraphStyle(
        "body",
        fontName=fonts.regular,
        fontSize=size,
        leading=size * layout.leading,
        alignment=TA_JUSTIFY if layout.justify else TA_LEFT,
        firstLineIndent=4 * mm,
        spaceAfter=2,
    )
    centred = ParagraphStyle("centred", parent=body, alignment=TA_CENTER, firstLineIndent=0)
    return _Styles(
        body=body,
        title=ParagraphStyle(
            "title", parent=centred, fontName=fonts.bold, fontSize=size + 7, leading=size + 11,
            spaceAfter=8,
        ),
        authors=ParagraphStyle("authors", parent=centred, fontSize=size + 1.5, spaceAfter=3),
        line=ParagraphStyle("line", parent=centred, fontName=fonts.italic, fontSize=size - 1),
        heading=ParagraphStyle(
            "heading", parent=body, fontName=fonts.bold, fontSize=size + 1.5, firstLineIndent=0,
            alignment=TA_LEFT, spaceBefore=10, spaceAfter=4, keepWithNext=1,
        ),
    )  # fmt: skip


def _render(spec: SourceSpec, last_page: int | None) -> bytes:
    layout, work = spec.layout, spec.work
    fonts = sans_font_family() if layout.sans else body_font_family()
    styles = _styles(fonts, layout)
    buffer = io.BytesIO()
    margin = layout.margin_mm * mm
    template = BaseDocTemplate(
        buffer,
        pagesize=A4,
        leftMargin=margin,
        rightMargin=margin,
        topMargin=margin + 4 * mm,
        bottomMargin=margin + 4 * mm,
        title=fonts.printable(work.title) if layout.metadata else "",
        author=fonts.printable("; ".join(f"{g} {s}".strip() for g, s in work.authors))
        if layout.metadata
        else "",
        creator=PRODUCER,
        producer=PRODUCER,
        invariant=1,
    )
    width, height, bottom = template.width, template.height, template.bottomMargin
    # Page 1 holds the front matter across the whole width above the body's columns.
    front_height = FRONT_MATTER_HEIGHT
    front = Frame(margin, bottom + height - front_height, width, front_height, id="front")
    first_frames = [front, *_columns(layout, margin, bottom, width, height - front_height)]
    furniture = _furniture(fonts, spec, margin)
    template.addPageTemplates(
        [
            PageTemplate(id="first", frames=first_frames, onPage=furniture,
                         autoNextPageTemplate="later"),
            PageTemplate(id="later", frames=_columns(layout, margin, bottom, width, height),
                         onPage=furniture),
        ]
    )  # fmt: skip
    story = [
        Paragraph(escape(fonts.printable(work.title)), styles.title),
        Paragraph(escape(fonts.printable(names_line(work, layout.initials))), styles.authors),
        Paragraph(escape(fonts.printable(citation_line(work, last_page))), styles.line),
    ]
    if work.doi:
        story.append(Paragraph(escape(f"https://doi.org/{work.doi}"), styles.line))
    story.append(FrameBreak())
    for block in spec.blocks:
        if block.heading is not None:
            story.append(Paragraph(escape(fonts.printable(block.heading)), styles.heading))
        else:
            text = " ".join(spec.sentences[i] for i in block.sentences)
            story.append(Paragraph(escape(fonts.printable(text)), styles.body))
    template.build(story)
    return buffer.getvalue()


def _columns(
    layout: SourceLayout, left: float, bottom: float, width: float, height: float
) -> list[Frame]:
    if layout.columns == 1:
        return [Frame(left, bottom, width, height)]
    half = (width - COLUMN_GAP) / 2
    return [
        Frame(left, bottom, half, height),
        Frame(left + half + COLUMN_GAP, bottom, half, height),
    ]


def _furniture(fonts: FontFamily, spec: SourceSpec, margin: float):
    layout, work = spec.layout, spec.work
    surname = work.authors[0][1] if work.authors else ""
    header = f"{surname}{' et al.' if len(work.authors) > 2 else ''} — {work.venue}"

    def draw(canvas: Canvas, template: BaseDocTemplate) -> None:
        width, height = A4
        page = template.page
        canvas.saveState()
        canvas.setFont(fonts.italic, 8)
        if layout.running_header and page > 1:
            canvas.drawString(margin, height - margin + 1 * mm, fonts.printable(header))
        if work.first_page is not None:
            number = str(work.first_page + page - 1)
            canvas.setFont(fonts.regular, 8.5)
            outside = width - margin if page % 2 else margin
            if layout.number_position == "foot-centre":
                canvas.drawCentredString(width / 2, margin - 2 * mm, number)
            elif layout.number_position == "foot-outside":
                draw_at = canvas.drawRightString if page % 2 else canvas.drawString
                draw_at(outside, margin - 2 * mm, number)
            else:
                draw_at = canvas.drawRightString if page % 2 else canvas.drawString
                draw_at(outside, height - margin + 1 * mm, number)
        canvas.restoreState()

    return draw


def _page_count(pdf: bytes) -> int:
    document = pdfium.PdfDocument(pdf)
    try:
        return len(document)
    finally:
        document.close()


def _words(text: str) -> list[str]:
    folded = unicodedata.normalize("NFKC", text)
    return re.findall(r"\w+", folded.lower())


def _locate(pdf: bytes, sentences: Sequence[str]) -> tuple[tuple[int, int] | None, ...]:
    """Per sentence (given in reading order), its first and last page in the text layer."""
    document = pdfium.PdfDocument(pdf)
    try:
        words: list[str] = []
        page_of: list[int] = []
        for index in range(len(document)):
            textpage = document[index].get_textpage()
            page_words = _words(textpage.get_text_range())
            words.extend(page_words)
            page_of.extend([index] * len(page_words))
    finally:
        document.close()
    found: list[tuple[int, int] | None] = []
    cursor = 0
    for sentence in sentences:
        wanted = _words(sentence)
        start = _find_head(words, wanted, cursor)
        if start is None:
            found.append(None)
            continue
        end = _aligned_end(words, wanted, start)
        found.append((page_of[start], page_of[end]))
        cursor = start
    return tuple(found)


def _find_head(words: list[str], wanted: list[str], cursor: int) -> int | None:
    """Where the sentence's first words start, from ``cursor`` on (fewer words when a page
    break falls inside them)."""
    for probe in PROBE_WORDS:
        if len(wanted) < probe:
            continue
        part = wanted[:probe]
        for at in range(cursor, len(words) - probe + 1):
            if words[at : at + probe] == part:
                return at
    return None


def _aligned_end(words: list[str], wanted: list[str], start: int) -> int:
    """Where the sentence ends: its words followed from its start, stepping over the page
    furniture (a running header, a page number) printed inside it at a page break."""
    at, end = start, start
    for word in wanted:
        window = words[at : at + FURNITURE_WORDS + 1]
        if word in window:
            end = at + window.index(word)
            at = end + 1
    return end
