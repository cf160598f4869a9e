"""Which library format a file is, from its content (the extension is only a tie-breaker)."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from citeproof.library.model import BIBTEX, CSL_JSON, RIS, ZOTERO_RDF, LibraryFormatError

# Horizontal space only: `^\s*` under MULTILINE would rescan every following blank line from
# each line start (quadratic on a file of empty lines).
_BIBTEX_BLOCK = re.compile(r"^[ \t]*@[ \t]*[A-Za-z]+[ \t]*[{(]", re.MULTILINE)
_RIS_RECORD = re.compile(r"^TY  - ", re.MULTILINE)
_EXTENSIONS = {
    ".bib": BIBTEX,
    ".bibtex": BIBTEX,
    ".ris": RIS,
    ".json": CSL_JSON,
    ".rdf": ZOTERO_RDF,
}
# An XML document whose first KiBs open an rdf:RDF element (a plain substring test: a regex
# skipping XML comments would backtrack exponentially on "<!----><!---->...").
_RDF_HEAD_CHARS = 4096


def detect_library_format(text: str, filename: str = "") -> str:
    stripped = text.lstrip("\ufeff \t\r\n")
    if stripped.startswith(("[", "{")):
        return CSL_JSON
    if stripped.startswith("<") and "<rdf:RDF" in stripped[:_RDF_HEAD_CHARS]:
        return ZOTERO_RDF
    if _RIS_RECORD.search(text):
        return RIS
    if _BIBTEX_BLOCK.search(text):
        return BIBTEX
    by_name = _EXTENSIONS.get(PurePosixPath(filename).suffix.lower())
    if by_name is not None:
        return by_name
    raise LibraryFormatError(
        "The file is not a bibliography citeproof can read: export your library as BibTeX "
        "(.bib), RIS (.ris), CSL JSON (.json) or Zotero RDF (.rdf)."
    )
