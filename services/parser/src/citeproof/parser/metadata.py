"""Title, authors, year and DOI of a parsed document, for linking references to sources.

Sources of evidence, most trusted first: the PDF's own metadata dictionary (when it looks like a
real title, not "Microsoft Word - draft3.docx"), the first page's layout (the largest type near
the top is the title; the lines just below it are the authors), and patterns in the first page's
text (DOI, arXiv identifier, copyright or proceedings year).
"""

from __future__ import annotations

import re

import msgspec

from citeproof.parser.blocks import HEADING, Block, FileFacts

DOI_PATTERN = re.compile(r"\b(10\.\d{4,9}/[^\s\"<>{}|\\^`]+)", re.IGNORECASE)
_DOI_TRAILING = ".,;:)]}'\""
_ARXIV_ID = re.compile(r"arXiv:\s?(\d{2})(\d{2})\.\d{4,5}(?:v\d+)?", re.IGNORECASE)
_CONTEXT_YEAR = re.compile(
    r"(?:©|\(c\)|\bc\b|copyright|proceedings|conference|journal|published|accepted|received|"
    r"workshop|symposium|transactions|preprint)[^\n]{0,80}?\b((?:19|20)\d{2})\b",
    re.IGNORECASE,
)
# The article's own citation line under the title: "Urban Climate Letters 14(2), 101–118, 2021",
# "Reports 9, 377–392, 2020" or "... 14 (2021) 101–118". Checked before the looser context
# words, which also catch years in prose ("received in July 2016").
_CITATION_LINE_YEAR = re.compile(
    r"\b\d{1,4}(?:\s?\(\d{1,3}\),?|,)\s+(?:pp\.\s*)?\d{1,6}\s*[-–]\s*\d{1,6},?\s+((?:19|20)\d{2})\b|"
    r"\b\d{1,4}\s+\(((?:19|20)\d{2})\)\s+\d{1,6}\s*[-–]\s*\d{1,6}\b"
)
_PDF_DATE_YEAR = re.compile(r"^D?:?((?:19|20)\d{2})")
_JUNK_TITLE = re.compile(
    r"(?:^microsoft (?:word|powerpoint)|\.(?:pdf|docx?|tex|dvi|ps|indd)$|^untitled|^document\d*$|"
    r"^slide \d|^title$|^paper$|^\W*$)",
    re.IGNORECASE,
)
_NOT_A_NAME = re.compile(
    r"(?:@|\d|anonymous|submission|admin|universit|institut|department|school|college|"
    r"laborator|\blab\b|research|inc\b|corporation|abstract|http|www\.|\.com|\.org|\.edu)",
    re.IGNORECASE,
)
# Leading whitespace is taken only from where it starts ((?<!\s)), so a long run of it is not
# rescanned from every position (quadratic on hostile input); the splits are unchanged.
_AUTHOR_SPLIT = re.compile(r"(?:(?<!\s)\s+)?(?:;|,|\band\b|&|\u2217|\*|†|‡|§)\s*")
_NAME = re.compile(r"^[A-ZÀ-ÖØ-Þ][\w'’\-.]*(?:\s+[A-Za-zÀ-ÿ][\w'’\-.]*){1,4}$")
MAX_TITLE_CHARS = 300
MAX_AUTHORS = 40
# Only the top of page 1 is searched for title/authors (a figure title later on can be larger).
_FIRST_PAGE_LINES = 40
_AUTHOR_BLOCK_LINES = 30
_ABSTRACT = re.compile(r"(?i)(?:abstract|introduction|1\.?\s+introduction)\b")
FIRST_PAGE_TEXT_CHARS = 5000


class DocumentMeta(msgspec.Struct, frozen=True):
    title: str | None = None
    authors: list[str] = []
    year: int | None = None
    doi: str | None = None


def find_doi(text: str) -> str | None:
    match = DOI_PATTERN.search(text)
    if match is None:
        return None
    return match.group(1).rstrip(_DOI_TRAILING).lower()


