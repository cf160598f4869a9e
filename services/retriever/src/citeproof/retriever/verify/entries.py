"""A reference entry as verification reads it: the parsed fields, the identifiers printed in it
(DOI, arXiv id, PMID, ISBN), what kind of work it names, and - because a parsed field can be
wrong while the printed entry is right - the printed entry itself, against which an index's
record is compared.

A thesis entry that the session's library backs (the same key, DOI or title) takes the
library's identifiers and fields where its own are missing: a reference manager's record is
the better source of both.
"""

from __future__ import annotations

import re
from typing import Final

import msgspec

from citeproof.contracts.thesis import Reference
from citeproof.text.bibliographic import dois_in_text, latex_to_text, normalise_doi
from citeproof.text.names import is_organisation

ARTICLE: Final = "article"
PREPRINT: Final = "preprint"
# Kinds the indexes often do not know: when they do not, the entry is "not looked up", never
# "not found".
BOOK: Final = "book"
REPORT: Final = "report"
WEB: Final = "web"
OUT_OF_SCOPE_KINDS: Final = frozenset({BOOK, REPORT, WEB})

_PMID = re.compile(r"\bPMID:?\s*(\d{1,9})\b", re.IGNORECASE)
_ISBN = re.compile(r"\bISBN(?:-1[03])?:?\s*((?:97[89][\s-]?)?(?:\d[\s-]?){9}[\dXx])", re.IGNORECASE)
_ARXIV = re.compile(
    r"arxiv(?:\s*preprint)?[:\s/]*(?:abs/)?(\d{4}\.\d{4,5}|[a-z\-]+(?:\.[A-Z]{2})?/\d{7})",
    re.IGNORECASE,
)
_URL = re.compile(r"\b(?:https?://|www\.)\S+", re.IGNORECASE)
# A DOI broken by a line wrap after a dot ("10.1049/iet-cvi. 2015.0175").
_BROKEN_DOI = re.compile(r"\b(10\.\d{4,9}/\S+?\.)\s+(\d[\w.\-()/]*)")
_PREPRINT_VENUES = re.compile(
    r"\b(arxiv|biorxiv|medrxiv|ssrn|research\s+square|preprints?\.org|preprint)\b", re.IGNORECASE
)
_BOOK_WORDS = re.compile(
    r"\b(press|publishers?|publishing|verlag|edition|ed\.|eds\.|editors?|handbook|textbook|"
    r"book|books|isbn)\b",
    re.IGNORECASE,
)
_REPORT_WORDS = re.compile(
    r"\b(report|technical\s+note|working\s+paper|white\s+paper|thesis|dissertation|ph\.?\s?d|"
    r"master'?s|manual|guidelines?|fact\s+sheet|facts|repository|dataset|data\s+set|software|"
    r"github|kaggle|blog|website|web\s+page|accessed|retrieved)\b",
    re.IGNORECASE,
)
# A venue that names a journal or proceedings: an article, whatever else the entry says.
_ARTICLE_VENUES = re.compile(
    r"\b(journal|proceedings|proc\.|conference|transactions|trans\.|symposium|workshop|letters|"
    r"review|annals|bulletin|quarterly|magazine|nature|science|lancet|cell|plos|bmj|jama|"
    r"acl|emnlp|naacl|neurips|nips|icml|iclr|cvpr|iccv|eccv|aaai|ijcai|chi|uist|kdd|sigir|www)\b",
    re.IGNORECASE,
)
MIN_TITLE_WORDS: Final = 3


class Entry(msgspec.Struct, frozen=True, kw_only=True):
    reference_id: int
    label: str
    raw: str
    title: str | None = None
    authors: list[str] = []
    year: int | None = None
    venue: str | None = None
    # Every DOI the entry prints, best first (its own DOI field, then what the text shows).
    dois: list[str] = []
    arxiv_id: str | None = None
    pmid: str | None = None
    isbn: str | None = None
    kind: str = ARTICLE

    @property
    def first_author(self) -> str | None:
        return self.authors[0] if self.authors else None

    @property
    def searchable_title(self) -> str | None:
        """The parsed title when it looks like one (a parser may have taken a venue, a URL or a
        page range for it)."""
        title = (self.title or "").strip()
        words = re.findall(r"[^\W\d_]{2,}", title)
        if len(words) < MIN_TITLE_WORDS or _URL.search(title):
            return None
        if re.match(r"^(in|proceedings|proc\.)\b", title, re.IGNORECASE):
            return None
        return title

    @property
    def citation_string(self) -> str:
        """The printed entry without URLs: what a search may send when no title was parsed."""
        return " ".join(_URL.sub(" ", latex_to_text(self.raw)).split())


def _dois(reference: Reference) -> list[str]:
    found: list[str] = []
    own = normalise_doi(reference.doi)
    if own:
        found.append(own)
    text = reference.raw or ""
    for doi in [*dois_in_text(_BROKEN_DOI.sub(r"\1\2", text)), *dois_in_text(text)]:
        if doi not in found:
            found.append(doi)
    return found


def _isbn(raw: str) -> str | None:
    match = _ISBN.search(raw)
    if not match:
        return None
    digits = re.sub(r"[^0-9Xx]", "", match.group(1)).upper()
    return digits if len(digits) in (10, 13) else None


def kind_of(reference: Reference, has_identifier: bool) -> str:
    raw = reference.raw or ""
    venue = reference.venue or ""
    if reference.arxiv_id or _PREPRINT_VENUES.search(venue) or _PREPRINT_VENUES.search(raw):
        return PREPRINT
    if has_identifier and not _ISBN.search(raw):
        return ARTICLE
    if _ARTICLE_VENUES.search(venue):
        return ARTICLE
    if _ISBN.search(raw) or _BOOK_WORDS.search(venue) or _BOOK_WORDS.search(raw):
        return BOOK
    if _REPORT_WORDS.search(raw) or (reference.authors and is_organisation(reference.authors[0])):
        return REPORT
    if _URL.search(raw):
        return WEB
    return ARTICLE


def entry_from(reference_id: int, reference: Reference, library: Reference | None) -> Entry:
    """The entry, its library record's fields filling what the thesis's own lack."""
    dois = _dois(reference)
    if library is not None:
        dois += [doi for doi in _dois(library) if doi not in dois]
    arxiv = reference.arxiv_id or (library.arxiv_id if library else None)
    if not arxiv:
        match = _ARXIV.search(reference.raw or "")
        arxiv = match.group(1) if match else None
    raw = reference.raw or ""
    pmid_match = _PMID.search(raw)
    isbn = _isbn(raw)
    pmid = pmid_match.group(1) if pmid_match else None
    has_identifier = bool(dois or pmid)
    return Entry(
        reference_id=reference_id,
        label=reference.label,
        raw=raw,
        title=reference.title or (library.title if library else None),
        authors=list(reference.authors or (library.authors if library else [])),
        year=reference.year or (library.year if library else None),
        venue=reference.venue or (library.venue if library else None),
        dois=dois,
        arxiv_id=arxiv.lower() if arxiv else None,
        pmid=pmid,
        isbn=isbn,
        kind=kind_of(reference, has_identifier),
    )
