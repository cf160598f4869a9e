"""A reference entry as verification reads it: the parsed fields, the identifiers printed in it
(DOI, arXiv id, PMID, ISBN), what kind of work it names, and - because a parsed field can be
wrong while the printed entry is right - the printed entry itself, against which an index's
record is compared.

A thesis entry that the session's library backs (the same key, DOI or title) takes the
library's identifiers and fields where its own are missing: a reference manager's record is
the better source of both.
"""

from __future__ import annotations

import itertools
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
    r"\b(press|publishers?|publishing|verlag|\d+(?:st|nd|rd|th)\s+(?:edition|ed\.)|eds?\.\)|"
    r"editors?|handbook|textbook|book|books|isbn|publications|springer|routledge|wiley)\b",
    re.IGNORECASE,
)
_REPORT_WORDS = re.compile(
    r"\b(report|technical\s+note|working\s+paper|white\s+paper|thesis|dissertation|ph\.?\s?d|"
    r"master'?s|manual|guidelines?|fact\s+sheet|facts|repository|dataset|data\s+set|software|"
    r"github|kaggle|blog|website|web\s+page|accessed|retrieved|laboratory|research\s+cent(?:re|er)|"
    r"project|url)\b",
    re.IGNORECASE,
)
# A venue that names a journal or proceedings: an article, whatever else the entry says.
_ARTICLE_VENUES = re.compile(
    r"\b(journal|proceedings|proc\.|conference|transactions|trans\.|symposium|workshop|letters|"
    r"review|annals|bulletin|quarterly|magazine|nature|science|lancet|cell|plos|bmj|jama|"
    r"acl|emnlp|naacl|neurips|nips|icml|iclr|cvpr|iccv|eccv|aaai|ijcai|chi|uist|kdd|sigir)\b",
    re.IGNORECASE,
)
# Words that name a periodical or proceedings wherever they stand in an entry (journal names
# such as "Nature" or "Science" also stand in titles: they count in the venue only).
_SERIAL_WORDS = re.compile(
    r"\b(journal|proceedings|proc\.|conference|transactions|trans\.|symposium|workshop)\b",
    re.IGNORECASE,
)
MIN_TITLE_WORDS: Final = 2
# Volume(issue):pages, a page range, "pp. 12": the tail of a venue.
_VOLUME_PAGES = re.compile(
    r"\d+\s*\(\d+(?:[-–]\d+)?\)\s*[:,]\s*\d|\bpp?\.\s*\d|\d+\s*[-–]\s*\d+\s*$"
)
MAX_TITLE_CANDIDATES: Final = 24
# Where a printed entry's sentences (authors, title, venue) end; quotes delimit a title.
_SEGMENT_BREAK = re.compile(r"(?<=[\w)?!])[.?!]\s+|[“”\"]")
_QUOTED = re.compile(r"[“\"]([^”\"]{8,400}?)[,.]?[”\"]")
_AFTER_YEAR = re.compile(r"\b(?:1[6-9]|20)\d\d[a-z]?\)?[.,:]\s+([^.?!]{8,400}[?!]?)")
# "X. Zhang", "Zhang, X.", and Vancouver's "Zhang X", "van der Walt SJ", "Chapin III FS".
_NAME_WITH_INITIAL = re.compile(
    r"\b[A-Z]\.(?:\s?[A-Z]\.)*\s[A-Z][\w'’-]+|[A-Z][\w'’-]+,\s[A-Z]\."
    r"|[A-Z][\w'’-]+(?:\s+I{1,3}|\s+Jr)?\s[A-Z]{1,3}(?=,|\.|$)"
)


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
        """The entry's title as best it can be read: a quoted title (IEEE, Chicago, MLA), the
        parsed title when it looks like one (a parser may take an author list, a venue or a URL
        for it), else the sentence after the year."""
        return title_of(self.raw, self.title)

    @property
    def citation_string(self) -> str:
        """The printed entry without URLs: what a search may send when no title was parsed."""
        return " ".join(_URL.sub(" ", latex_to_text(self.raw)).split())


def _looks_like_title(text: str | None) -> bool:
    text = (text or "").strip()
    words = re.findall(r"[^\W\d_]{2,}", text)
    if len(words) < MIN_TITLE_WORDS or _URL.search(text):
        return False
    if re.match(r"^(?:in:?\s|proceedings\b|proc\.|journal\s+of\b)", text, re.IGNORECASE):
        return False
    if _VOLUME_PAGES.search(text) or _ARXIV.search(text):
        return False  # "Neural Computing and Applications, 22(1):175–184", "arXiv:1502.00250"
    # "X. Zhang, N. Zheng, F. Wang, and Y. He": an author list, not a title.
    return len(_NAME_WITH_INITIAL.findall(text)) < 2


