"""What an index says about one work, in one compact form whatever the index: citeproof's
reading of a Crossref `/works` item or an OpenAlex work object.

Both answers are untrusted input (a hostile or broken server can send anything that parses as
JSON): every field is read defensively, a value of the wrong type is treated as absent, strings
are capped, and an item without a title is no record at all. The compact form is what the cache
stores, never the raw response.
"""

from __future__ import annotations

import re
from typing import Any, Final

import msgspec

from citeproof.retractions import (
    CORRECTION,
    EXPRESSION_OF_CONCERN,
    PARTIAL_RETRACTION,
    REINSTATEMENT,
    REMOVAL,
    REPLACEMENT,
    RETRACTION,
    WITHDRAWAL,
)
from citeproof.text.bibliographic import normalise_doi

# Crossref update types (`updated-by[].type`, `update-to[].type`), compared upper-cased -> our
# kind. Anything else (new_version, new_edition, ...) is not a notice about the work's standing.
CROSSREF_UPDATE_KINDS: Final = {
    "RETRACTION": RETRACTION,
    "PARTIAL_RETRACTION": PARTIAL_RETRACTION,
    "WITHDRAWAL": WITHDRAWAL,
    "REMOVAL": REMOVAL,
    "EXPRESSION_OF_CONCERN": EXPRESSION_OF_CONCERN,
    "CORRECTION": CORRECTION,
    "ERRATUM": CORRECTION,
    "CORRIGENDUM": CORRECTION,
    "ADDENDUM": CORRECTION,
    "CLARIFICATION": CORRECTION,
    "REINSTATEMENT": REINSTATEMENT,
}
# Words by which a notice says the work was replaced, not withdrawn.
_REPLACED = re.compile(r"replace", re.IGNORECASE)

# Work types that are preprints (Crossref `posted-content`, OpenAlex `preprint`).
PREPRINT_TYPES: Final = frozenset({"posted-content", "preprint"})
# Repositories whose copy is a preprint (OpenAlex location sources).
PREPRINT_SERVERS: Final = ("arxiv", "biorxiv", "medrxiv", "ssrn", "research square", "preprints")
ARXIV_DOI_PREFIX: Final = "10.48550/arxiv."

MAX_FIELD_CHARS: Final = 1000
MAX_AUTHORS: Final = 100
MAX_NOTICES: Final = 20
_YEAR = re.compile(r"^(1[5-9]\d\d|20\d\d)")
_PMID_URL = re.compile(r"(\d{1,9})/?$")


