"""Generate realistic academic PDFs (title page, running header, page numbers, reference list)
for the demo corpus, the accuracy benchmark and tests. Needs the `pdfgen` extra (reportlab)."""

from citeproof.devkit.pdfgen.render import render_pdf, running_header
from citeproof.devkit.pdfgen.source import SourceFormatError, parse_source
from citeproof.devkit.pdfgen.spec import DocumentSpec, Reference, Section

__all__ = [
    "DocumentSpec",
    "Reference",
    "Section",
    "SourceFormatError",
    "parse_source",
    "render_pdf",
    "running_header",
]