def title_of(raw: str, parsed: str | None) -> str | None:
    """See Entry.searchable_title."""
    quoted = _QUOTED.search(raw)
    if quoted and _looks_like_title(quoted.group(1)):
        return quoted.group(1).strip(" ,.")
    if _looks_like_title(parsed):
        return _without_venue(parsed or "")
    after_year = _AFTER_YEAR.search(raw)
    if after_year and _looks_like_title(after_year.group(1)):
        return after_year.group(1).strip()
    segments = [s.strip(" ,.") for s in _SEGMENT_BREAK.split(_URL.sub(" ", raw))]
    candidates = [s for s in segments if _looks_like_title(s) and not re.match(r"^\d", s)]
    return max(candidates, key=len) if candidates else None


def _without_venue(title: str) -> str:
    """A parsed title that ran on into the venue ("ForSense: A new coronavirus 2. Journal of
    Medical Internet Research, 9") ends where the venue starts."""
    head, _, tail = title.partition(". ")
    if (
        tail
        and (_SERIAL_WORDS.search(tail) or _VOLUME_PAGES.search(tail))
        and _looks_like_title(head)
    ):
        return head
    return title


def title_candidates(entry: Entry) -> list[str]:
    """Every span of the printed entry that may be its title (for matching by title alone)."""
    found = [t for t in (entry.searchable_title, entry.title) if t]
    segments = [s.strip(" ,.") for s in _SEGMENT_BREAK.split(_URL.sub(" ", entry.raw))]
    found += segments
    # A title may hold a full stop ("Psychotic symptoms in COVID-19 patients. A retrospective
    # descriptive study"): two neighbouring segments are a candidate too.
    found += [f"{a}. {b}" for a, b in itertools.pairwise(segments) if a and b]
    return [t for t in dict.fromkeys(found) if _looks_like_title(t)][:MAX_TITLE_CANDIDATES]


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


def kind_of(reference: Reference, has_identifier: bool, arxiv_id: str | None = None) -> str:
    """What the entry names, from its venue and the printed entry without URLs (an "arXiv" in a
    title or a "www" in a URL says nothing about the kind)."""
    raw = _URL.sub(" ", reference.raw or "")
    title = title_of(reference.raw or "", reference.title)
    untitled = raw.replace(title, " ") if title else raw
    venue = _URL.sub(" ", reference.venue or "")
    if (
        reference.arxiv_id
        or arxiv_id
        or _PREPRINT_VENUES.search(venue)
        or _PREPRINT_VENUES.search(untitled)
    ):
        return PREPRINT
    if has_identifier and not _ISBN.search(raw):
        return ARTICLE
    if _ARTICLE_VENUES.search(venue) or _SERIAL_WORDS.search(raw):
        return ARTICLE
    if _ISBN.search(raw) or _BOOK_WORDS.search(venue) or _BOOK_WORDS.search(raw):
        return BOOK
    # Report words count outside the title ("Final Report", "Facts", "Manual Control" in titles
    # of articles).
    if _REPORT_WORDS.search(untitled) or (
        reference.authors and is_organisation(reference.authors[0])
    ):
        return REPORT
    if _URL.search(reference.raw or ""):
        return WEB
    return ARTICLE


def entry_from(reference_id: int, reference: Reference, library: Reference | None) -> Entry:
    """The entry, its library record's fields filling what the thesis's own lack."""
    dois = _dois(reference)
    if library is not None:
        dois += [doi for doi in _dois(library) if doi not in dois]
    arxiv = reference.arxiv_id or (library.arxiv_id if library else None)
    if not arxiv:
        match = _ARXIV.search(f"{reference.raw or ''} {library.raw if library else ''}")
        arxiv = match.group(1) if match else None
    raw = reference.raw or ""
    # The library's record prints its identifiers too (PMID, ISBN, arXiv: parser/libraries).
    both = f"{raw} {library.raw}" if library is not None else raw
    pmid_match = _PMID.search(both)
    isbn = _isbn(both)
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
        kind=kind_of(reference, has_identifier, arxiv),
    )
