"""The Retraction Watch data set, offline: read Crossref's published CSV, load it into
PostgreSQL (`retraction_notices`, migration 0020), and find the notices about a work by its DOI,
its PMID, or its normalised title - with no network at all.

Where to get the file: Crossref publishes the data set (CC0) at
https://gitlab.com/crossref/retraction-watch-data (`retraction_watch.csv`, about 60 MB; also
`https://api.labs.crossref.org/data/retractionwatch?<your e-mail>`). `citeproof retractions
import FILE` loads it; importing a newer file replaces the old one.

The columns are the published ones (header row): Record ID, Title, Subject, Institution,
Journal, Publisher, Country, Author, URLS, ArticleType, RetractionDate, RetractionDOI,
RetractionPubMedID, OriginalPaperDate, OriginalPaperDOI, OriginalPaperPubMedID,
RetractionNature, Reason, Paywalled, Notes. Dates are "M/D/YYYY H:MM"; a missing DOI is
"unavailable" and a missing PMID "0"; reasons are ";"-separated, older exports prefix each with
"+"; one paper may have several rows (an expression of concern, later a retraction).
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator, Sequence
from datetime import date, datetime
from pathlib import Path
from typing import IO, Final
from urllib.parse import unquote

import asyncpg
import msgspec

from citeproof.text.bibliographic import normalise_doi, title_key

# Kinds of notice (an editorial update to a published work), by what they mean for a citation.
# One vocabulary for the retraction data and the indexes' records.
RETRACTION: Final = "retraction"
PARTIAL_RETRACTION: Final = "partial_retraction"
WITHDRAWAL: Final = "withdrawal"
REMOVAL: Final = "removal"
EXPRESSION_OF_CONCERN: Final = "expression_of_concern"
# (Not "correction": that is the slug of rule CP505, which reports these.)
CORRECTION: Final = "erratum"
REINSTATEMENT: Final = "reinstatement"
# A retraction whose work was replaced by a corrected version under the same DOI ("retract and
# replace"): the work stands, changed - reported like a correction, never as a retraction.
REPLACEMENT: Final = "replacement"
RETRACTING_KINDS: Final = frozenset({RETRACTION, PARTIAL_RETRACTION, WITHDRAWAL, REMOVAL})

RETRACTION_WATCH: Final = "retraction-watch"
COLUMNS: Final = (
    "Record ID",
    "Title",
    "Subject",
    "Institution",
    "Journal",
    "Publisher",
    "Country",
    "Author",
    "URLS",
    "ArticleType",
    "RetractionDate",
    "RetractionDOI",
    "RetractionPubMedID",
    "OriginalPaperDate",
    "OriginalPaperDOI",
    "OriginalPaperPubMedID",
    "RetractionNature",
    "Reason",
    "Paywalled",
    "Notes",
)
# The columns an import cannot do without.
REQUIRED_COLUMNS: Final = ("Record ID", "Title", "OriginalPaperDOI", "RetractionNature")
# RetractionNature as published (compared without case) -> kind.
NATURES: Final = {
    nature.lower(): kind
    for nature, kind in {
        "Retraction": RETRACTION,
        "Expression of concern": EXPRESSION_OF_CONCERN,
        "Correction": CORRECTION,
        "Reinstatement": REINSTATEMENT,
    }.items()
}
_REPLACE = re.compile(r"retract(?:ion)?\s+and\s+replace", re.IGNORECASE)
_DATE = re.compile(r"^\s*(\d{1,2})/(\d{1,2})/(\d{4})")
MAX_FIELD_CHARS: Final = 2000

DELETE_ALL = "DELETE FROM retraction_notices"
COUNT = "SELECT count(*) FROM retraction_notices"
COPY_COLUMNS: Final = (
    "record_id",
    "nature",
    "title",
    "title_key",
    "authors",
    "journal",
    "original_doi",
    "original_pmid",
    "original_date",
    "notice_doi",
    "notice_pmid",
    "notice_date",
    "reasons",
    "urls",
)
# The notices about any of these DOIs, PMIDs or normalised titles.
SELECT_NOTICES = """
SELECT record_id, nature, title, title_key, authors, journal, original_doi, original_pmid,
       original_date, notice_doi, notice_date, reasons
FROM retraction_notices
WHERE original_doi = ANY($1::text[]) OR original_pmid = ANY($2::text[])
   OR (title_key <> '' AND title_key = ANY($3::text[]))
