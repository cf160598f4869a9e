"""Where a quotation is in the source, verbatim but for rendering and the writer's conventions;
and, when it is nowhere, the closest passage and the words that differ.

Finding a part: its rarest words (in the source's inverted index) propose where it could start;
each proposal is checked by comparing folded characters in a window a few words wide. The other
parts of the quotation must follow in order, each within the gap its ellipsis or insertion
allows. Only a part without a single word known to the source is looked for by one scan of the
key stream (str.find, linear), which happens when a quotation's only words are broken across
lines in the source.

The closest passage: every rare word of the quotation votes for the place the quotation would
start at; the best few places are aligned word by word (difflib) and the best alignment wins.
"""

from __future__ import annotations

import bisect
from collections import Counter
from dataclasses import dataclass
from difflib import SequenceMatcher

import numpy as np

from citeproof.retriever.content_rules.quotations import Quotation, Segment
from citeproof.retriever.content_rules.source import SourceText

# Words either side of a proposed start searched for the part (hyphenation and footnote marks
# shift word counts a little).
SLACK_WORDS = 3
# Proposals checked per part at most (a part of only common words proposes many).
MAX_PROPOSALS = 400
# Occurrences of a quotation kept (a passage quoted from a repeated boilerplate sentence).
MAX_MATCHES = 20
# A word occurring more often than this votes for no place of the closest passage.
MAX_VOTING_FREQUENCY = 200
# Places aligned in full when looking for the closest passage.
CLOSEST_PLACES = 5
# Words of the source around a place aligned with the quotation.
ALIGN_MARGIN_WORDS = 12
# A passage is in Title Case when this share of its words longer than three letters (not
# "of", "the", "and") begin with a capital.
TITLE_MIN_WORD_CHARS = 3
TITLE_CAPITALS_SHARE = 0.8


@dataclass(frozen=True)
class QuoteMatch:
    """One occurrence: its first and last word of the source (inclusive) and their pages."""

    first_word: int
    last_word: int
    pages: frozenset[int]


@dataclass(frozen=True)
class Closest:
    first_word: int
    last_word: int
    share: float  # of the quotation's words found in this passage, in order
    # (the quotation's words, the source's words) of each place they differ.
    differences: list[tuple[str, str]]


@dataclass(frozen=True)
class QuoteSearch:
    matches: list[QuoteMatch]
    # A passage holding the quotation's words with a letter's case changed inside a word.
    case_only: Closest | None = None


def _is_word_start(source: SourceText, key_offset: int) -> bool:
    """A word starts (or the stream ends) at this offset of the key stream."""
    index = int(np.searchsorted(source.word_offsets, key_offset))
    return index < len(source.word_offsets) and int(source.word_offsets[index]) == key_offset


def _find_in(source: SourceText, keys: str, low: int, high: int, reverse: bool = False) -> int:
    """Offset in the key stream of ``keys`` within [low, high), starting and ending at word
    boundaries; -1 when absent. The nearest to ``high`` when ``reverse``."""
    while True:
        found = source.keys.rfind(keys, low, high) if reverse else source.keys.find(keys, low, high)
        if found < 0:
            return -1
        if _is_word_start(source, found) and _is_word_start(source, found + len(keys)):
            return found
        if reverse:
            high = found + len(keys) - 1
        else:
            low = found + 1


def _word_offset(source: SourceText, word: int) -> int:
    return int(source.word_offsets[max(0, min(word, len(source.words)))])


