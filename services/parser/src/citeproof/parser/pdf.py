"""PDF text extraction with pypdfium2: lines per page in reading order, plus the PDF's own
metadata and the first page's font sizes. About 1 ms per page (see ADR 0003 for why this and not
unstructured's pdfminer path)."""

from __future__ import annotations

import ctypes
import re

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from citeproof.parser.blocks import FileFacts, LineBox
from citeproof.parser.errors import (
    CORRUPT_FILE,
    ENCRYPTED,
    NO_TEXT_LAYER,
    TOO_MANY_PAGES,
    ParseFailure,
)
from citeproof.parser.page_labels import detect_page_labels
from citeproof.parser.page_notes import body_size, footnote_lines
from citeproof.parser.paragraph_layout import paragraph_starts
from citeproof.parser.reference_layout import read_reference_list
from citeproof.parser.superscripts import with_superscripts
from citeproof.parser.thesis.sections import is_reference_heading

# pdfium marks a hyphen it removed at a line break with U+FFFE (and sometimes U+0002): dropping
# the marker rejoins the word exactly as typeset ("litera-" + "ture" -> "literature").
_SOFT_HYPHENS = re.compile("[\ufffe\u0002\u00ad]")
# pdfium marks every line-end hyphen so, typed ones too; before a digit or a capital it was typed
# ("COVID-" + "19", "SARS-" + "CoV-2", "Health-" + "Protective"): hyphenation never splits there.
_TYPED_HYPHEN = re.compile("[\ufffe\u0002](?=[0-9A-Z\u00c0-\u00de])")
# Other control characters come from symbol fonts (bullets, daggers); they become spaces.
_CONTROLS = re.compile("[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\ufffd\uffff]")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
# Characters of the first page examined for title detection (the title sits near the top).
_FIRST_PAGE_CHAR_LIMIT = 4000
# Lines at the top of each page measured (size, position) for running-header detection: enough
# to see the header and the body's usual line pitch and size below it.
TOP_LINES_MEASURED = 12


def _open(data: bytes) -> pdfium.PdfDocument:
    try:
        return pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        message = str(exc).lower()
        if "password" in message or "security" in message:
            raise ParseFailure(
                ENCRYPTED,
                "The PDF is password-protected; remove the password (print to a new PDF) and "
                "upload it again.",
            ) from exc
        raise ParseFailure(
            CORRUPT_FILE,
            "The PDF is damaged or incomplete and cannot be opened; re-export or re-download it.",
        ) from exc


def _clean(text: str) -> str:
    return _CONTROLS.sub(" ", _SOFT_HYPHENS.sub("", _TYPED_HYPHEN.sub("-", text)))


def _first_page_lines(textpage: pdfium.PdfTextPage) -> list[tuple[str, float]]:
    """(line text, largest font size on the line) for the top of the first page."""
    count = min(pdfium_c.FPDFText_CountChars(textpage.raw), _FIRST_PAGE_CHAR_LIMIT)
    lines: list[tuple[str, float]] = []
    chars: list[str] = []
    size = 0.0
    for index in range(count):
        char = chr(pdfium_c.FPDFText_GetUnicode(textpage.raw, index))
        if char in "\r\n":
            if chars:
                lines.append((_clean("".join(chars)).strip(), size))
            chars, size = [], 0.0
            continue
        chars.append(char)
        if not char.isspace():
            size = max(size, pdfium_c.FPDFText_GetFontSize(textpage.raw, index))
    if chars:
        lines.append((_clean("".join(chars)).strip(), size))
    return [(text, round(size, 1)) for text, size in lines if text]


# A line-end hyphen pdfium removed joins two lines; when the text after it starts this many of
# the line's heights lower, it is no continuation but the next block (a footnote below the
# column's last line, "... pro-" + "1 Chidi Schmidt, ..."): the lines are kept apart.
HYPHEN_JUMP_LINES = 1.5