ORDER BY notice_date NULLS LAST, record_id
"""


class RetractionFileError(ValueError):
    """The file is not the Retraction Watch CSV (the message says what is wrong)."""


class RetractionRow(msgspec.Struct, frozen=True, kw_only=True):
    record_id: str
    nature: str  # a kind above
    title: str = ""
    authors: str = ""
    journal: str = ""
    original_doi: str | None = None
    original_pmid: str | None = None
    original_date: date | None = None
    notice_doi: str | None = None
    notice_pmid: str | None = None
    notice_date: date | None = None
    reasons: list[str] = []
    urls: str = ""

    @property
    def title_key(self) -> str:
        return title_key(self.title)

    def copy_record(self) -> tuple[object, ...]:
        return (
            self.record_id,
            self.nature,
            self.title,
            self.title_key,
            self.authors,
            self.journal,
            self.original_doi,
            self.original_pmid,
            self.original_date,
            self.notice_doi,
            self.notice_pmid,
            self.notice_date,
            self.reasons,
            self.urls,
        )


def _cell(row: dict[str, str | None], column: str) -> str:
    return (row.get(column) or "").strip()[:MAX_FIELD_CHARS]


def _doi(value: str) -> str | None:
    if not value or value.lower() in ("unavailable", "0", "n/a", "na", "none"):
        return None
    doi = normalise_doi(unquote(value))
    return doi if doi and doi.startswith("10.") else None


def _pmid(value: str) -> str | None:
    digits = value.strip()
    return digits if digits.isdigit() and digits.strip("0") else None


def _date(value: str) -> date | None:
    match = _DATE.match(value)
    if not match:
        return None
    month, day, year = (int(part) for part in match.groups())
    try:
        return date(year, month, day)
    except ValueError:
        return None


def kind_of(nature: str, reasons: Sequence[str]) -> str | None:
    kind = NATURES.get(nature.strip().lower())
    if kind in (RETRACTION, REINSTATEMENT) and any(_REPLACE.search(r) for r in reasons):
        return REPLACEMENT
    return kind


def read_rows(stream: IO[str]) -> Iterator[RetractionRow | str]:
    """Each data row as a RetractionRow, or a string saying why the row was skipped."""
    reader = csv.DictReader(stream)
    header = [name.strip() for name in (reader.fieldnames or []) if name]
    missing = [column for column in REQUIRED_COLUMNS if column not in header]
    if missing:
        raise RetractionFileError(
            f"this is not the Retraction Watch CSV: the header lacks {', '.join(missing)} "
            f"(expected the published columns {', '.join(COLUMNS)})"
        )
    for line, row in enumerate(reader, start=2):
        record_id = _cell(row, "Record ID")
        if not record_id:
            yield f"line {line}: no Record ID"
            continue
        reasons = [r.strip().lstrip("+").strip() for r in _cell(row, "Reason").split(";")]
        reasons = [r for r in reasons if r]
        nature = _cell(row, "RetractionNature")
        kind = kind_of(nature, reasons)
        if kind is None:
            yield f"line {line}: unknown RetractionNature {nature!r}"
            continue
        yield RetractionRow(
            record_id=record_id,
            nature=kind,
            title=_cell(row, "Title"),
            authors=_cell(row, "Author"),
            journal=_cell(row, "Journal"),
            original_doi=_doi(_cell(row, "OriginalPaperDOI")),
            original_pmid=_pmid(_cell(row, "OriginalPaperPubMedID")),
            original_date=_date(_cell(row, "OriginalPaperDate")),
            notice_doi=_doi(_cell(row, "RetractionDOI")),
            notice_pmid=_pmid(_cell(row, "RetractionPubMedID")),
            notice_date=_date(_cell(row, "RetractionDate")),
            reasons=reasons,
            urls=_cell(row, "URLS"),
        )


class ImportSummary(msgspec.Struct, frozen=True):
    imported: int
    skipped: int
    by_kind: dict[str, int]
    problems: list[str]


async def import_file(conn: asyncpg.Connection, path: Path) -> ImportSummary:
    """Replace the stored data set with the file's rows, in one transaction (readers see the
    old data set or the new one, never a mix)."""
    rows: dict[str, RetractionRow] = {}
    problems: list[str] = []
    skipped = 0
    with path.open(encoding="utf-8-sig", errors="replace", newline="") as stream:
        for item in read_rows(stream):
            if isinstance(item, str):
                skipped += 1
                if len(problems) < 20:
                    problems.append(item)
                continue
            rows[item.record_id] = item  # a record repeated later in the file wins
    if not rows:
        raise RetractionFileError("the file holds no usable row")
    by_kind: dict[str, int] = {}
    for row in rows.values():
        by_kind[row.nature] = by_kind.get(row.nature, 0) + 1
    async with conn.transaction():
        await conn.execute(DELETE_ALL)
        await conn.copy_records_to_table(
            "retraction_notices",
            records=[row.copy_record() for row in rows.values()],
            columns=list(COPY_COLUMNS),
        )
    return ImportSummary(len(rows), skipped, by_kind, problems)


def read_text(text: str) -> list[RetractionRow]:
    """The rows of a CSV given as text (tests and tools)."""
    return [row for row in read_rows(io.StringIO(text)) if isinstance(row, RetractionRow)]


async def notices_for(
    conn: asyncpg.Connection | asyncpg.Pool,
    dois: Sequence[str],
    pmids: Sequence[str],
    title_keys: Sequence[str],
) -> list[asyncpg.Record]:
    rows: list[asyncpg.Record] = await conn.fetch(
        SELECT_NOTICES,
        list(dict.fromkeys(dois)),
        list(dict.fromkeys(pmids)),
        [key for key in dict.fromkeys(title_keys) if key],
    )
    return rows


def parse_date(text: str) -> date | None:
    """An ISO date or a year-month prefix of one ("2010-02-06", "2010-02")."""
    for pattern in ("%Y-%m-%d", "%Y-%m", "%Y"):
        try:
            return datetime.strptime(text, pattern).date()
        except ValueError:
            continue
    return None