def _occurrences(source: SourceText, segment: Segment) -> list[int]:
    """Key-stream offsets where the part occurs, in order."""
    keys = segment.keys
    anchors = sorted(
        (
            (source.document_frequency(word.key), position)
            for position, word in enumerate(segment.words)
            if source.document_frequency(word.key)
        ),
    )[:2]
    if not anchors:
        found: list[int] = []
        offset = _find_in(source, keys, 0, len(source.keys))
        while offset >= 0 and len(found) < MAX_MATCHES:
            found.append(offset)
            offset = _find_in(source, keys, offset + 1, len(source.keys))
        return found
    starts: set[int] = set()
    for _, position in anchors:
        for word in source.postings[segment.words[position].key][:MAX_PROPOSALS]:
            starts.add(word - position)
    offsets: set[int] = set()
    for start in sorted(starts)[:MAX_PROPOSALS]:
        low = _word_offset(source, start - SLACK_WORDS)
        high = _word_offset(source, start + len(segment.words) + SLACK_WORDS)
        found_at = _find_in(source, keys, low, high)
        if found_at >= 0:
            offsets.add(found_at)
    return sorted(offsets)


def _chain(
    source: SourceText, segments: list[Segment], anchor: int, anchor_offset: int
) -> list[int] | None:
    """Key offsets of every part, given where the anchor part is; None if one is missing."""
    offsets = [0] * len(segments)
    offsets[anchor] = anchor_offset
    for index in range(anchor + 1, len(segments)):
        previous_end = offsets[index - 1] + len(segments[index - 1].keys)
        first_word = source.word_at_offset(previous_end)
        segment = segments[index]
        high = _word_offset(
            source, first_word + segment.gap_before + len(segment.words) + SLACK_WORDS
        )
        found = _find_in(source, segment.keys, previous_end, high)
        if found < 0:
            return None
        offsets[index] = found
    for index in range(anchor - 1, -1, -1):
        following_start = offsets[index + 1]
        first_word = source.word_at_offset(following_start)
        segment = segments[index]
        gap = segments[index + 1].gap_before
        low = _word_offset(source, first_word - gap - len(segment.words) - SLACK_WORDS)
        found = _find_in(source, segment.keys, low, following_start, reverse=True)
        if found < 0 or found + len(segment.keys) > following_start:
            return None
        offsets[index] = found
    return offsets


def _case_differs(source: SourceText, segment: Segment, offset: int) -> bool:
    """A letter's case differs where the writer's conventions do not allow it: anywhere but a
    part's first letter or a bracketed letter, unless either word is set in capitals."""
    exact = segment.exact
    found = source.exact[offset : offset + len(exact)]
    if found == exact:
        return False
    quote_offsets = [0]
    for word in segment.words:
        quote_offsets.append(quote_offsets[-1] + len(word.key))
    for position, (mine, theirs) in enumerate(zip(exact, found, strict=True)):
        if mine == theirs or position in segment.case_free:
            continue
        quote_word = segment.words[bisect.bisect_right(quote_offsets, position) - 1]
        source_word = source.words[source.word_at_offset(offset + position)]
        if not (quote_word.all_capitals or source_word.all_capitals):
            return True
    return False


def locate(source: SourceText, quotation: Quotation) -> QuoteSearch:
    """Every verbatim occurrence of the quotation (see the module's docstring)."""
    segments = quotation.segments
    if not segments or not source.words:
        return QuoteSearch([])

    def rarity(index: int) -> tuple[int, int]:
        frequencies = [
            source.document_frequency(word.key)
            for word in segments[index].words
            if source.document_frequency(word.key)
        ]
        # The part with the rarest word, then the longest.
        return (min(frequencies) if frequencies else 0, -len(segments[index].words))

    anchor = min(range(len(segments)), key=rarity)
    matches: list[QuoteMatch] = []
    case_only: Closest | None = None
    for offset in _occurrences(source, segments[anchor]):
        chain = _chain(source, segments, anchor, offset)
        if chain is None:
            continue
        first = source.word_at_offset(chain[0])
        last = source.word_at_offset(chain[-1] + len(segments[-1].keys) - 1)
        if not _is_title(source, first, last) and any(
            _case_differs(source, segment, at) for segment, at in zip(segments, chain, strict=True)
        ):
            if case_only is None:
                case_only = Closest(first, last, 1.0, _case_differences(source, segments, chain))
            continue
        pages = frozenset(int(page) for page in source.word_pages[first : last + 1])
        matches.append(QuoteMatch(first, last, pages))
        if len(matches) >= MAX_MATCHES:
            break
    return QuoteSearch(matches, None if matches else case_only)


