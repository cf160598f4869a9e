"""What a generated document contains: plain data, no rendering concerns.

The specs are msgspec Structs so a benchmark or a test can build them from JSON as easily as from
code, and so two equal specs always render to the same bytes (see `render.py`).
"""

from __future__ import annotations

import msgspec


class Section(msgspec.Struct, frozen=True):
    """A headed block of body text."""

    heading: str
    """Printed as is (number it yourself, e.g. "2 Related work"); empty for an unheaded block."""
    paragraphs: tuple[str, ...] = ()
    """Plain text paragraphs; no markup is interpreted, so any character is safe."""


class Reference(msgspec.Struct, frozen=True):
    """One entry of the reference list."""

    text: str
    """The entry as printed, without its label ("Smith, J. (2020). Title. Journal 3, 1-9.")."""
    label: str | None = None
    """Numeric label printed as "[label]" before the entry; None for an author–year list, which is
    printed with a hanging indent instead."""


class DocumentSpec(msgspec.Struct, frozen=True):
    """A simple academic document: front matter, body sections and a reference list."""

    title: str
    authors: tuple[str, ...] = ()
    year: int | None = None
    doi: str | None = None
    venue: str | None = None
    """Journal, conference or "Master's thesis, University of ..."; printed under the authors."""
    abstract: str | None = None
    sections: tuple[Section, ...] = ()
    references: tuple[Reference, ...] = ()
    running_header: str | None = None
    """Text at the top of every page after the first; defaults to "<first author> et al. — <title>"
    shortened, as journals do, so parsers have to cope with repeated page furniture."""
    keywords: tuple[str, ...] = ()
    """Written to the PDF metadata (Keywords) and printed after the abstract."""
