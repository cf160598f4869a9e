"""BibTeX/BibLaTeX exports (Zotero, Better BibTeX, Mendeley, JabRef, EndNote) via bibtexparser v2.

bibtexparser reads block by block and keeps going after a broken entry (a `ParsingFailedBlock`
with its line), which is exactly the behaviour wanted: a malformed entry is reported by line and
every other entry is still read. LaTeX in titles and names is decoded with pylatexenc; the `file`
field is never decoded (its backslashes are escapes of the export format, not LaTeX).
"""

from __future__ import annotations

import re

from bibtexparser import middlewares
from bibtexparser.entrypoint import parse_string
from bibtexparser.model import (
    DuplicateBlockKeyBlock,
    DuplicateFieldKeyBlock,
    Entry,
    ParsingFailedBlock,
)
from pylatexenc.latex2text import LatexNodes2Text

from citeproof.library.attachments import parse_file_field
from citeproof.library.fields import (
    clean_arxiv,
    clean_doi,
    clean_isbn,
    clean_pmid,
    parse_year,
    surname,
)
from citeproof.library.model import BIBTEX, Library, LibraryEntry, LibraryProblem

_LATEX = LatexNodes2Text(math_mode="text", strict_latex_spaces=True)
_WHITESPACE = re.compile(r"\s+")
# Fields naming attached files, in the order exporters use them.
FILE_FIELDS = ("file", "pdf")
VENUE_FIELDS = ("journaltitle", "journal", "booktitle", "publisher", "school", "institution")
NAME_FIELDS = ("author", "editor")


def latex_to_text(value: str) -> str:
    try:
        decoded = _LATEX.latex_to_text(value)
    except Exception:  # pylatexenc raises assorted errors on unbalanced input; keep the raw text
        decoded = value.replace("{", "").replace("}", "")
    return _WHITESPACE.sub(" ", decoded).strip()


def _person_surname(name: str) -> str:
    name = name.strip()
    if name.startswith("{") and name.endswith("}") and name.count("{") == 1:
        return latex_to_text(name[1:-1])  # "{World Health Organization}": a corporate author
    return surname(latex_to_text(name))


def _field(entry: Entry, name: str) -> str | None:
    field = entry.fields_dict.get(name)
    if field is None or field.value is None:
        return None
    value = field.value
    return value if isinstance(value, str) else None


def _names(entry: Entry) -> list[str]:
    for name in NAME_FIELDS:
        field = entry.fields_dict.get(name)
        if field is not None and isinstance(field.value, list) and field.value:
            return [s for s in (_person_surname(person) for person in field.value) if s]
    return []


def _entry(entry: Entry) -> LibraryEntry:
    attachments = []
    for name in FILE_FIELDS:
        raw = _field(entry, name)
        if raw:
            attachments.extend(parse_file_field(raw))
    title = _field(entry, "title")
    venue = next((v for v in (_field(entry, f) for f in VENUE_FIELDS) if v), None)
    doi = clean_doi(_field(entry, "doi")) or clean_doi(_field(entry, "url"))
    # Exported in any case ("archivePrefix", "ArchivePrefix", "eprinttype").
    lowered = {name.lower(): name for name in entry.fields_dict}
    eprint_type = (
        _field(entry, lowered.get("archiveprefix", ""))
        or _field(entry, lowered.get("eprinttype", ""))
        or ""
    ).lower()
    arxiv = clean_arxiv(_field(entry, lowered.get("arxivid", ""))) or (
        clean_arxiv(_field(entry, lowered.get("eprint", ""))) if eprint_type == "arxiv" else None
    )
    return LibraryEntry(
        key=entry.key,
        entry_type=entry.entry_type.lower(),
        title=latex_to_text(title) if title else None,
        authors=_names(entry),
        year=parse_year(_field(entry, "year") or _field(entry, "date")),
        doi=doi,
        venue=latex_to_text(venue) if venue else None,
        pmid=clean_pmid(_field(entry, lowered.get("pmid", ""))),
        isbn=clean_isbn(_field(entry, lowered.get("isbn", ""))),
        arxiv_id=arxiv,
        attachments=attachments,
        line=entry.start_line + 1 if entry.start_line is not None else None,
    )


def _problem(block: ParsingFailedBlock) -> LibraryProblem:
    line = block.start_line + 1 if block.start_line is not None else None
    first = (block.raw or "").strip().splitlines()[0][:80] if (block.raw or "").strip() else ""
    if isinstance(block, DuplicateBlockKeyBlock):
        message = f"the key {block.key!r} is used twice; the first entry with it is used"
    elif isinstance(block, DuplicateFieldKeyBlock):
        message = f"an entry names the same field twice ({', '.join(sorted(block.duplicate_keys))})"
    else:
        message = f"this entry could not be read (unbalanced braces or a missing comma?): {first}"
    return LibraryProblem(line=line, message=message)


def parse_bibtex(text: str) -> Library:
    library = parse_string(text, append_middleware=[middlewares.SeparateCoAuthors()])
    problems = [_problem(block) for block in library.failed_blocks]
    entries: list[LibraryEntry] = []
    for entry in library.entries:
        try:
            entries.append(_entry(entry))
        except Exception as exc:  # one odd entry must not cost the rest of the library
            problems.append(
                LibraryProblem(
                    line=entry.start_line + 1 if entry.start_line is not None else None,
                    message=f"entry {entry.key!r}: {exc}",
                )
            )
    problems.sort(key=lambda p: p.line or 0)
    return Library(format=BIBTEX, entries=entries, problems=problems)
