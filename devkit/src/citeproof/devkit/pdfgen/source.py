"""A small Markdown-like text format for writing documents by hand, parsed into a `DocumentSpec`.

    ---
    title: Cooling the compact city
    authors: Jane Doe; John Roe
    year: 2024
    doi: 10.1234/abcd            (optional)
    venue: Master's thesis, ...  (optional)
    running_header: ...          (optional)
    keywords: heat; trees        (optional, ';'-separated)
    ---

    # Abstract
    One paragraph (or several, joined).

    # 1 Introduction
    Paragraphs are separated by blank lines; lines inside a paragraph are joined with spaces.

    # References
    [1] Numbered entry, one per paragraph.
    Author, A. (2020). An author–year entry has no label.

Only these constructs exist; everything else is text. `# Abstract` and `# References` are
recognised by name (case-insensitive); any other `# ` line starts a body section.
"""

from __future__ import annotations

import re

from citeproof.devkit.pdfgen.spec import DocumentSpec, Reference, Section

FRONT_MATTER_FENCE = "---"
LIST_SEPARATOR = ";"
ABSTRACT_HEADING = "abstract"
REFERENCES_HEADING = "references"

_NUMBERED_ENTRY = re.compile(r"^\[(?P<label>[^\]]+)\]\s+(?P<text>.+)$", re.DOTALL)


class SourceFormatError(ValueError):
    """The text does not follow the format; the message says where."""


def parse_source(text: str) -> DocumentSpec:
    meta, body = _split_front_matter(text)
    if "title" not in meta:
        raise SourceFormatError("front matter has no 'title:' line")
    blocks = _headed_blocks(body)
    abstract = None
    sections: list[Section] = []
    references: tuple[Reference, ...] = ()
    for heading, paragraphs in blocks:
        name = heading.strip().lower()
        if name == ABSTRACT_HEADING:
            abstract = " ".join(paragraphs)
        elif name == REFERENCES_HEADING:
            references = tuple(_reference(p) for p in paragraphs)
        else:
            sections.append(Section(heading=heading, paragraphs=tuple(paragraphs)))
    year = meta.get("year")
    return DocumentSpec(
        title=meta["title"],
        authors=_list(meta.get("authors", "")),
        year=int(year) if year else None,
        doi=meta.get("doi") or None,
        venue=meta.get("venue") or None,
        abstract=abstract,
        sections=tuple(sections),
        references=references,
        running_header=meta.get("running_header") or None,
        keywords=_list(meta.get("keywords", "")),
    )


def _list(value: str) -> tuple[str, ...]:
    return tuple(item.strip() for item in value.split(LIST_SEPARATOR) if item.strip())


def _split_front_matter(text: str) -> tuple[dict[str, str], str]:
    lines = text.strip().splitlines()
    if not lines or lines[0].strip() != FRONT_MATTER_FENCE:
        raise SourceFormatError("the text must start with a '---' front-matter block")
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == FRONT_MATTER_FENCE)
    except StopIteration:
        raise SourceFormatError("the front-matter block is not closed with '---'") from None
    meta: dict[str, str] = {}
    for number, line in enumerate(lines[1:end], start=2):
        if not line.strip():
            continue
        key, colon, value = line.partition(":")
        if not colon:
            raise SourceFormatError(f"line {number}: expected 'key: value', got {line!r}")
        meta[key.strip().lower()] = value.strip()
    return meta, "\n".join(lines[end + 1 :])


def _headed_blocks(body: str) -> list[tuple[str, list[str]]]:
    blocks: list[tuple[str, list[str]]] = []
    heading = ""
    current: list[str] = []
    paragraph: list[str] = []

    def end_paragraph() -> None:
        if paragraph:
            current.append(" ".join(paragraph))
            paragraph.clear()

    for line in body.splitlines():
        stripped = line.strip()
        if stripped.startswith("# "):
            end_paragraph()
            if heading or current:
                blocks.append((heading, list(current)))
            heading, current = stripped[2:].strip(), []
        elif not stripped:
            end_paragraph()
        else:
            paragraph.append(stripped)
    end_paragraph()
    if heading or current:
        blocks.append((heading, current))
    return blocks


def _reference(paragraph: str) -> Reference:
    match = _NUMBERED_ENTRY.match(paragraph)
    if match:
        return Reference(text=match["text"].strip(), label=match["label"].strip())
    return Reference(text=paragraph)