def _plausible_title(value: str | None) -> str | None:
    if not value:
        return None
    value = " ".join(value.split())
    if len(value) < 8 or len(value.split()) < 2 or _JUNK_TITLE.search(value):
        return None
    return value[:MAX_TITLE_CHARS]


def split_authors(text: str) -> list[str]:
    names: list[str] = []
    for part in _AUTHOR_SPLIT.split(text):
        part = " ".join(part.split()).strip(" .")
        if part and not _NOT_A_NAME.search(part) and _NAME.match(part) and part not in names:
            names.append(part)
    return names[:MAX_AUTHORS]


def _layout_title_and_authors(lines: list[tuple[str, float]]) -> tuple[str | None, list[str]]:
    top = [(text, size) for text, size in lines[:_FIRST_PAGE_LINES] if text]
    candidates = [
        size for text, size in top if len(text.split()) >= 2 and re.search(r"[A-Za-z]{3}", text)
    ]
    if not candidates:
        return None, []
    largest = max(candidates)
    indices = [i for i, (_, size) in enumerate(top) if abs(size - largest) < 0.5]
    first = indices[0]
    last = first
    # The title may wrap onto following lines of the same size.
    while last + 1 < len(top) and abs(top[last + 1][1] - largest) < 0.5:
        last += 1
    title = _plausible_title(" ".join(text for text, _ in top[first : last + 1]))
    return title, _layout_authors(top[last + 1 :], largest)


def _layout_authors(lines: list[tuple[str, float]], title_size: float) -> list[str]:
    """Names in the lines below the title. When the names have a type size of their own (ACM:
    each author in 12 pt above 10 pt affiliations) every line of that size counts; otherwise the
    author block is the run of lines that parse as names."""
    if not lines:
        return []
    sizes = [size for _, size in lines]
    body_size = max(set(sizes), key=sizes.count)
    author_size = lines[0][1]
    distinct = author_size > body_size + 0.5
    authors: list[str] = []
    for text, size in lines[:_AUTHOR_BLOCK_LINES]:
        if size >= title_size - 0.5 or _ABSTRACT.match(text):
            break
        if distinct and abs(size - author_size) >= 0.5:
            continue
        found = split_authors(text)
        if not found and not distinct and authors:
            break  # affiliations start; the author block is over
        authors.extend(name for name in found if name not in authors)
    return authors[:MAX_AUTHORS]


def _year(first_page: str, info: dict[str, str]) -> int | None:
    arxiv = _ARXIV_ID.search(first_page)
    if arxiv:
        return 2000 + int(arxiv.group(1))
    citation_line = _CITATION_LINE_YEAR.search(first_page)
    if citation_line:
        return int(citation_line.group(1) or citation_line.group(2))
    context = _CONTEXT_YEAR.search(first_page)
    if context:
        return int(context.group(1))
    for key in ("CreationDate", "ModDate"):
        match = _PDF_DATE_YEAR.match(info.get(key, ""))
        if match:
            return int(match.group(1))
    return None


def file_title_and_authors(facts: FileFacts | None) -> tuple[str | None, list[str]]:
    """The title and authors the file itself states: its metadata, else its first page's
    layout."""
    info = facts.info if facts is not None else {}
    title = _plausible_title(info.get("Title"))
    authors = split_authors(info.get("Author", "")) if info.get("Author") else []
    if facts is not None and (title is None or not authors):
        layout_title, layout_authors = _layout_title_and_authors(facts.first_page_lines)
        title = title or layout_title
        authors = authors or layout_authors
    return title, authors


def extract_metadata(
    facts: FileFacts | None, blocks: list[Block], first_page_text: str
) -> DocumentMeta:
    info = facts.info if facts is not None else {}
    title, authors = file_title_and_authors(facts)
    if title is None:
        headings = [block.text for block in blocks[:10] if block.kind == HEADING]
        title = _plausible_title(headings[0]) if headings else None
    doi = find_doi(" ".join(info.get(k, "") for k in ("doi", "DOI", "Subject", "Keywords")))
    doi = doi or find_doi(first_page_text)
    return DocumentMeta(title=title, authors=authors, year=_year(first_page_text, info), doi=doi)