def _unjoin_hyphen_jumps(textpage: pdfium.PdfTextPage, raw: str) -> str:
    """``raw`` with a line break for each removed hyphen that joined text far apart on the page
    (one character for one, so text indexes stay the character indexes they were)."""
    if "\ufffe" not in raw:
        return raw
    chars = list(raw)
    for position, char in enumerate(raw):
        if char != "\ufffe" or position == 0 or position + 1 >= len(raw):
            continue
        boxes = []
        for text_index in (position - 1, position + 1):
            char_index = pdfium_c.FPDFText_GetCharIndexFromTextIndex(textpage.raw, text_index)
            boxes.append(_char_box(textpage, char_index) if char_index >= 0 else None)
        before, after = boxes
        if before is None or after is None:
            continue
        height = before[0] - before[1]
        if height > 0 and after[0] < before[1] - HYPHEN_JUMP_LINES * height:
            chars[position] = "\n"
    return "".join(chars)


def _char_box(textpage: pdfium.PdfTextPage, char_index: int) -> tuple[float, float, float] | None:
    """(top, bottom, left) of one character's loose box (the font's ascent/descent box)."""
    rect = pdfium_c.FS_RECTF()
    if not pdfium_c.FPDFText_GetLooseCharBox(textpage.raw, char_index, ctypes.byref(rect)):
        return None
    return rect.top, rect.bottom, rect.left


