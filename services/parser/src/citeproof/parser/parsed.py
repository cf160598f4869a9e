"""What parsing one file yields: the type every format's parser returns and the worker stores.

Its own module so that the dispatcher (`extract`) and the format parsers it calls
(`latex.analyze`, `libraries.document`) both import it without importing each other.
"""

from __future__ import annotations

import msgspec

from citeproof.contracts.thesis import ThesisAnalysis
from citeproof.parser.chunking import Chunk
from citeproof.parser.metadata import DocumentMeta


class ParsedDocument(msgspec.Struct, frozen=True):
    detected_type: str
    pages: int
    text: str
    page_starts: list[int]
    chunks: list[Chunk]
    meta: DocumentMeta
    notes: list[str] = []
    # References and citing claims; only for documents uploaded as a thesis.
    analysis: ThesisAnalysis | None = None
    # PDFs: the page number printed on each page (None where unknown) and the offset printed
    # number - page index (`citeproof.parser.page_labels`); empty / None for other formats.
    page_labels: list[str | None] = []
    page_label_offset: int | None = None
