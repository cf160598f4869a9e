"""Structure-following chunks of at most N embedding tokens, with page and character spans.

A chunk is a run of whole sentences inside one section (a heading starts a new chunk and names
it). Sentences come from `citeproof.text.sentences.split_sentences`, so "et al.", "Fig. 3" and
decimals never split a chunk mid-sentence; only a single sentence longer than the budget (a table
row dump, a formula) is cut, at word boundaries. Each chunk's text is exactly
`text[char_start:char_end]` of the stored document text.
"""

from __future__ import annotations

import re
from bisect import bisect_right

import msgspec

from citeproof.contracts.chunks import BODY
from citeproof.contracts.chunks import FRONT_MATTER as FRONT_MATTER_ROLE
from citeproof.parser.blocks import FRONT_MATTER, HEADING, Block
from citeproof.parser.document import DocumentText, page_at
from citeproof.parser.wordpieces import SPECIAL_TOKENS, TokenCounter
from citeproof.text.sentences import split_sentences

_WORD = re.compile(r"\S+")


class Chunk(msgspec.Struct, frozen=True):
    ordinal: int
    page_start: int
    page_end: int
    char_start: int
    char_end: int
    heading: str | None
    text: str
    tokens: int
    # `citeproof.contracts.chunks`: only body chunks are evidence.
    role: str = BODY


class _Unit(msgspec.Struct):
    start: int
    end: int
    tokens: int
    block: int


class _Draft(msgspec.Struct):
    start: int
    end: int
    tokens: int
    section: int
    heading: str | None
    heading_only: bool
    role: str = BODY


def _split_long(text: str, start: int, end: int, budget: int, counter: TokenCounter) -> list:
    """Cut one over-long sentence into word windows of at most `budget` tokens."""
    words = [(m.start(), m.end()) for m in _WORD.finditer(text, start, end)]
    counts = counter.count([text[s:e] for s, e in words])
    pieces: list[tuple[int, int, int]] = []
    piece_start, piece_end, piece_tokens = None, None, 0
    for (word_start, word_end), tokens in zip(words, counts, strict=True):
        tokens = min(tokens, budget)  # a single absurd "word" is embedded truncated
        if piece_start is not None and piece_tokens + tokens > budget:
            pieces.append((piece_start, piece_end, piece_tokens))
            piece_start, piece_tokens = None, 0
        if piece_start is None:
            piece_start = word_start
        piece_end = word_end
        piece_tokens += tokens
    if piece_start is not None:
        pieces.append((piece_start, piece_end, piece_tokens))
    return pieces


def _units(doc: DocumentText, counter: TokenCounter, budget: int) -> list[_Unit]:
    sentences = split_sentences(doc.text)
    counts = counter.count([doc.text[s:e] for s, e in sentences])
    block_starts = [start for start, _ in doc.spans]
    units: list[_Unit] = []
    for (start, end), tokens in zip(sentences, counts, strict=True):
        block = max(0, bisect_right(block_starts, start) - 1)
        if tokens <= budget:
            units.append(_Unit(start, end, tokens, block))
            continue
        for piece_start, piece_end, piece_tokens in _split_long(
            doc.text, start, end, budget, counter
        ):
            units.append(_Unit(piece_start, piece_end, piece_tokens, block))
    return units


def chunk_document(
    doc: DocumentText,
    blocks: list[Block],
    counter: TokenCounter,
    *,
    max_tokens: int,
    min_tokens: int,
) -> list[Chunk]:
    budget = max_tokens - SPECIAL_TOKENS
    drafts: list[_Draft] = []
    current: _Draft | None = None
    section = 0
    heading: str | None = None
    last_block = -1
    role = BODY
    for unit in _units(doc, counter, budget):
        is_heading = blocks[unit.block].kind == HEADING if blocks else False
        new_block = unit.block != last_block
        last_block = unit.block
        unit_role = (
            FRONT_MATTER_ROLE if blocks and blocks[unit.block].kind == FRONT_MATTER else BODY
        )
        if unit_role != role:
            # Front matter and body never share a chunk (nor a section, so never merged):
            # the retriever drops front-matter chunks whole.
            role = unit_role
            section += 1
            current = None
        if is_heading and new_block:
            if current is not None and current.heading_only:
                # Consecutive headings ("3 Method" then "3.1 Data") open one chunk together.
                heading = blocks[unit.block].text
                current.heading = heading
            else:
                section += 1
                heading = blocks[unit.block].text
                current = None
        if current is not None and current.tokens + unit.tokens > budget:
            current = None
        if current is None:
            current = _Draft(unit.start, unit.end, 0, section, heading, is_heading, role)
            drafts.append(current)
        current.end = unit.end
        current.tokens += unit.tokens
        current.heading_only = current.heading_only and is_heading
    merged = _merge_small(drafts, budget, min_tokens)
    return [
        Chunk(
            ordinal=index,
            page_start=page_at(doc.page_starts, draft.start),
            page_end=page_at(doc.page_starts, max(draft.start, draft.end - 1)),
            char_start=draft.start,
            char_end=draft.end,
            heading=draft.heading,
            text=doc.text[draft.start : draft.end],
            tokens=draft.tokens,
            role=draft.role,
        )
        for index, draft in enumerate(merged)
    ]


def _merge_small(drafts: list[_Draft], budget: int, min_tokens: int) -> list[_Draft]:
    """Fold chunks below `min_tokens` into a neighbour of the same section when it fits."""
    out: list[_Draft] = []
    for draft in drafts:
        previous = out[-1] if out else None
        if (
            previous is not None
            and previous.section == draft.section
            and (previous.tokens < min_tokens or draft.tokens < min_tokens)
            and previous.tokens + draft.tokens <= budget
        ):
            previous.end = draft.end
            previous.tokens += draft.tokens
            continue
        out.append(draft)
    return out