def _line_box(textpage: pdfium.PdfTextPage, raw: str, start: int, end: int) -> LineBox | None:
    """Size and vertical extent of the raw text line ``raw[start:end]`` (None for blank lines).

    The size is the median of the first, middle and last visible characters, so one symbol or
    superscript does not decide it.
    """
    # A hyphen pdfium removed (U+FFFE, U+0002) has no glyph to measure.
    visible = [
        index
        for index in range(start, end)
        if not raw[index].isspace() and raw[index] not in "\ufffe\u0002"
    ]
    if not visible:
        return None
    sizes: list[float] = []
    box: tuple[float, float, float] | None = None
    for text_index in (visible[0], visible[len(visible) // 2], visible[-1]):
        char_index = pdfium_c.FPDFText_GetCharIndexFromTextIndex(textpage.raw, text_index)
        if (
            char_index < 0
            or chr(pdfium_c.FPDFText_GetUnicode(textpage.raw, char_index)) != (raw[text_index])
        ):
            # Text and char indices disagree (characters outside the BMP): no measurement.
            return None
        sizes.append(pdfium_c.FPDFText_GetFontSize(textpage.raw, char_index))
        box = box or _char_box(textpage, char_index)
        last = char_index
    if box is None:
        return None
    # Only a line holding a removed hyphen can run over two printed lines.
    last_box = _char_box(textpage, last) if "\ufffe" in raw[start:end] else None
    return LineBox(
        size=round(sorted(sizes)[1], 2),
        top=box[0],
        bottom=box[1],
        left=box[2],
        end_bottom=last_box[1] if last_box is not None and last_box[0] < box[1] else None,
    )


def _line_boxes(
    textpage: pdfium.PdfTextPage, raw: str, limit: int | None = None
) -> list[LineBox | None]:
    """`LineBox` of each raw line (as split for `pages`), the first ``limit`` lines only if set."""
    boxes: list[LineBox | None] = []
    position = 0
    for match in _LINE_BREAK.finditer(raw):
        if limit is not None and len(boxes) >= limit:
            return boxes
        boxes.append(_line_box(textpage, raw, position, match.start()))
        position = match.end()
    if limit is None or len(boxes) < limit:
        boxes.append(_line_box(textpage, raw, position, len(raw)))
    return boxes


def _is_reference_page(lines: list[str], after_heading: bool) -> bool:
    """This page holds (part of) a reference list: it has the heading, or follows one."""
    return after_heading or any(is_reference_heading(line.strip()) for line in lines)


def _before_reference_heading(
    lines: list[str], boxes: list[LineBox | None]
) -> list[LineBox | None]:
    for index, line in enumerate(lines[: len(boxes)]):
        if is_reference_heading(line.strip()):
            return boxes[:index]
    return boxes


def _without_lines(
    boxes_by_page: list[list[LineBox | None]], left_out: list[list[int]]
) -> list[list[LineBox | None]]:
    """Each page's boxes with the lines at ``left_out``'s indices (its notes) set to None."""
    result = []
    for boxes, indices in zip(boxes_by_page, left_out, strict=True):
        skipped = set(indices)
        result.append([None if index in skipped else box for index, box in enumerate(boxes)])
    return result


def _metadata(document: pdfium.PdfDocument) -> dict[str, str]:
    try:
        info = document.get_metadata_dict(skip_empty=True)
    except (pdfium.PdfiumError, ctypes.ArgumentError, UnicodeDecodeError):
        return {}
    return {key: _clean(value).strip() for key, value in info.items() if value}


def _pdf_page_labels(document: pdfium.PdfDocument) -> list[str]:
    """The producer's page labels (/PageLabels), "" for pages without one."""
    labels: list[str] = []
    for index in range(len(document)):
        try:
            labels.append(document.get_page_label(index) or "")
        except (pdfium.PdfiumError, UnicodeDecodeError):
            labels.append("")
    return labels


def extract_pdf_pages(data: bytes, max_pages: int, min_chars_per_page: int):
    """Lines of every page, the `LineBox`es of each page's top lines (parallel to its first
    lines), and the PDF facts. Raises ParseFailure for unusable PDFs."""
    document = _open(data)
    try:
        page_count = len(document)
        if page_count == 0:
            raise ParseFailure(CORRUPT_FILE, "The PDF has no pages.")
        if page_count > max_pages:
            raise ParseFailure(
                TOO_MANY_PAGES,
                f"The PDF has {page_count} pages; citeproof accepts at most {max_pages}. "
                "Split it or upload only the relevant part.",
            )
        pages: list[list[str]] = []
        top_boxes: list[list[LineBox | None]] = []
        # Every line's box, measured only from the first page with a reference heading on (the
        # reference list's layout is read from them; the body does not need them).
        all_boxes: list[list[LineBox | None]] = []
        body_boxes: list[list[LineBox | None]] = []
        widths: list[float] = []
        in_references = False
        first_lines: list[tuple[str, float]] = []
        visible = 0
        for index in range(page_count):
            try:
                page = document[index]
                textpage = page.get_textpage()
                raw = _unjoin_hyphen_jumps(textpage, textpage.get_text_range())
                if index == 0:
                    first_lines = _first_page_lines(textpage)
                text = _clean(with_superscripts(textpage, raw))
                lines = _LINE_BREAK.split(text)
                # Notes at the page foot are looked for up to the page the reference list
                # starts on (the body may end there), never inside the list.
                body_boxes_wanted = not in_references
                in_references = _is_reference_page(lines, in_references)
                page_boxes = _line_boxes(textpage, raw)
                top_boxes.append(page_boxes[:TOP_LINES_MEASURED])
                all_boxes.append(page_boxes if in_references else [])
                body_boxes.append(page_boxes if body_boxes_wanted else [])
                widths.append(page.get_width())
            except pdfium.PdfiumError as exc:
                raise ParseFailure(
                    CORRUPT_FILE, f"Page {index + 1} of the PDF is damaged and cannot be read."
                ) from exc
            visible += sum(1 for ch in text if not ch.isspace())
            pages.append(lines)
        if visible < min_chars_per_page * page_count:
            raise ParseFailure(
                NO_TEXT_LAYER,
                "The PDF has no text layer (it looks scanned or consists of images); run OCR on "
                "it (e.g. ocrmypdf) and upload the result.",
            )
        # The body's size, from the lines above the reference heading only (on a short thesis
        # the list and the notes would outnumber the body lines).
        above_list = [
            _before_reference_heading(lines, boxes)
            for lines, boxes in zip(pages, body_boxes, strict=True)
        ]
        body = body_size(above_list)
        note_lines = [
            footnote_lines(lines, boxes, body) if body else []
            for lines, boxes in zip(pages, body_boxes, strict=True)
        ]
        # The reference list's layout is read without the notes at the foot of its first page
        # (set at the margin, they would pass for entry starts).
        list_boxes = _without_lines(all_boxes, note_lines)
        # Paragraphs of the body: above the reference heading, notes at the page foot left out.
        paragraph_boxes = _without_lines(above_list, note_lines)
        printed = detect_page_labels(pages, _pdf_page_labels(document))
        reference_list = read_reference_list(pages, list_boxes, widths)
        facts = FileFacts(
            info=_metadata(document),
            page_labels=printed.labels,
            page_label_offset=printed.offset,
            first_page_lines=first_lines,
            reference_entry_starts=reference_list.entry_starts,
            reference_furniture_lines=reference_list.furniture_lines,
            paragraph_starts=paragraph_starts(pages, paragraph_boxes, widths, body),
            page_note_lines=note_lines,
        )
        return pages, top_boxes, facts
    finally:
        document.close()
