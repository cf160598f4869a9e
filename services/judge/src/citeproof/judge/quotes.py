"""Quote verification: a verdict that asserts something about a source must quote it verbatim.

A backend (an LLM above all) may paraphrase, stitch sentences together or invent a quote. Any
``supported``, ``partially_supported`` or ``contradicted`` verdict whose quote cannot be found in
the retrieved passages is downgraded to ``unsupported`` with its confidence capped, and the original
label and the reason are recorded on the verdict: we would rather under-claim than show a user
a quote the source does not contain.

"Verbatim" tolerates only differences that come from rendering, not wording: runs of whitespace and
line breaks, words hyphenated across a line break (``immuno-\\nlogy``), soft hyphens, Unicode
compatibility forms (ligatures such as ``ﬁ``) and typographic quotes and dashes. Case, words,
numbers and punctuation otherwise must match. The stored quote is the source's own text, cut from
the passage, not the backend's rendering of it.
"""

from __future__ import annotations

import unicodedata
from typing import Final

import msgspec

from citeproof.contracts.judging import LABELS_NEEDING_QUOTE, NEEDS_REVIEW, Passage, Verdict

# A quote of fewer words proves nothing ("the virus" is in every abstract).
MIN_QUOTE_WORDS: Final = 4
# Confidence of a downgraded verdict is capped here: the judge thought the source said something,
# we could not check it, so "unsupported" is a weak statement.
DOWNGRADED_CONFIDENCE_CAP: Final = 0.3
# Characters a backend may put around a quote that are not part of it.
_QUOTE_WRAPPERS: Final = " \t\r\n\"'“”‘’«»…"

_TYPOGRAPHIC: Final = str.maketrans(
    {
        "‘": "'",
        "’": "'",
        "‚": "'",
        "“": '"',
        "”": '"',
        "„": '"',
        "–": "-",
        "—": "-",
        "‐": "-",
        "‑": "-",
        "−": "-",
        "\u00a0": " ",
    }
)
_SOFT_HYPHEN: Final = "\u00ad"


class QuoteMatch(msgspec.Struct, frozen=True):
    """Where a quote was found: the source's own text of it and its passage."""

    text: str
    passage_rank: int
    page: int | None


def _hyphen_line_break_end(text: str, index: int) -> int | None:
    """If ``text[index]`` is a hyphen ending a line inside a word, the index of the next letter."""
    cursor = index + 1
    saw_newline = False
    while cursor < len(text) and text[cursor].isspace():
        saw_newline = saw_newline or text[cursor] == "\n"
        cursor += 1
    if (
        saw_newline
        and index > 0
        and text[index - 1].isalpha()
        and cursor < len(text)
        and text[cursor].isalpha()
    ):
        return cursor
    return None


def normalise_with_offsets(text: str, *, join_hyphenated: bool) -> tuple[str, list[int]]:
    """Comparison form of ``text`` and, for each of its characters, the offset it came from.

    ``join_hyphenated`` decides what a line-break hyphen becomes: nothing (``immuno-\\nlogy`` ->
    ``immunology``) or a plain hyphen (``long-\\nterm`` -> ``long-term``); both readings are tried
    because the text alone cannot tell which one the author meant.
    """
    chars: list[str] = []
    offsets: list[int] = []
    index = 0
    pending_space = False
    while index < len(text):
        char = text[index]
        if char == _SOFT_HYPHEN:
            index += 1
            continue
        if char == "-":
            resume = _hyphen_line_break_end(text, index)
            if resume is not None:
                if not join_hyphenated:
                    chars.append("-")
                    offsets.append(index)
                pending_space = False
                index = resume
                continue
        if char.isspace():
            pending_space = bool(chars)
            index += 1
            continue
        if pending_space:
            chars.append(" ")
            offsets.append(index - 1)
            pending_space = False
        for piece in unicodedata.normalize("NFKC", char).translate(_TYPOGRAPHIC):
            chars.append(piece)
            offsets.append(index)
        index += 1
    return "".join(chars), offsets


def _normalise_quote(quote: str) -> str:
    trimmed = quote.strip(_QUOTE_WRAPPERS)
    # An ellipsis marks an elided start or end, not text of the source.
    while trimmed.endswith("...") or trimmed.startswith("..."):
        trimmed = trimmed.removesuffix("...").removeprefix("...").strip(_QUOTE_WRAPPERS)
    normalised, _ = normalise_with_offsets(trimmed, join_hyphenated=True)
    return normalised


def _find_in_passage(needle: str, passage: Passage) -> str | None:
    for join in (True, False):
        haystack, offsets = normalise_with_offsets(passage.text, join_hyphenated=join)
        start = haystack.find(needle)
        if start >= 0:
            end = start + len(needle) - 1
            return passage.text[offsets[start] : offsets[end] + 1]
    return None


def find_quote(
    quote: str, passages: list[Passage], preferred_rank: int | None = None
) -> QuoteMatch | None:
    """Find ``quote`` verbatim (as defined above) in the passages.

    The passage the backend pointed at (``preferred_rank``) is tried first, so a sentence repeated
    in
    two chunks gets the page the backend meant; then passages in rank order.
    """
    needle = _normalise_quote(quote)
    if len(needle.split()) < MIN_QUOTE_WORDS:
        return None
    ordered = sorted(passages, key=lambda p: (p.rank != preferred_rank, p.rank))
    for passage in ordered:
        found = _find_in_passage(needle, passage)
        if found is not None:
            return QuoteMatch(text=found, passage_rank=passage.rank, page=passage.page)
    return None


def verify_quote(
    verdict: Verdict, passages: list[Passage], preferred_rank: int | None = None
) -> Verdict:
    """Return ``verdict`` with its quote checked, replaced by the source's text, and paged.

    A verdict that needs a quote and has no verifiable one is downgraded to ``needs_review``: the
    judge claimed something it could not show, which says nothing about what the source lacks (so
    not ``unsupported``). One that needs none keeps a quote only if it is verifiable, else it is
    dropped.
    """
    match = None
    if verdict.quote:
        match = find_quote(verdict.quote, passages, preferred_rank)
    if match is not None:
        return msgspec.structs.replace(verdict, quote=match.text, quote_page=match.page)
    if verdict.label not in LABELS_NEEDING_QUOTE:
        return msgspec.structs.replace(verdict, quote=None, quote_page=None)
    if not verdict.quote:
        reason = "no quote was given"
    elif len(_normalise_quote(verdict.quote).split()) < MIN_QUOTE_WORDS:
        reason = f"the quote is shorter than {MIN_QUOTE_WORDS} words"
    else:
        reason = "the quote was not found verbatim in the retrieved passages"
    return msgspec.structs.replace(
        verdict,
        label=NEEDS_REVIEW,
        confidence=min(verdict.confidence, DOWNGRADED_CONFIDENCE_CAP),
        rationale=f"Downgraded from {verdict.label}: {reason}. {verdict.rationale}".strip(),
        quote=None,
        quote_page=None,
        downgraded_from=verdict.label,
        downgrade_reason=reason,
    )
