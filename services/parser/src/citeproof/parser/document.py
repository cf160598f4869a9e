"""Blocks to the document's full text, with per-page start offsets and each block's span.

The full text is stored in documents.text_content; every chunk, claim and quote offset indexes
it, and `page_starts[i]` is where page i+1 begins, so any offset maps to its page.
"""

from __future__ import annotations

from bisect import bisect_right

import msgspec

from citeproof.parser.blocks import Block

BLOCK_SEPARATOR = "\n\n"
# A paragraph continued across a page break is joined with a single newline, which the sentence
# splitter does not treat as a sentence end.
CONTINUATION_SEPARATOR = "\n"


class DocumentText(msgspec.Struct, frozen=True):
    text: str
    # 0-based character offset at which each page starts; len == number of pages.
    page_starts: list[int]
    # (start, end) of each block in `text`, parallel to the block list.
    spans: list[tuple[int, int]]


def assemble(blocks: list[Block], pages: int) -> DocumentText:
    parts: list[str] = []
    spans: list[tuple[int, int]] = []
    page_starts: list[int | None] = [None] * max(pages, 1)
    offset = 0
    for index, block in enumerate(blocks):
        if index:
            separator = CONTINUATION_SEPARATOR if block.continues else BLOCK_SEPARATOR
            parts.append(separator)
            offset += len(separator)
        page_index = min(max(block.page, 1), len(page_starts)) - 1
        if page_starts[page_index] is None:
            page_starts[page_index] = offset
        parts.append(block.text)
        spans.append((offset, offset + len(block.text)))
        offset += len(block.text)
    # A page without text (a full-page figure) starts where the next text does.
    resolved: list[int] = []
    following = offset
    for start in reversed(page_starts):
        following = following if start is None else start
        resolved.append(following)
    resolved.reverse()
    # Offsets must not decrease even if a block's page number jumped backwards.
    for i in range(1, len(resolved)):
        resolved[i] = max(resolved[i], resolved[i - 1])
    return DocumentText("".join(parts), resolved, spans)


def page_at(page_starts: list[int], offset: int) -> int:
    """1-based page of the character at `offset`."""
    return max(1, bisect_right(page_starts, offset))
