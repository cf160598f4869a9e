"""Citations from explicit markers (LaTeX `\\cite` commands, Word citation fields).

The marker's position and the entries it names are known exactly; only the claim around it is
found here: the sentence of the stored text containing the marker, and the sentence before it
in the same paragraph as context. One `Citation` per (marker, entry), as for rendered theses.
"""

from __future__ import annotations

import bisect

import msgspec

from citeproof.contracts.thesis import Citation
from citeproof.parser.block_quotes import block_quote_before
from citeproof.text.pinpoints import pinpoint_pages
from citeproof.text.sentences import sentence_index_at, split_sentences


class ExplicitMarker(msgspec.Struct, frozen=True, kw_only=True):
    start: int
    end: int
    # Reference labels (citation keys) in the order the marker names them.
    labels: list[str]
    # Pinpoint per label ("p. 5"), when the marker carries one.
    pinpoints: dict[str, str] = {}
    source_file: str | None = None
    source_line: int | None = None


def _page(page_starts: list[int], offset: int) -> int | None:
    if not page_starts:
        return None
    return bisect.bisect_right(page_starts, offset)


def explicit_citations(
    text: str, page_starts: list[int], markers: list[ExplicitMarker]
) -> list[Citation]:
    spans = split_sentences(text)
    citations: list[Citation] = []
    for marker in sorted(markers, key=lambda m: m.start):
        index = sentence_index_at(spans, marker.start)
        if index is None:
            start, end = marker.start, marker.end
            context = ""
        else:
            start, end = spans[index]
            end = max(end, marker.end)
            context = ""
            if index > 0:
                previous_start, previous_end = spans[index - 1]
                if "\n\n" not in text[previous_end:start]:
                    context = text[previous_start:previous_end]
        for label in dict.fromkeys(marker.labels):
            citations.append(
                Citation(
                    ordinal=len(citations),
                    marker_text=text[marker.start : marker.end],
                    marker_start=marker.start,
                    marker_end=marker.end,
                    claim_text=text[start:end],
                    claim_start=start,
                    claim_end=end,
                    context_text=context,
                    page=_page(page_starts, marker.start),
                    pinpoint=marker.pinpoints.get(label),
                    pinpoint_pages=pinpoint_pages(marker.pinpoints.get(label)),
                    block_quote=block_quote_before(text, marker.start, marker.end),
                    reference_label=label,
                    source_file=marker.source_file,
                    source_line=marker.source_line,
                )
            )
    return citations
