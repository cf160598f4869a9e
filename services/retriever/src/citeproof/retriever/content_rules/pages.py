"""From a pinpoint's printed page numbers to the source's PDF pages, and back for display.

The number printed on a page (`SourceText.page_labels`) decides: "p. 1125" of an article whose
PDF starts at the printed p. 1123 is PDF page 3. A printed number the labels do not list is
placed through the arabic offset when one is known; when the source's printed numbers are
unknown throughout, printed and PDF page numbers are taken to be the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from citeproof.retriever.content_rules.source import SourceText
from citeproof.text.pinpoints import normalise_page_label


@dataclass(frozen=True)
class CitedPages:
    """The PDF pages a pinpoint names (1-based), and what was printed in the pinpoint."""

    pages: frozenset[int]
    printed: tuple[str, ...]
    # The pinpoint names pages, and none of them is in the source (p. 45 of pp. 1123-1135).
    outside: bool = False

    def describe(self) -> str:
        if len(self.printed) == 1:
            return f"p. {self.printed[0]}"
        return f"pp. {self.printed[0]}–{self.printed[-1]}"


def cited_pages(source: SourceText, printed: Sequence[str]) -> CitedPages | None:
    """The PDF pages of the printed labels; None when the pinpoint names no page."""
    labels = [normalise_page_label(label) for label in printed]
    wanted = tuple(label for label in labels if label is not None)
    if not wanted:
        return None
    known = {
        label: index + 1 for index, label in enumerate(source.page_labels) if label is not None
    }
    pages: set[int] = set()
    for label in wanted:
        if label in known:
            pages.add(known[label])
        elif known and label.isdigit() and source.page_label_offset is not None:
            page = int(label) - source.page_label_offset
            if 1 <= page <= source.page_count:
                pages.add(page)
        elif not known and label.isdigit() and 1 <= int(label) <= source.page_count:
            pages.add(int(label))
    return CitedPages(frozenset(pages), wanted, outside=not pages and _labels_complete(source))


def _labels_complete(source: SourceText) -> bool:
    """Every page's printed number is known (or, without any, the PDF's own count is used):
    only then is a number not among them surely outside the source."""
    return not source.page_labels or all(label is not None for label in source.page_labels)


def shown_page(source: SourceText, page: int) -> str:
    """A PDF page as a reader finds it: its printed number when known, else the PDF's."""
    label = source.printed_label(page)
    return f"p. {label}" if label else f"p. {page}"


def printed_if_different(source: SourceText, page: int) -> str | None:
    label = source.printed_label(page)
    return label if label is not None and label != str(page) else None
