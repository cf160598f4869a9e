"""The format-independent intermediate form: a document as an ordered list of blocks."""

from __future__ import annotations

from typing import Final

import msgspec

HEADING: Final = "heading"
PARAGRAPH: Final = "paragraph"
LIST_ITEM: Final = "list_item"
CAPTION: Final = "caption"
TABLE: Final = "table"
# Title, author list, affiliations, venue and DOI lines at the top of page 1: stored, never
# evidence (see `front_matter`).
FRONT_MATTER: Final = "front_matter"


class Block(msgspec.Struct, frozen=True):
    """One structural element (heading, paragraph, ...) on one page (1-based)."""

    kind: str
    text: str
    page: int
    # True when this block continues the previous one across a page break (a paragraph cut by
    # the page end): it is joined with a single newline so its sentences are not split there.
    continues: bool = False


class FileFacts(msgspec.Struct, frozen=True):
    """What the file itself says about its title, authors and dates (the PDF metadata
    dictionary, DOCX core properties, HTML citation_* meta tags; keys as in PDF: Title, Author,
    CreationDate, doi) and, for PDFs, the first page's lines with their font size."""

    info: dict[str, str] = {}
    first_page_lines: list[tuple[str, float]] = []
    # PDFs: per page, the texts of lines that start a reference entry by the page layout
    # (see `reference_layout`); the block builder starts a new block at each.
    reference_entry_starts: list[list[str]] = []
    # PDFs: per page, indexes of lines at the reference list's page tops that its layout tells
    # are page furniture (a running header set like the list); the furniture removal drops them.
    reference_furniture_lines: list[list[int]] = []
    # PDFs: per page, the texts of body lines that start a paragraph by the page layout (a
    # first-line indent or space above; see `paragraph_layout`).
    paragraph_starts: list[list[str]] = []
    # Notes the file keeps outside its body text, by the number printed at their mark: Word
    # footnotes and endnotes (`word_notes`), a PDF thesis's notes at the page foot
    # (`page_notes`). Notes-bibliography theses cite through them.
    notes: dict[int, str] = {}
    # PDFs: per page, indexes of the lines that are notes at the foot of a column (`page_notes`).
    page_note_lines: list[list[int]] = []
    # PDFs: the page number printed on each page (None where unknown) and the offset printed
    # number - page index on the arabic-numbered pages (`page_labels`).
    page_labels: list[str | None] = []
    page_label_offset: int | None = None


class LineBox(msgspec.Struct, frozen=True):
    """Where a PDF line sits and how large it is printed, for page-furniture rules.

    PDF units (1/72 inch), y growing upwards as in PDF user space; `top`/`bottom` are the
    font's ascent/descent box, so consecutive lines of one paragraph nearly touch.
    """

    size: float
    top: float
    bottom: float
    # Left edge of the line's first visible character: tells indents and columns apart.
    left: float = 0.0
    # Bottom of its last visible character, when lower than `bottom`: pdfium joined the next
    # printed line to this one at a line-end hyphen it removed ("Health-" + "Protective").
    end_bottom: float | None = None
