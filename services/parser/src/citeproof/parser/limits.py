"""Size caps on a document's text, checked before it is cut into passages or embedded.

A PDF has pages, and `max_pages` caps them while it is read. Text, Markdown, HTML and DOCX
have none, so their text is counted as pages of `page_equivalent_chars` against the same cap;
every format is also held to `max_chars_per_document`.
"""

from __future__ import annotations

from citeproof.parser.errors import TOO_LARGE, TOO_MANY_PAGES, ParseFailure
from citeproof.parser.settings import ParserSettings

# Whitespace the text partitioners drop or collapse; what is left is text the document keeps.
_WHITESPACE = (" ", "\n", "\r", "\t")


def page_equivalents(chars: int, settings: ParserSettings) -> int:
    return -(-chars // settings.page_equivalent_chars)


def check_text_size(chars: int, paged: bool, settings: ParserSettings) -> None:
    """Refuse a text of `chars` characters that is over the caps (`paged`: a PDF)."""
    if not paged and page_equivalents(chars, settings) > settings.max_pages:
        raise ParseFailure(
            TOO_MANY_PAGES,
            f"The document holds {chars:,} characters of text, about "
            f"{page_equivalents(chars, settings):,} pages of {settings.page_equivalent_chars:,} "
            f"characters; citeproof accepts at most {settings.max_pages} pages. Upload the "
            "part that is cited.",
        )
    if chars > settings.max_chars_per_document:
        raise ParseFailure(
            TOO_LARGE,
            f"The document holds {chars:,} characters of text; citeproof accepts at most "
            f"{settings.max_chars_per_document:,} per document. Upload the part that is cited.",
        )


def check_raw_text_size(text: str, settings: ParserSettings) -> None:
    """Before partitioning plain text or Markdown (seconds per megabyte): its characters other
    than whitespace are all kept, so a file whose count is over the caps would be refused
    after partitioning anyway."""
    kept = len(text) - sum(text.count(space) for space in _WHITESPACE)
    check_text_size(kept, False, settings)
