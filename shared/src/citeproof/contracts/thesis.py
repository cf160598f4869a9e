"""What thesis analysis finds in a citing document: its reference list and its citing claims.

The parser produces a `ThesisAnalysis` for every thesis it parses and stores it in the `references`
and `citations` tables. All character offsets index the document text the parser stored (the
``text`` passed to the analysis), so a claim or marker can always be shown verbatim and highlighted.
"""

from __future__ import annotations

from typing import Final
from uuid import UUID

import msgspec

# Citation styles a document can use; a document may mix them (e.g. numeric body, narrative asides).
STYLE_NUMERIC: Final = "numeric"
STYLE_AUTHOR_YEAR: Final = "author_year"

# How a reference was tied to an uploaded source document (`LinkResult.method`).
LINK_DOI: Final = "doi"
LINK_ARXIV: Final = "arxiv"
LINK_TITLE: Final = "title"
LINK_AUTHORS_YEAR: Final = "authors_year"
LINK_EXPLICIT: Final = "explicit"
# The uploaded file is one the user's reference manager attached to the entry.
LINK_ATTACHMENT: Final = "attachment"
# A PDF the optional open-access lookup fetched for the reference's DOI.
LINK_OPEN_ACCESS: Final = "open_access"
LINK_NONE: Final = "none"
# `documents.detected_type` of a LaTeX thesis: its references are the project's .bib entries,
# which BibTeX prints only when cited, so an uncited one is no entry of the printed list.
LATEX_TYPE: Final = "latex"


class Reference(msgspec.Struct, frozen=True, kw_only=True):
    """One entry of the reference list, parsed into the fields used for linking."""

    ordinal: int
    # The label markers use: the entry number for numeric styles ("12"), otherwise first-author
    # surname + year + suffix ("Smith2020a"); unique within one document.
    label: str
    raw: str
    # Surnames in entry order (diacritics kept as printed); organisations appear whole.
    authors: list[str] = []
    year: int | None = None
    # The "a" of "2020a": tells apart same-author same-year entries.
    year_suffix: str | None = None
    title: str | None = None
    venue: str | None = None
    doi: str | None = None
    arxiv_id: str | None = None
    # Files the user's reference manager attached to this entry (paths as its export wrote
    # them); an uploaded source with the same file name is this entry's source, exactly.
    attachments: list[str] = []
    char_start: int
    char_end: int


class CitedWork(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """What one item of a marker names, as printed: a number ("[14]"), or surnames, year and
    suffix ("Smith et al., 2020b"). Kept for unlinked citations too, so planning can say why no
    entry matches (a suffix the list lacks, a number beyond the list)."""

    number: int | None = None
    names: list[str] = []
    et_al: bool = False
    year: int | None = None
    year_suffix: str | None = None


class Citation(msgspec.Struct, frozen=True, kw_only=True):
    """One (claim, reference) pair: a sentence citing several references yields several rows."""

    ordinal: int
    # The whole marker as printed, e.g. "[3–5, 9]" or "(Smith et al., 2020a; Jones, 2019)".
    marker_text: str
    marker_start: int
    marker_end: int
    # The sentence carrying the marker, verbatim: always text[claim_start:claim_end] of the stored
    # document text (so marker_start - claim_start locates the marker inside it).
    claim_text: str
    claim_start: int
    claim_end: int
    # The claim as retrieval and the judge see it: the sentence without its citation markers
    # (narrative ones with their author names), so that it reads the same in every citation
    # style. Empty when not computed (rows written before it existed).
    claim_checked: str = ""
    # The sentence before the claim, verbatim (empty at the start of a paragraph or document).
    context_text: str
    # 1-based page of the marker; None when the text has no page information.
    page: int | None
    # Pinpoint inside the cited work as printed ("p. 45", "pp. 3-5", "ch. 2"), if any.
    pinpoint: str | None = None
    # The printed page labels the pinpoint names (`citeproof.text.pinpoints.pinpoint_pages`):
    # ["45"], ["3", "4", "5"], ["xiv"]; empty when it names no page ("ch. 2") or there is none.
    pinpoint_pages: list[str] = []
    # The block quotation the marker closes (an indented paragraph after a colon, the marker
    # after its last full stop), verbatim; None when the marker closes none.
    block_quote: str | None = None
    # `Reference.label` of the cited entry; None when the marker names no entry of the list.
    reference_label: str | None = None
    # Unlinked citations only: labels of the entries the marker nearly named (same first author,
    # or same year with the name among the co-authors), closest first. Shown to the user, never
    # used as a link.
    candidates: list[str] = []
    # Theses written in LaTeX: the project file and 1-based line of the citing command.
    source_file: str | None = None
    source_line: int | None = None
    # What the marker item names (None: a note number, an explicit key, rows written before it
    # existed).
    cited: CitedWork | None = None


class ThesisAnalysis(msgspec.Struct, frozen=True, kw_only=True):
    """Everything thesis analysis found in one document."""

    references: list[Reference]
    citations: list[Citation]
    # Distinct citation markers in the body (a marker citing three references counts once).
    markers_found: int
    # The dominant citation style (STYLE_NUMERIC or STYLE_AUTHOR_YEAR), None when no marker found.
    style: str | None = None
    # Human-readable remarks on what could not be done, e.g. "no reference section found".
    notes: list[str] = []


class SourceMeta(msgspec.Struct, frozen=True, kw_only=True):
    """What is known about an uploaded source document when references are linked to sources."""

    document_id: UUID
    title: str | None = None
    authors: list[str] = []
    year: int | None = None
    doi: str | None = None
    arxiv_id: str | None = None
    # The first page's text: helps when the PDF carries no usable metadata.
    first_page_text: str | None = None


class LinkResult(msgspec.Struct, frozen=True, kw_only=True):
    """The uploaded source a reference resolves to, or None below the acceptance threshold."""

    document_id: UUID | None
    # 0..1; comparable across methods (DOI match is 1.0).
    score: float
    # One of the LINK_* constants.
    method: str
