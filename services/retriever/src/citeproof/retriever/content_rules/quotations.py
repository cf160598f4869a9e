"""Quotations in a citing sentence, and the parts a writer's conventions split them into.

Quotation marks of every common style: “…”, "…", „…“, «…», »…«, ‹…›, ‘…’, '…', ‚…‘. A single
quotation mark is told from an apostrophe by what surrounds it (an opening one follows a space
or a bracket and precedes a letter; a closing one is not followed by a letter: "don't" and "the
authors' view" hold none). A quotation that began in the sentence before (the sentence splitter
cut inside it) is read from there.

Inside a quotation the writer's conventions become parts (`Segment`s) and the gaps between
them: an ellipsis ("…", "...", ". . .", "[…]", "[...]") leaves out words; a bracketed insertion
("[the virus]") replaces a few; "[sic]" and "[emphasis added]" are the writer's notes and are
dropped; a bracketed letter ("[T]he") is the source's word with its case changed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from citeproof.retriever.content_rules.folding import FoldedWord, folded_words
from citeproof.text.words import STOPWORDS

# A quotation longer than this is no quotation but a mark left open.
MAX_QUOTATION_CHARS = 3000

# Opening mark -> the marks that close it.
_CLOSERS: dict[str, str] = {
    "“": "”“",  # English; “…“ is a common typing slip
    "„": "“”",  # German, Czech, Polish
    "«": "»",
    "»": "«",  # German guillemets
    "‹": "›",
    "‚": "‘’",
    '"': '"',
    "‘": "’",
    "'": "'",
}
_SINGLE = frozenset("‘'’‚")
_OPEN_CONTEXT = frozenset(" \t\n([{—–-/")

_PIECES = re.compile(
    r"(?P<ellipsis>\[\s*(?:…|\.(?:\s?\.){2})\s*\]|\(\s*(?:…|\.(?:\s?\.){2})\s*\)|…|\.(?:\s?\.){2})"
    r"|(?P<note>\[\s*(?:sic!?|(?:emphasis|italics)(?:\s+(?:added|mine|in\s+original))?|"
    r"original\s+emphasis)\s*\]|\(\s*(?:emphasis|italics)\s+(?:added|mine|in\s+original)\s*\))"
    r"|\[(?P<letter>[^\W\d_])\](?=[^\W\d_])"
    r"|(?P<insertion>\[[^\[\]]{1,80}\])",
    re.IGNORECASE,
)


@dataclass
class Segment:
    """A run of the quotation the source must hold word for word."""

    words: list[FoldedWord] = field(default_factory=list)
    # Most words of the source allowed between the part before and this one (0: adjacent).
    gap_before: int = 0
    # Offsets into the part's character stream where the case may differ from the source's.
    case_free: set[int] = field(default_factory=set)

    @property
    def keys(self) -> str:
        return "".join(word.key for word in self.words)

    @property
    def exact(self) -> str:
        return "".join(word.exact for word in self.words)


@dataclass(frozen=True)
class Quotation:
    text: str  # as written, without its marks
    # Characters of the quoted text in the claim; None for a block quotation.
    span: tuple[int, int] | None
    segments: list[Segment]

    @property
    def words(self) -> list[FoldedWord]:
        return [word for segment in self.segments for word in segment.words]


# Guillemets are set with spaces inside in French ("« texte »"); a curly closing mark says
# which way it faces, so a space typed before it does not make it an opening one.
_SPACED = frozenset("«»‹›")
_CLOSING_ONLY = frozenset("”’»›")
# A note number set as a superscript right after a closing mark ("…reliable’¹") is no letter of
# a word the mark would be an apostrophe in.
_SUPERSCRIPT_DIGITS = frozenset("⁰¹²³⁴⁵⁶⁷⁸⁹")
# Spaces looked past for the word a possessive's ’ is followed by.
_LOOK_AHEAD_CHARS = 40


def _is_opening(text: str, index: int) -> bool:
    char = text[index]
    after = text[index + 1] if index + 1 < len(text) else ""
    if not after or (after.isspace() and char not in _SPACED):
        return False
    if char in _SINGLE:
        before = text[index - 1] if index else " "
        return before in _OPEN_CONTEXT or before in '“"«„'
    return True


def _is_closing(text: str, index: int) -> bool:
    char = text[index]
    before = text[index - 1] if index else ""
    if not before or (before.isspace() and char not in _SPACED and char not in _CLOSING_ONLY):
        return False
    if char in _SINGLE:
        after = text[index + 1] if index + 1 < len(text) else ""
        # "the authors’ view", "don’t": a letter after it, or a plural's possessive - which a
        # word follows; a marker, a bracket or punctuation after "…restrictions’ " ends a
        # quotation instead.
        letter_after = after.isalnum() and after not in _SUPERSCRIPT_DIGITS
        possessive = (
            after.isspace() and before == "s" and char == "’" and _word_follows(text, index + 1)
        )
        return not (letter_after or possessive)
    return True


def _word_follows(text: str, index: int) -> bool:
    """The next character that is not a space, from ``index`` on, is a letter or a digit."""
    rest = text[index : index + _LOOK_AHEAD_CHARS].lstrip()
    return bool(rest) and rest[0].isalnum()


def quotation_spans(text: str) -> list[tuple[int, int]]:
    """Spans of the text inside quotation marks (outermost quotations only), in order."""
    spans: list[tuple[int, int]] = []
    index = 0
    while index < len(text):
        char = text[index]
        closers = _CLOSERS.get(char)
        if closers is None or not _is_opening(text, index):
            index += 1
            continue
        close = index + 1
        limit = min(len(text), index + 1 + MAX_QUOTATION_CHARS)
        while close < limit and not (text[close] in closers and _is_closing(text, close)):
            close += 1
        if close >= limit:
            index += 1
            continue
        spans.append((index + 1, close))
        index = close + 1
    return spans


def segments_of(text: str, start: int, end: int, config_gaps: tuple[int, int]) -> list[Segment]:
    """The parts of the quotation ``text[start:end]``; ``config_gaps`` = (words an ellipsis,
    words an insertion may stand for)."""
    ellipsis_gap, insertion_gap = config_gaps
    segments = [Segment()]
    cursor = start
    starts_part = True  # the next word opens a part: its first letter's case is free
    for match in _PIECES.finditer(text, start, end):
        _append_words(segments[-1], folded_words(text, cursor, match.start()), starts_part)
        starts_part = starts_part and not segments[-1].words
        cursor = match.end()
        if match.group("ellipsis") or match.group("insertion"):
            gap = ellipsis_gap if match.group("ellipsis") else insertion_gap
            if segments[-1].words:
                segments.append(Segment(gap_before=gap))
            else:
                segments[-1].gap_before = max(segments[-1].gap_before, gap)
            starts_part = True
        elif match.group("letter"):
            segment = segments[-1]
            position = len(segment.exact)
            _append_words(segment, folded_words(text, match.start("letter"), match.end("letter")),
                          False)  # fmt: skip
            segment.case_free.add(position)
            starts_part = False
    _append_words(segments[-1], folded_words(text, cursor, end), starts_part)
    return [segment for segment in segments if segment.words]


def _append_words(segment: Segment, words: list[FoldedWord], starts_part: bool) -> None:
    if not words:
        return
    if starts_part and not segment.words:
        segment.case_free.add(0)
    segment.words.extend(words)


def word_count(quotation: Quotation) -> tuple[int, int]:
    """(words, content words) of the quotation."""
    words = quotation.words
    content = sum(1 for word in words if word.key not in STOPWORDS and not word.key.isdigit())
    return len(words), content


def is_title_case(quotation: Quotation) -> bool:
    """A name written in Title Case ("Diabetes in Older Adults"): every content word
    capitalised, at least two of them."""
    content = [w for w in quotation.words if w.key not in STOPWORDS and w.exact[:1].isalpha()]
    return len(content) >= 2 and all(word.exact[0].isupper() for word in content)


def find_quotations(
    claim: str, context: str, gaps: tuple[int, int], block_quote: str | None = None
) -> list[Quotation]:
    """Every quotation of the citing sentence (and the block quotation its marker closes)."""
    joined = f"{context} {claim}" if context else claim
    shift = len(joined) - len(claim)
    found: list[Quotation] = []
    for start, end in quotation_spans(joined):
        if end <= shift:
            continue  # wholly in the sentence before
        segments = segments_of(joined, start, end, gaps)
        if segments:
            found.append(
                Quotation(
                    text=joined[start:end],
                    span=(max(start - shift, 0), end - shift),
                    segments=_shifted(segments, -shift),
                )
            )
    if block_quote:
        inner = block_quote.strip()
        # A block quotation may still be wrapped in marks.
        if len(inner) > 2 and inner[0] in _CLOSERS and inner[-1] in "”“\"»«›‘’'":
            inner = inner[1:-1]
        segments = segments_of(inner, 0, len(inner), gaps)
        if segments:
            found.append(Quotation(text=inner, span=None, segments=segments))
    return found


def _shifted(segments: list[Segment], by: int) -> list[Segment]:
    """Word offsets moved into the claim's own coordinates."""
    return [
        Segment(
            words=[
                FoldedWord(word.start + by, word.end + by, word.exact, word.key)
                for word in segment.words
            ],
            gap_before=segment.gap_before,
            case_free=set(segment.case_free),
        )
        for segment in segments
    ]
