"""Front matter and running headers: the lines that say what a document is, not what it found.

A paper's first page opens with its title, its author list, affiliations, the venue line and the
DOI; later pages may repeat "<authors> — <title>…" at the top. Those words are exactly the words a
citing claim repeats, so a retriever ranks them first for any claim about the paper, and a judge
that reads "Coronavirus Disease 2019 in Children — United States … Okafor, Andersen, Haddad" as
evidence calls the claim supported on the strength of the title alone.

The parser knows the title and authors (`metadata`), so the rules here recognise lines by what
they contain, not by typography: a title line is a piece of the title, an author line names the
authors, an affiliation or publication line has the vocabulary of one. Only the leading run of
such lines on the first page is front matter; the first line that is none of these (a heading,
the abstract's prose) ends it, and a run that holds neither the title nor an author line is not
front matter at all (a page that opens with body text loses nothing).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

import msgspec

from citeproof.parser.blocks import FRONT_MATTER, HEADING, PARAGRAPH, Block
from citeproof.parser.layout import EDGE_LINES, is_heading_line
from citeproof.parser.metadata import DOI_PATTERN, split_authors
from citeproof.text.names import surname_of
from citeproof.text.normalize import comparison_key

# Lines at the top of page 1 examined: a long author list with affiliations fits in this.
MAX_FRONT_MATTER_LINES: Final = 40
# A title piece must be this long to count (a one-word line that happens to be in the title,
# "Results", is a heading, not the title).
MIN_TITLE_PIECE_WORDS: Final = 2
# A running header names this many leading words of the title at least.
MIN_HEADER_TITLE_WORDS: Final = 3
# A line of unknown kind this short (a journal's "Research Article" kicker, a wrapped author's
# lone first name) may sit inside the run; it never ends the run nor starts one.
MAX_FILLER_WORDS: Final = 4
# An affiliation or publication line is a line, not a paragraph.
MAX_LINE_WORDS: Final = 30

_AFFILIATION = re.compile(
    r"(?:universit|institut|department|dept\.|school of|college|hospital|laborator|faculty|"
    r"\bcent(?:re|er) for\b|clinic|ministry|\bgmbh\b|\binc\b|@|e-?mail|correspond|orcid)",
    re.IGNORECASE,
)
_PUBLICATION = re.compile(
    r"(?:\bdoi\b|arxiv|\bissn\b|©|\(c\)\s*\d|copyright|open access|received\b|accepted\b|"
    r"published\b|\bvol\.|\bvolume\b|https?://|www\.|proceedings|\bpages?\s+\d|"
    # a dateline or imprint: "New Orleans, Louisiana, June 1 - 6, 2018."
    r"^(?=(?:\S+\s+){0,11}\S+$).*\b(?:19|20)\d{2}\b|"
    # a citation line "Journal 14(2), 101–118, 2021", "Reports 9, 377–392" or
    # "Journal 12 (2020) 45–52"
    r"\b\d{1,4}(?:\s?\(\d{1,4}\),?|,)\s+(?:pp\.\s*)?\d{1,6}\s*[-–]\s*\d{1,6}|"
    r"\b\d{1,4}\s+\((?:19|20)\d{2}\)\s+\d{1,6}\s*[-–]\s*\d{1,6})",
    re.IGNORECASE,
)
# (?<![a-z]): a match starts where the letters start, so a long line is scanned once, not
# once per letter (quadratic on hostile input); what matches is unchanged.
_SENTENCE_END = re.compile(r"(?<![a-z])[a-z]{3,}[.!?]$")
# Separators between the author part and the title part of a running header.
# (?<!\s): a match starts where the whitespace starts (linear on long whitespace runs).
_HEADER_SEPARATOR = re.compile(r"(?<!\s)\s+[—–|·•]\s+|(?<!\s)\s+-\s+")
_ELLIPSIS = re.compile(r"(?:…|\.\.\.)\s*$")

TITLE, AUTHORS, AFFILIATION, PUBLICATION, FILLER, OTHER = (
    "title", "authors", "affiliation", "publication", "filler", "other"
)  # fmt: skip
_ANCHORS: Final = frozenset({TITLE, AUTHORS})


class FrontMatterRules:
    """The recognisers for one document, built from the title and authors the parser found."""

    def __init__(self, title: str | None, authors: Sequence[str]) -> None:
        self.title = comparison_key(title or "")
        self.names = [key for key in (comparison_key(a) for a in authors) if key]
        self.surnames = {key for key in (comparison_key(surname_of(a)) for a in authors) if key}

    def _is_title_piece(self, key: str, after_title: bool) -> bool:
        """A line of the title; a wrapped title's last line may be one word ("Pandemic?")."""
        if not self.title or not key or f" {key} " not in f" {self.title} ":
            return False
        return after_title or key == self.title or len(key.split()) >= MIN_TITLE_PIECE_WORDS

    def _is_author_line(self, line: str, key: str) -> bool:
        if any(f" {name} " in f" {key} " for name in self.names):
            return True
        found = split_authors(line)
        # Names the metadata did not list (it keeps the PDF's Author field when there is one):
        # the line must be made of names, not merely mention one.
        return len(found) >= 2 or (len(found) == 1 and comparison_key(found[0]) == key)

    def classify(self, line: str, previous: str | None = None) -> str:
        """What one line of the top of page 1 is (`previous`: the kind of the line before)."""
        stripped = line.strip()
        key = comparison_key(stripped)
        if not key:
            return FILLER
        # Before the heading test: "A Randomized Clinical Trial" is shaped like "A. Methods".
        if self._is_title_piece(key, previous == TITLE):
            return TITLE
        if is_heading_line(stripped):
            return OTHER
        words = len(stripped.split())
        if words <= MAX_LINE_WORDS and not _SENTENCE_END.search(stripped):
            if self._is_author_line(stripped, key):
                return AUTHORS
            if DOI_PATTERN.search(stripped) or _PUBLICATION.search(stripped):
                return PUBLICATION
            if _AFFILIATION.search(stripped):
                return AFFILIATION
            if words <= MAX_FILLER_WORDS:
                return FILLER
        return OTHER

    def leading_count(self, texts: Sequence[str]) -> int:
        """How many of the leading `texts` (lines, or blocks) are front matter."""
        return len(self.leading_kinds(texts))

    def leading_kinds(self, texts: Sequence[str]) -> list[str]:
        """The kind of each leading text that is front matter (empty when none is)."""
        kinds: list[str] = []
        ended_by_heading = False
        for text in texts[:MAX_FRONT_MATTER_LINES]:
            kind = self.classify(text, kinds[-1] if kinds else None)
            if kind == OTHER:
                ended_by_heading = is_heading_line(text.strip())
                break
            kinds.append(kind)
        # Trailing filler belongs to what follows (a short first line of the body), unless a
        # heading follows it ("Seattle, WA, USA" closing an affiliation before "Abstract").
        while kinds and kinds[-1] == FILLER and not ended_by_heading:
            kinds.pop()
        return kinds if _ANCHORS.intersection(kinds) else []

    def is_running_header(self, line: str) -> bool:
        """ "Okafor et al. — Coronavirus Disease 2019 in Children…", "Okafor and Haddad", or
        the title's opening words alone: a page-edge line that names this very document."""
        stripped = _ELLIPSIS.sub("", line.strip())
        if not stripped or _SENTENCE_END.search(stripped):
            return False
        parts = [comparison_key(part) for part in _HEADER_SEPARATOR.split(stripped)]
        parts = [part for part in parts if part]
        if not parts:
            return False
        for part in parts:
            if len(part.split()) >= MIN_HEADER_TITLE_WORDS and self.title.startswith(part):
                return True
        return (
            all(self._names_only(part) for part in parts)
            and len(parts) >= 1
            and bool(self.surnames)
        )

    def _names_only(self, key: str) -> bool:
        words = [w for w in key.split() if w not in {"et", "al", "and"}]
        return bool(words) and all(
            any(word in surname.split() for surname in self.surnames) for word in words
        )


