"""Rule-based sentence splitting that returns character spans into the original text.

Scholarly prose is hostile to naive splitters: ``et al.``, ``e.g.``, ``Fig. 3``, initials such as
``J. Smith`` and citation markers sitting right before or after the full stop all look like sentence
ends. The splitter works on the raw text (no copying, no normalisation) so the spans it returns can
be used directly as claim offsets, chunk boundaries and quote positions.

A candidate boundary is a run of terminal punctuation (``.``, ``!``, ``?``), optionally followed by
closing quotes/brackets, then whitespace, then something that can start a sentence (an upper-case
letter, a digit, an opening quote or bracket, a surname led by its particles: "van Dijk"). It is
rejected when the word before the full stop is a known abbreviation or a single initial. A blank
line always ends a sentence, so headings and list items without punctuation do not swallow the
paragraph after them.
"""

from __future__ import annotations

import re

from citeproof.text.names import opens_with_particle_surname

# Abbreviations after which a full stop never ends a sentence, even before a capital letter.
# Lower-cased, without the final dot.
_ABBREVIATIONS_TEXT = (
    "al e.g i.e cf vs viz ca approx resp dr prof mr mrs ms st jr sr inc ltd corp dept univ eds "
    "proc conf n.b a.k.a ibid jan feb mar apr jun jul aug sep sept oct nov dec"
)
NON_TERMINAL_ABBREVIATIONS = frozenset(_ABBREVIATIONS_TEXT.split())

# Abbreviations that only continue a sentence when a number or a short label follows ("Fig. 3",
# "p. 45", "No. 7", "App. A"): "the answer is no. Then ..." must still split.
_NUMBERED_ABBREVIATIONS_TEXT = (
    "fig figs eq eqs eqn tab sec secs sect ch chap no nos vol vols p pp ref refs art para thm "
    "def lem prop cor alg app ex"
)
NUMBERED_ABBREVIATIONS = frozenset(_NUMBERED_ABBREVIATIONS_TEXT.split())

# What may follow a numbered abbreviation: a number, a bracket, or a short label such as "A"/"S1".
_NUMBER_LIKE = re.compile(r"\s*(?:[\d(\[]|[A-Z]{1,3}\d*\b)")

# Characters that may open a sentence.
# German and Polish quotations open low („…“, ‚…‘), Danish and Swiss ones may open with » or ‹.
_OPENERS = "\"'“‘„‚([«»‹"

_CANDIDATE = re.compile(
    r"""
    (?P<term>[.!?]+|…)             # terminal punctuation (also '...' and a real ellipsis)
    (?P<close>["'”’“‘)\]»«›‹]*)    # closing quotes / brackets that belong to the sentence
    (?P<space>\s+)                  # whitespace to the next sentence
    """,
    re.VERBOSE,
)

# A numeric citation marker or superscript-style marker put AFTER the full stop (``... shown. [3]
# Next``). It belongs to the sentence before it.
_TRAILING_MARKER = re.compile(r"\[\s*\d[\d\s,;–—\-]*\]")

_BLANK_LINE = re.compile(r"\n[ \t\r\f\v]*\n\s*")


def _is_sentence_start(text: str, pos: int) -> bool:
    if pos >= len(text):
        return True
    char = text[pos]
    if char.isupper() or char.isdigit() or char in _OPENERS:
        return True
    # Scripts without case (CJK and the like) cannot be judged by case, and a lower-case Greek
    # letter opens formulas ("µ is the mean"); only lower-case Latin continues a sentence, but
    # for a surname's particles ("... in 2020. van Dijk (2021) found").
    return (char.isalpha() and not (char.islower() and char.isascii())) or (
        opens_with_particle_surname(text, pos)
    )


def _ends_with_abbreviation(text: str, dot_pos: int) -> bool:
    """True when the full stop at ``dot_pos`` closes an abbreviation or an initial."""
    word_start = dot_pos
    while word_start > 0 and (text[word_start - 1].isalpha() or text[word_start - 1] == "."):
        word_start -= 1
    word = text[word_start:dot_pos].lstrip(".")
    if not word:
        return False
    if len(word) == 1 and word.isupper():
        # An initial as in "J. Smith" or "Smith, J. and".
        return True
    lowered = word.lower().rstrip(".")
    if lowered in NON_TERMINAL_ABBREVIATIONS:
        return True
    if lowered in NUMBERED_ABBREVIATIONS:
        return _NUMBER_LIKE.match(text, dot_pos + 1) is not None
    # Dotted abbreviations such as "U.S." or "e.g." (every part one or two letters).
    parts = lowered.split(".")
    return len(parts) > 1 and all(0 < len(part) <= 2 for part in parts)


def _boundaries_in_block(text: str, start: int, end: int) -> list[int]:
    """Sentence end offsets (exclusive) inside ``text[start:end]``, which has no blank line."""
    ends: list[int] = []
    for match in _CANDIDATE.finditer(text, start, end):
        term = match.group("term")
        next_pos = match.end()
        if next_pos >= end:
            continue
        if term == "." and _ends_with_abbreviation(text, match.start("term")):
            continue
        sentence_end = match.end("close")
        trailing = _TRAILING_MARKER.match(text, next_pos, end)
        if trailing is not None:
            after = trailing.end()
            while after < end and text[after].isspace():
                after += 1
            if after >= end or _is_sentence_start(text, after):
                # "... shown. [3] Next": keep the marker with the sentence it supports.
                ends.append(trailing.end())
                continue
        if _is_sentence_start(text, next_pos):
            ends.append(sentence_end)
    return ends


def _trimmed(text: str, start: int, end: int) -> tuple[int, int] | None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return (start, end) if start < end else None


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Split ``text`` into sentences; returns ``(start, end)`` spans with whitespace trimmed.

    ``text[start:end]`` is the sentence verbatim. Spans are in order and do not overlap.
    """
    spans: list[tuple[int, int]] = []
    block_start = 0
    block_edges = [(m.start(), m.end()) for m in _BLANK_LINE.finditer(text)]
    block_edges.append((len(text), len(text)))
    for block_end, next_block_start in block_edges:
        cursor = block_start
        for sentence_end in _boundaries_in_block(text, block_start, block_end):
            if sentence_end <= cursor:
                continue
            span = _trimmed(text, cursor, sentence_end)
            if span is not None:
                spans.append(span)
            cursor = sentence_end
        span = _trimmed(text, cursor, block_end)
        if span is not None:
            spans.append(span)
        block_start = next_block_start
    return spans


def sentence_index_at(spans: list[tuple[int, int]], offset: int) -> int | None:
    """Index of the sentence span containing ``offset`` (binary search), or None in a gap."""
    low, high = 0, len(spans) - 1
    while low <= high:
        middle = (low + high) // 2
        start, end = spans[middle]
        if offset < start:
            high = middle - 1
        elif offset >= end:
            low = middle + 1
        else:
            return middle
    return None