class Notice(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """An editorial update to a work: a retraction, an expression of concern, a correction."""

    kind: str
    label: str = ""  # as the index names it ("Retraction", "Expression of concern")
    doi: str | None = None  # the notice's own DOI
    date: str | None = None  # ISO date
    source: str = ""  # who reported it ("publisher", "retraction-watch")


class Version(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """Another version of the same work the index links (a preprint's published article)."""

    doi: str | None = None
    year: int | None = None
    venue: str | None = None
    published: bool = True


class IndexRecord(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    index: str
    title: str
    # Display names as the index gives them ("Hal Daumé III", "Daumé III, Hal", "AJ Wakefield").
    authors: list[str] = []
    year: int | None = None
    venue: str | None = None
    doi: str | None = None
    pmid: str | None = None
    arxiv_id: str | None = None
    isbns: list[str] = []
    work_type: str = ""
    url: str | None = None
    # The index's own flag (OpenAlex `is_retracted`), beside the notices.
    retracted: bool = False
    notices: list[Notice] = []
    # Other versions the index links: a preprint's published article, a paper's preprint.
    versions: list[Version] = []
    # This record is itself a notice about another work (Crossref `update-to`): never the
    # work an entry cites, however close its title.
    is_notice: bool = False

    @property
    def is_preprint(self) -> bool:
        return self.work_type in PREPRINT_TYPES or (self.doi or "").startswith(ARXIV_DOI_PREFIX)

    @property
    def years(self) -> set[int]:
        """Every year the work carries: its own and its versions' (a preprint's, a published)."""
        found = {self.year} if self.year else set()
        return found | {v.year for v in self.versions if v.year}


# --- defensive readers -------------------------------------------------------------------------
def _text(value: Any) -> str | None:
    if isinstance(value, list):
        value = next((item for item in value if isinstance(item, str) and item.strip()), None)
    if not isinstance(value, str):
        return None
    cleaned = re.sub(r"<[^>]{0,200}>", "", value)  # Crossref titles may carry JATS/MathML tags
    cleaned = " ".join(cleaned.split())
    return cleaned[:MAX_FIELD_CHARS] or None


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _year(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int) and 1500 <= value <= 2100:
        return value
    if isinstance(value, str):
        match = _YEAR.match(value.strip())
        return int(match.group(1)) if match else None
    return None


def _date_parts(value: Any) -> tuple[int | None, str | None]:
    """(year, ISO date) of a Crossref date object {"date-parts": [[2020, 2, 3]]}."""
    parts = _list(_dict(value).get("date-parts"))
    first = _list(parts[0]) if parts else []
    if not first:
        return None, None
    year = _year(first[0])
    if year is None:
        return None, None
    numbers = [n for n in first[1:3] if isinstance(n, int) and not isinstance(n, bool)]
    iso = "-".join([f"{year:04d}", *(f"{n:02d}" for n in numbers)])
    return year, iso


def _doi(value: Any) -> str | None:
    text = _text(value)
    return normalise_doi(text) if text and "10." in text else None


# --- Crossref ----------------------------------------------------------------------------------
def _crossref_author(author: Any) -> str | None:
    author = _dict(author)
    name = _text(author.get("name"))  # organisations
    if name:
        return name
    family, given = _text(author.get("family")), _text(author.get("given"))
    if family and given:
        return f"{given} {family}"
    return family or given


def _crossref_notices(updates: Any, source_default: str) -> list[Notice]:
    notices = []
    for update in _list(updates)[:MAX_NOTICES]:
        update = _dict(update)
        raw_type = (_text(update.get("type")) or "").upper().replace("-", "_").replace(" ", "_")
        kind = CROSSREF_UPDATE_KINDS.get(raw_type)
        if kind is None:
            continue
        label = _text(update.get("label")) or ""
        if kind == RETRACTION and _REPLACED.search(label):
            kind = REPLACEMENT
        _, date = _date_parts(update.get("updated"))
        notices.append(
            Notice(
                kind=kind,
                label=label or raw_type.replace("_", " ").capitalize(),
                doi=_doi(update.get("DOI")),
                date=date,
                source=_text(update.get("source")) or source_default,
            )
        )
    return notices


def _crossref_versions(relation: Any) -> list[Version]:
    versions = []
    relation = _dict(relation)
    for name, published in (
        ("is-preprint-of", True),
        ("has-preprint", False),
        ("has-version", True),
        ("is-version-of", True),
    ):
        for item in _list(relation.get(name))[:MAX_NOTICES]:
            item = _dict(item)
            if (_text(item.get("id-type")) or "").lower() == "doi":
                versions.append(Version(doi=_doi(item.get("id")), published=published))
    return versions


def from_crossref(item: Any, index: str) -> IndexRecord | None:
    """A Crossref `/works` item (`message` of a single work, or one of `message.items`)."""
    item = _dict(item)
    title = _text(item.get("title"))
    if not title:
        return None
    year = None
    for field in ("issued", "published", "published-print", "published-online", "created"):
        year, _ = _date_parts(item.get(field))
        if year:
            break
    subtitle = _text(item.get("subtitle"))
    if subtitle and subtitle.lower() not in title.lower():
        title = f"{title}: {subtitle}"
    doi = _doi(item.get("DOI"))
    authors = [a for a in map(_crossref_author, _list(item.get("author"))[:MAX_AUTHORS]) if a]
    if not authors:
        authors = [a for a in map(_crossref_author, _list(item.get("editor"))[:MAX_AUTHORS]) if a]
    isbns = [i for i in (_text(v) for v in _list(item.get("ISBN"))[:10]) if i]
    return IndexRecord(
        index=index,
        title=title,
        authors=authors,
        year=year,
        venue=_text(item.get("container-title")) or _text(item.get("publisher")),
        doi=doi,
        isbns=[re.sub(r"[^0-9Xx]", "", i).upper() for i in isbns],
        work_type=_text(item.get("type")) or "",
        url=f"https://doi.org/{doi}" if doi else _text(item.get("URL")),
        notices=_crossref_notices(item.get("updated-by"), "publisher"),
        versions=_crossref_versions(item.get("relation")),
        is_notice=bool(_list(item.get("update-to"))),
    )


# --- OpenAlex ----------------------------------------------------------------------------------
def _openalex_versions(work: dict[str, Any], own_doi: str | None) -> list[Version]:
    versions = []
    for location in _list(work.get("locations"))[:MAX_NOTICES]:
        location = _dict(location)
        source = _dict(location.get("source"))
        venue = _text(source.get("display_name"))
        landing = _text(location.get("landing_page_url")) or ""
        published = _text(location.get("version")) == "publishedVersion" and not any(
            server in (venue or "").lower() or server in landing.lower()
            for server in PREPRINT_SERVERS
        )
        doi = _doi(landing) if "doi.org/" in landing else None
        if doi == own_doi:
            doi = None
        versions.append(Version(doi=doi, venue=venue, published=published))
    return versions


def _arxiv_of(work: dict[str, Any]) -> str | None:
    doi = _doi(work.get("doi")) or ""
    if doi.startswith(ARXIV_DOI_PREFIX):
        return doi.removeprefix(ARXIV_DOI_PREFIX)
    for location in _list(work.get("locations"))[:MAX_NOTICES]:
        landing = _text(_dict(location).get("landing_page_url")) or ""
        match = re.search(r"arxiv\.org/abs/([\w.\-/]+?)(?:v\d+)?$", landing)
        if match:
            return match.group(1).lower()
    return None


def from_openalex(work: Any, index: str) -> IndexRecord | None:
    """An OpenAlex work object (a single work, or one of `results`)."""
    work = _dict(work)
    title = _text(work.get("title")) or _text(work.get("display_name"))
    if not title:
        return None
    ids = _dict(work.get("ids"))
    doi = _doi(work.get("doi")) or _doi(ids.get("doi"))
    pmid_text = _text(ids.get("pmid")) or ""
    pmid_match = _PMID_URL.search(pmid_text)
    authors = []
    for authorship in _list(work.get("authorships"))[:MAX_AUTHORS]:
        authorship = _dict(authorship)
        name = _text(_dict(authorship.get("author")).get("display_name")) or _text(
            authorship.get("raw_author_name")
        )
        if name:
            authors.append(name)
    primary = _dict(work.get("primary_location"))
    venue = _text(_dict(primary.get("source")).get("display_name"))
    work_id = _text(work.get("id"))
    return IndexRecord(
        index=index,
        title=title,
        authors=authors,
        year=_year(work.get("publication_year")) or _year(work.get("publication_date")),
        venue=venue,
        doi=doi,
        pmid=pmid_match.group(1) if pmid_match else None,
        arxiv_id=_arxiv_of(work),
        work_type=_text(work.get("type")) or "",
        url=f"https://doi.org/{doi}" if doi else work_id,
        retracted=work.get("is_retracted") is True,
        versions=_openalex_versions(work, doi),
    )


RECORDS_DECODER: Final = msgspec.json.Decoder(list[IndexRecord])
RECORDS_ENCODER: Final = msgspec.json.Encoder()
