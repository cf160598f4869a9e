"""The claim as checked: the citing sentence without its citation markers.

A thesis printed with "[3]" and the same thesis printed with "(Smith et al., 2020a)" or
"Smith et al. (2020a) showed that ..." make the same claim; retrieval and the judge must see the
same words for both, or the same claim and source get different verdicts. The thesis analysis
knows where every marker of a sentence is (a narrative marker's span includes the author names),
so those spans are cut and the punctuation they leave behind is tidied; everything else stays.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from citeproof.text.normalize import collapse_whitespace

# Space left before punctuation by a removed marker: "masks work [3]." -> "masks work ."
_SPACE_BEFORE_PUNCT = re.compile(r"\s+([,.;:!?])")
# Separators orphaned by removed markers: "streets [1], [2]." -> "streets , ." -> "streets."
_ORPHAN_SEPARATORS = re.compile(r"(?<=[,;:])[,;:]+|[,;:]+(?=[.!?]|$)")
# What a narrative marker's sentence opens with once the names are gone: "showed that",
# "have reported that", "recently found that"; "As ... showed," in front of the claim.
_REPORTING_VERBS = (
    r"(?:show|find|found|report|demonstrate|observe|note|conclude|argue|suggest|estimate|"
    r"confirm|establish|indicate|state|claim|propose|describe|explain|reveal|prove)(?:s|ed|n)?"
)
_REPORTING_LEAD = re.compile(
    rf"^(?:according\s+to\s*,\s*|(?:as\s+)?(?:\w+ly\s+)?(?:(?:have|has|had)\s+)?(?:\w+ly\s+)?"
    rf"{_REPORTING_VERBS}(?:\s+that\s+|\s*,\s*))",
    re.IGNORECASE,
)
# Words that may precede a narrative marker opening the claim: "As Smith (2020) showed, ...".
_BEFORE_OPENING_MARKER = re.compile(r"\s*(?:as|according\s+to)?\s*", re.IGNORECASE)
# A separator left at the start: "(Smith, 2020), masks work" -> ", masks work".
_LEADING_SEPARATOR = re.compile(r"^[\s,;:]+")


# What may sit between two markers of one run: "[1], [2]", "[3]; [4]", "[5]-[7]".
_BETWEEN_MARKERS = re.compile(r"[\s,;\-–—]*")


def _merged(claim: str, spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted spans, with markers separated only by separators joined into one span."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted((max(0, s), min(len(claim), e)) for s, e in spans):
        if merged and _BETWEEN_MARKERS.fullmatch(claim, merged[-1][1], max(start, merged[-1][1])):
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def checked_claim(claim: str, marker_spans: Iterable[tuple[int, int]]) -> str:
    """``claim`` without the ``marker_spans`` (offsets into ``claim``), tidied.

    A claim that opened with a marker ("Smith (2020) showed that ...") starts with a capital
    letter again.
    """
    pieces: list[str] = []
    cursor = 0
    opened_with_marker = False
    for start, end in _merged(claim, marker_spans):
        if end <= cursor:
            continue
        if not pieces and _BEFORE_OPENING_MARKER.fullmatch(claim, 0, start):
            opened_with_marker = True
        pieces.append(claim[cursor : max(cursor, start)])
        cursor = max(cursor, end)
    pieces.append(claim[cursor:])
    text = collapse_whitespace(" ".join(pieces))
    text = _SPACE_BEFORE_PUNCT.sub(r"\1", text)
    text = _ORPHAN_SEPARATORS.sub("", text)
    text = _LEADING_SEPARATOR.sub("", text)
    if opened_with_marker:
        # "Smith (2020) showed that masks work" claims that masks work.
        text = _REPORTING_LEAD.sub("", text, count=1)
        if text[:1].islower():
            text = text[:1].upper() + text[1:]
    return text