def _is_title(source: SourceText, first: int, last: int) -> bool:
    """The source's passage is set in Title Case (a title, a heading): writers re-case titles
    to their own citation style ("the treatment of" for "the Treatment of"), so their case is
    typography, not wording."""
    words = [w for w in source.words[first : last + 1] if len(w.key) > TITLE_MIN_WORD_CHARS]
    capitals = sum(1 for word in words if word.exact[:1].isupper())
    return len(words) >= 2 and capitals >= TITLE_CAPITALS_SHARE * len(words)


def _case_differences(
    source: SourceText, segments: list[Segment], chain: list[int]
) -> list[tuple[str, str]]:
    differences: list[tuple[str, str]] = []
    for segment, offset in zip(segments, chain, strict=True):
        position = offset
        for word in segment.words:
            found = source.exact[position : position + len(word.exact)]
            if found != word.exact and found.lower() == word.exact.lower():
                differences.append((word.exact, found))
            position += len(word.exact)
    return differences


def closest_passage(source: SourceText, quotation: Quotation) -> Closest | None:
    """The passage of the source most like the quotation, with the words that differ."""
    words = quotation.words
    if not words or not source.words:
        return None
    keys = [word.key for word in words]
    frequencies = [source.document_frequency(key) for key in keys]
    voters = [i for i, f in enumerate(frequencies) if 0 < f <= MAX_VOTING_FREQUENCY]
    if not voters:
        voters = sorted((i for i, f in enumerate(frequencies) if f), key=frequencies.__getitem__)[
            :3
        ]
    votes: Counter[int] = Counter()
    for position in voters:
        for word in source.postings[keys[position]][:MAX_VOTING_FREQUENCY]:
            votes[word - position] += 1
    best: tuple[int, int, int, list[tuple[str, str, int, int, int, int]]] | None = None
    for start, _ in votes.most_common(CLOSEST_PLACES):
        low = max(0, start - ALIGN_MARGIN_WORDS)
        high = min(len(source.words), start + len(words) + ALIGN_MARGIN_WORDS)
        window = [word.key for word in source.words[low:high]]
        matcher = SequenceMatcher(None, keys, window, autojunk=False)
        blocks = [block for block in matcher.get_matching_blocks() if block.size]
        matched = sum(block.size for block in blocks)
        if blocks and (best is None or matched > best[0]):
            first = low + blocks[0].b
            last = low + blocks[-1].b + blocks[-1].size - 1
            opcodes = [
                (tag, "", i1, i2, low + j1, low + j2)
                for tag, i1, i2, j1, j2 in matcher.get_opcodes()
                if tag != "equal"
            ]
            best = (matched, first, last, opcodes)
    if best is None:
        return None
    matched, first, last, opcodes = best
    boundaries = _gap_boundaries(quotation)
    differences: list[tuple[str, str]] = []
    for tag, _, i1, i2, j1, j2 in opcodes:
        # Source words around the passage, or left out at an ellipsis or insertion: no difference.
        if j2 <= first or j1 > last or (tag == "insert" and i1 in boundaries):
            continue
        mine = " ".join(word.exact for word in words[i1:i2])
        theirs = " ".join(word.exact for word in source.words[max(j1, first) : min(j2, last + 1)])
        if mine.replace(" ", "").lower() == theirs.replace(" ", "").lower():
            continue  # the same letters split differently (a word broken at a line end)
        differences.append((mine, theirs))
    return Closest(first, last, matched / len(words), differences)


def _gap_boundaries(quotation: Quotation) -> set[int]:
    """Word indexes of the quotation where an ellipsis or insertion stands."""
    boundaries: set[int] = set()
    count = 0
    for segment in quotation.segments:
        if segment.gap_before:
            boundaries.add(count)
        count += len(segment.words)
    return boundaries