def without_running_headers(pages: list[list[str]], rules: FrontMatterRules) -> list[list[str]]:
    """Drop page-edge lines of pages 2+ that name this document (a header the layout rules
    could not tell by repetition or type size, e.g. on a last page holding nothing else)."""
    cleaned = [list(pages[0])] if pages else []
    for lines in pages[1:]:
        edge = set(range(min(EDGE_LINES, len(lines)))) | set(
            range(max(0, len(lines) - EDGE_LINES), len(lines))
        )
        cleaned.append(
            [
                line
                for index, line in enumerate(lines)
                if not (index in edge and rules.is_running_header(line))
            ]
        )
    return cleaned


def front_matter_blocks(lines: Sequence[str], kinds: Sequence[str]) -> list[Block]:
    """Page 1's front-matter lines as blocks, one per run of lines of one kind (a title
    wrapped over three lines is one block); a short unclassified line joins the run before."""
    groups: list[tuple[str, list[str]]] = []
    for line, kind in zip(lines, kinds, strict=True):
        if not line.strip():
            continue
        if groups and (kind == groups[-1][0] or kind == FILLER):
            groups[-1][1].append(line.strip())
        else:
            groups.append((kind, [line.strip()]))
    return [Block(FRONT_MATTER, " ".join(group), 1) for _, group in groups]


def mark_front_matter(blocks: list[Block], rules: FrontMatterRules) -> list[Block]:
    """Blocks from a structured format (DOCX, HTML, unstructured's PDF path): the leading
    page-1 headings and paragraphs that are front matter become front-matter blocks."""
    leading: list[Block] = []
    for block in blocks:
        if block.page != 1 or block.kind not in (HEADING, PARAGRAPH):
            break
        leading.append(block)
    count = rules.leading_count([block.text for block in leading])
    return [
        msgspec.structs.replace(block, kind=FRONT_MATTER) if index < count else block
        for index, block in enumerate(blocks)
    ]
