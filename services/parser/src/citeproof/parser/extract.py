"""One file's bytes to a parsed document (text, page offsets, chunks, metadata). Pure and
synchronous: it runs inside the sandboxed parsing child (see `sandbox`)."""

from __future__ import annotations

import msgspec

from citeproof.parser.bibliography import without_reference_list
from citeproof.parser.blocks import Block, FileFacts
from citeproof.parser.chunking import chunk_document
from citeproof.parser.document import assemble
from citeproof.parser.errors import (
    EMPTY_DOCUMENT,
    NO_TEXT_LAYER,
    TOO_LARGE,
    TOO_MANY_PAGES,
    ParseFailure,
)
from citeproof.parser.front_matter import (
    FrontMatterRules,
    front_matter_blocks,
    mark_front_matter,
    without_running_headers,
)
from citeproof.parser.layout import lines_to_blocks, remove_page_furniture
from citeproof.parser.limits import check_text_size
from citeproof.parser.metadata import (
    FIRST_PAGE_TEXT_CHARS,
    extract_metadata,
    file_title_and_authors,
)
from citeproof.parser.page_notes import collect_notes
from citeproof.parser.parsed import ParsedDocument
from citeproof.parser.pdf import extract_pdf_pages
from citeproof.parser.settings import ParserSettings
from citeproof.parser.sniff import DOCX, PDF, detect_format, mismatch_note
from citeproof.parser.wordpieces import default_counter


def _pdf_blocks(
    data: bytes, settings: ParserSettings, thesis: bool = False
) -> tuple[list[Block], int, FileFacts]:
    pages, top_boxes, facts = extract_pdf_pages(
        data, settings.max_pages, settings.min_chars_per_page
    )
    if thesis and any(facts.page_note_lines):
        # A thesis's notes at the page foot are its notes, not body text: blanked (so that a
        # sentence the notes cut is whole again) and handed to the thesis analysis. A source
        # keeps them: they may be evidence.
        notes = collect_notes(pages, facts.page_note_lines)
        pages = [
            ["" if index in set(note_lines) else line for index, line in enumerate(lines)]
            for lines, note_lines in zip(pages, facts.page_note_lines, strict=True)
        ]
        facts = msgspec.structs.replace(facts, notes=notes)
    rules = FrontMatterRules(*file_title_and_authors(facts))
    if settings.pdf_engine == "unstructured":
        from citeproof.parser.unstructured_io import partition_pdf_blocks

        return mark_front_matter(partition_pdf_blocks(data), rules), len(pages), facts
    lines = without_running_headers(
        remove_page_furniture(
            pages, top_boxes, facts.reference_entry_starts, facts.reference_furniture_lines
        ),
        rules,
    )
    # Front matter is cut off by lines, before lines are joined into paragraphs: the title,
    # author and venue lines end without punctuation and would otherwise open the abstract's
    # paragraph.
    kinds = rules.leading_kinds(lines[0]) if lines else []
    blocks = front_matter_blocks(lines[0][: len(kinds)], kinds) + lines_to_blocks(
        [lines[0][len(kinds) :], *lines[1:]],
        facts.reference_entry_starts,
        # A thesis's paragraphs as laid out: a block quotation after a full line ending in a
        # colon is a paragraph of its own. Sources keep the punctuation rule alone.
        facts.paragraph_starts if thesis else None,
    )
    return blocks, len(pages), facts


def parse_bytes(
    data: bytes,
    filename: str,
    declared_type: str | None,
    settings: ParserSettings,
    *,
    kind: str = "source",
) -> ParsedDocument:
    if not data:
        raise ParseFailure(EMPTY_DOCUMENT, "The file is empty (0 bytes).")
    if len(data) > settings.max_file_bytes:
        raise ParseFailure(
            TOO_LARGE,
            f"The file is {len(data) / 1e6:.1f} MB; citeproof accepts files up to "
            f"{settings.max_file_bytes / 1e6:.0f} MB.",
        )
    if kind == "bibliography":
        from citeproof.parser.libraries import parse_bibliography

        return parse_bibliography(data, filename)
    if kind == "thesis":
        from citeproof.parser.latex import is_latex, parse_latex_thesis

        if is_latex(data, filename):
            return parse_latex_thesis(data, filename, settings)
    detected = detect_format(data, filename, declared_type)
    notes = [note for note in [mismatch_note(filename, declared_type, detected)] if note]
    facts: FileFacts | None = None
    if detected == PDF:
        blocks, pages, facts = _pdf_blocks(data, settings, thesis=kind == "thesis")
    else:
        from citeproof.parser.unstructured_io import partition

        blocks, facts = partition(data, detected, settings)
        blocks = mark_front_matter(blocks, FrontMatterRules(*file_title_and_authors(facts)))
        pages = max((block.page for block in blocks), default=1)
        if pages > settings.max_pages:
            raise ParseFailure(
                TOO_MANY_PAGES,
                f"The document has {pages} pages; citeproof accepts at most {settings.max_pages}.",
            )
    if not blocks:
        if detected == PDF:
            raise ParseFailure(
                NO_TEXT_LAYER, "No text could be extracted from the PDF; run OCR on it first."
            )
        raise ParseFailure(EMPTY_DOCUMENT, "The document contains no text.")
    doc = assemble(blocks, pages)
    if not doc.text.strip():
        raise ParseFailure(EMPTY_DOCUMENT, "The document contains no text.")
    # Before chunking (seconds per megabyte), thesis analysis and embedding.
    check_text_size(len(doc.text), detected == PDF, settings)
    chunks = without_reference_list(
        chunk_document(
            doc,
            blocks,
            default_counter(),
            max_tokens=settings.chunk_max_tokens,
            min_tokens=settings.chunk_min_tokens,
        )
    )
    first_page_end = doc.page_starts[1] if len(doc.page_starts) > 1 else len(doc.text)
    first_page = doc.text[: min(first_page_end, FIRST_PAGE_TEXT_CHARS)]
    meta = extract_metadata(facts, blocks, first_page)
    analysis = None
    if kind == "thesis":
        from citeproof.parser.thesis import analyze_thesis

        analysis = analyze_thesis(doc.text, doc.page_starts, facts.notes if facts else None)
        if detected == DOCX:
            # Zotero/Mendeley citation fields name their items exactly: they replace the
            # analysis of the rendered markers when the document has them.
            from citeproof.parser.wordfields import field_analysis, read_citation_fields

            fields = read_citation_fields(data)
            if fields:
                analysis = field_analysis(doc.text, doc.page_starts, fields)
    return ParsedDocument(
        detected_type=detected,
        pages=pages,
        text=doc.text,
        page_starts=doc.page_starts,
        chunks=chunks,
        meta=meta,
        notes=notes,
        analysis=analysis,
        page_labels=facts.page_labels if facts is not None else [],
        page_label_offset=facts.page_label_offset if facts is not None else None,
    )
