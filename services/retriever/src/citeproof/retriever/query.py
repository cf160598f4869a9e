"""The retrieval query of a citation: its claim sentence with every citation marker removed.

Markers are noise to both retrievers ("[12]" matches any page with a 12 on it; "(Smith et al.,
2020)" pulls in the source's own author list and reference section). The thesis analysis already
knows where each marker of the sentence is, so those spans are cut first; a pattern pass then
removes whatever marker-like text the analysis did not link (an unresolved "[47]", a "(ibid.)").
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from citeproof.text.normalize import collapse_whitespace

_NUMERIC_MARKER = re.compile(r"\[\s*\d+[a-z]?(?:\s*[-–—,;]\s*\d+[a-z]?)*\s*\]")
# A parenthesis that holds a year (optionally with pages/suffixes), e.g. "(Smith et al., 2020a;
# Jones 2019, p. 4)" or the "(2020)" of a narrative "Smith (2020)".
_YEAR_PAREN = re.compile(r"\((?=[^()]*\b(?:1[89]|20)\d{2}[a-z]?\b)(?:[^()]|\([^()]*\))*\)")
_IBID = re.compile(r"\((?:ibid|op\.\s*cit|loc\.\s*cit)\.?[^()]*\)", re.IGNORECASE)
_NARRATIVE_ET_AL = re.compile(r"\b[A-Z][\w'’-]+\s+et\s+al\.?\s*(?=[,;:)]|$|\s)")
_WORD = re.compile(r"\w+", re.UNICODE)
_EMPTY_PUNCT = re.compile(r"\s+([,.;:!?])")
# Separators orphaned by a removed marker: "streets [1], [2]." -> "streets , ." -> "streets."
_ORPHAN_SEPARATOR = re.compile(r"[,;]+(?=[,;.:!?]|$)")


def strip_spans(text: str, spans: Iterable[tuple[int, int]]) -> str:
    """Remove `spans` (offsets into `text`) from `text`; overlapping spans are merged."""
    pieces: list[str] = []
    cursor = 0
    for start, end in sorted((max(0, s), min(len(text), e)) for s, e in spans):
        if end <= cursor:
            continue
        pieces.append(text[cursor : max(cursor, start)])
        cursor = max(cursor, end)
    pieces.append(text[cursor:])
    return " ".join(pieces)


def strip_markers(claim: str, marker_spans: Iterable[tuple[int, int]] = ()) -> str:
    """The claim without citation markers: known spans first, then marker-shaped text."""
    text = strip_spans(claim, marker_spans)
    for pattern in (_NUMERIC_MARKER, _YEAR_PAREN, _IBID, _NARRATIVE_ET_AL):
        text = pattern.sub(" ", text)
    text = _EMPTY_PUNCT.sub(r"\1", collapse_whitespace(text))
    text = _ORPHAN_SEPARATOR.sub("", text)
    return text.strip(" ,;:")


def word_count(text: str) -> int:
    return len(_WORD.findall(text))


def build_query(claim: str, context: str | None, *, use_context: bool) -> str:
    """The text both retrievers search with (already marker-free inputs)."""
    if use_context and context:
        return f"{context} {claim}"
    return claim
