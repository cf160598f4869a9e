"""A bibliography upload (.bib, .ris, CSL .json) parsed into a document with references only.

The document keeps the file's text (so a problem's line can be shown) and no chunks: a library
is never evidence. Entries that could not be read are notes naming their line; only a file with
no readable entry at all fails, with `malformed_bibliography`.
"""

from __future__ import annotations

from citeproof.contracts.thesis import ThesisAnalysis
from citeproof.library import LibraryFormatError, parse_library
from citeproof.parser.errors import EMPTY_DOCUMENT, MALFORMED_BIBLIOGRAPHY, ParseFailure
from citeproof.parser.libraries.references import library_references, usable_attachments
from citeproof.parser.metadata import DocumentMeta
from citeproof.parser.parsed import ParsedDocument
from citeproof.parser.sniff import decode_text

BIBLIOGRAPHY_TYPE = "bibliography"
# At most this many per-entry problems become notes; the rest are counted.
MAX_PROBLEM_NOTES = 50


def parse_bibliography(data: bytes, filename: str) -> ParsedDocument:
    text = decode_text(data)
    if text is None:
        raise ParseFailure(
            MALFORMED_BIBLIOGRAPHY,
            f"{filename} is binary data, not a bibliography: export your library as BibTeX "
            "(.bib), RIS (.ris) or CSL JSON (.json).",
        )
    if not text.strip():
        raise ParseFailure(EMPTY_DOCUMENT, "The bibliography file is empty.")
    try:
        library = parse_library(text, filename)
    except LibraryFormatError as exc:
        raise ParseFailure(MALFORMED_BIBLIOGRAPHY, exc.message) from None
    notes = [f"{filename}, {problem.describe()}" for problem in library.problems]
    for entry in library.entries:
        for path in usable_attachments(entry)[1]:
            notes.append(
                f"{filename}, line {entry.line or '?'}: the file of {entry.key} ({path}) points "
                "outside the export; it is ignored."
            )
    if len(notes) > MAX_PROBLEM_NOTES:
        notes = [*notes[:MAX_PROBLEM_NOTES], f"... and {len(notes) - MAX_PROBLEM_NOTES} more."]
    if not library.entries:
        detail = "; ".join(notes[:3]) or (
            "it holds no entries; export your library as BibTeX (.bib), RIS (.ris) or CSL JSON"
        )
        raise ParseFailure(
            MALFORMED_BIBLIOGRAPHY, f"No entry of {filename} could be read ({detail})."
        )
    analysis = ThesisAnalysis(
        references=library_references(library.entries), citations=[], markers_found=0
    )
    return ParsedDocument(
        detected_type=f"{BIBLIOGRAPHY_TYPE}/{library.format}",
        pages=1,
        text=text,
        page_starts=[0],
        chunks=[],
        meta=DocumentMeta(),
        notes=notes,
        analysis=analysis,
    )
