"""What a reference manager's export says about each work: key, identifiers, attached files."""

from __future__ import annotations

from typing import Final

import msgspec

BIBTEX: Final = "bibtex"
RIS: Final = "ris"
CSL_JSON: Final = "csl-json"
ZOTERO_RDF: Final = "zotero-rdf"
LIBRARY_FORMATS: Final = (BIBTEX, RIS, CSL_JSON, ZOTERO_RDF)


class Attachment(msgspec.Struct, frozen=True, kw_only=True):
    """One file a library entry names (Zotero/Better BibTeX/JabRef `file` field, RIS `L1`)."""

    # The path exactly as the export wrote it: relative to the export ("files/12/x.pdf") or an
    # absolute path on the exporting machine.
    path: str
    mime: str | None = None
    # Zotero's attachment title ("Full Text PDF"), when the export carries one.
    description: str | None = None

    @property
    def is_pdf(self) -> bool:
        return (self.mime or "").lower() in (
            "application/pdf",
            "pdf",
        ) or self.path.lower().endswith(".pdf")


class LibraryEntry(msgspec.Struct, frozen=True, kw_only=True):
    """One work of the library, with the fields linking uses."""

    # The citation key (`\cite{key}`), RIS `ID`, or CSL-JSON `citation-key`/`id`; unique
    # within one library (a generated author+year key when the export has none).
    key: str
    entry_type: str
    title: str | None = None
    # Surnames in entry order; organisations whole.
    authors: list[str] = []
    year: int | None = None
    doi: str | None = None
    venue: str | None = None
    # Other identifiers reference verification looks the work up by (ADR 0024).
    pmid: str | None = None
    isbn: str | None = None
    arxiv_id: str | None = None
    attachments: list[Attachment] = []
    # 1-based line of the entry in the file (BibTeX, RIS); None for JSON.
    line: int | None = None


class LibraryProblem(msgspec.Struct, frozen=True, kw_only=True):
    """Something in the file that could not be read; the rest of the file still is."""

    line: int | None
    message: str

    def describe(self) -> str:
        return f"line {self.line}: {self.message}" if self.line else self.message


class Library(msgspec.Struct, frozen=True, kw_only=True):
    format: str
    entries: list[LibraryEntry]
    problems: list[LibraryProblem] = []


class LibraryFormatError(ValueError):
    """The file is not a library citeproof can read at all (no entry could be read)."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
