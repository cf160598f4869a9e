"""Reference-manager libraries: BibTeX/BibLaTeX, RIS and CSL-JSON exports as `LibraryEntry`s.

One entry point, `parse_library`; the per-format readers and the attachment rules live in
their own modules. Shared by the parser (bibliography uploads, LaTeX projects, Word citation
fields), the planner (linking through a library) and the CLI (finding attached PDFs).
"""

from __future__ import annotations

from citeproof.library.detect import detect_library_format
from citeproof.library.model import (
    BIBTEX,
    CSL_JSON,
    RIS,
    ZOTERO_RDF,
    Attachment,
    Library,
    LibraryEntry,
    LibraryFormatError,
    LibraryProblem,
)


def parse_library(text: str, filename: str = "") -> Library:
    """Read every entry that can be read; problems name their line. Raises LibraryFormatError
    only when the file is no library at all."""
    kind = detect_library_format(text, filename)
    if kind == CSL_JSON:
        from citeproof.library.csljson import parse_csl_json

        return parse_csl_json(text)
    if kind == ZOTERO_RDF:
        from citeproof.library.zotero_rdf import parse_zotero_rdf

        return parse_zotero_rdf(text)
    if kind == RIS:
        from citeproof.library.ris import parse_ris

        return parse_ris(text)
    from citeproof.library.bibtex import parse_bibtex

    return parse_bibtex(text)


__all__ = [
    "BIBTEX",
    "CSL_JSON",
    "RIS",
    "ZOTERO_RDF",
    "Attachment",
    "Library",
    "LibraryEntry",
    "LibraryFormatError",
    "LibraryProblem",
    "detect_library_format",
    "parse_library",
]
