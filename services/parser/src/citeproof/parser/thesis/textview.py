"""A cleaned view of extracted document text that still knows where every character came from.

PDF text extractors differ: pypdfium2 marks line-break hyphens with U+FFFE and ends lines with CRLF,
pdfminer/unstructured keep a real hyphen before the newline, and every extractor breaks a sentence
that runs over a page or column break. Pattern matching is done on the view (hyphens removed,
CRLF folded, page breaks inside a sentence joined); every span found is mapped back to the
original text through ``offsets`` so stored offsets always index what the parser stored.
"""

from __future__ import annotations

import re
from collections import Counter

import msgspec

from citeproof.parser.thesis.entries import looks_like_entry_start
from citeproof.parser.thesis.sections import is_reference_heading

# Removed together with the line break that follows them: the word continues on the next line.
_SOFT_HYPHENS = "\ufffe\u00ad\u2010"
# A paragraph break whose surroundings say the sentence goes on (page/column break, float).
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n\s*")
_LOWER_OR_COMMA = re.compile(r"[a-z,;(\-]")
_CONTINUATION_START = re.compile(r"[a-z(\[]|\d{4}[a-z]?[),;]")
_PAGE_NUMBER_LINE = re.compile(r"^\d{1,4}$")
# A block no longer than this that ends without punctuation may be a heading: never joined.
MAX_HEADING_CHARS = 80
# Characters after a paragraph break read to tell a reference entry's start.
ENTRY_START_PROBE = 300
# A line printed this often at page or block edges is a running header or footer.
MIN_RUNNING_HEADER_REPEATS = 3


class TextView(msgspec.Struct, frozen=True):
    """``text[i]`` came from ``original[offsets[i]]``; ``offsets[len(text)] == len(original)``."""

    text: str
    offsets: list[int]

    def original_span(self, start: int, end: int) -> tuple[int, int]:
        """Map a view span to the span of the original text that it was built from."""
        if end <= start:
            position = self.offsets[start]
            return position, position
        return self.offsets[start], self.offsets[end - 1] + 1


def _furniture_lines(original: str) -> dict[int, int]:
    """Page furniture to leave out of the view, as {line start: line end incl. newline}.

    Page numbers on a line of their own, and running headers/footers: lines printed at least
    ``MIN_RUNNING_HEADER_REPEATS`` times at the edge of a page or block.
    """
    lines: list[tuple[int, int, str]] = []
    position = 0
    for raw_line in original.splitlines(keepends=True):
        lines.append((position, position + len(raw_line), raw_line.strip()))
        position += len(raw_line)
    counts = Counter(
        content for _, _, content in lines if len(content) >= 10 and not content.endswith(".")
    )
    skipped: dict[int, int] = {}
    for number, (start, end, content) in enumerate(lines):
        if _PAGE_NUMBER_LINE.match(content):
            skipped[start] = end
            continue
        if counts.get(content, 0) < MIN_RUNNING_HEADER_REPEATS or is_reference_heading(content):
            # A reference heading repeats in theses with one list per chapter: never furniture.
            continue
        previous_blank = number == 0 or not lines[number - 1][2]
        next_blank = number + 1 >= len(lines) or not lines[number + 1][2]
        if previous_blank or next_blank:
            skipped[start] = end
    return skipped


def build_view(original: str) -> TextView:
    """Clean ``original`` for pattern matching, keeping an offset map back into it."""
    chars: list[str] = []
    offsets: list[int] = []
    length = len(original)
    skipped = _furniture_lines(original)
    index = 0
    at_line_start = True
    while index < length:
        if at_line_start and index in skipped:
            index = skipped[index]
            continue
        char = original[index]
        at_line_start = char == "\n"
        if char == "\r":
            index += 1
            continue
        if char in _SOFT_HYPHENS:
            # Drop the hyphen and the line break after it, if any; before a capital the hyphen
            # was real ("Jimeno-Yepes" broken at its hyphen).
            following = index + 1
            while following < length and original[following] in "\r\n":
                following += 1
            if following < length and original[following].isupper():
                chars.append("-")
                offsets.append(index)
            index = following
            continue
        if (
            char == "-"
            and chars
            and chars[-1].isalpha()
            and index + 1 < length
            and original[index + 1] in "\r\n"
        ):
            following = index + 1
            while following < length and original[following] in "\r\n \t":
                following += 1
            if following < length and chars[-1].islower() and original[following].islower():
                # A word hyphenated at the line end: "cita-\ntion" reads "citation".
                index = following
                continue
            if following < length and original[following].isupper():
                # A compound broken at its own hyphen: "Jimeno-\nYepes" reads "Jimeno-Yepes".
                chars.append(char)
                offsets.append(index)
                index = following
                continue
        chars.append(char)
        offsets.append(index)
        index += 1
    offsets.append(length)
    text = "".join(chars)
    return TextView(text=_join_broken_paragraphs(text), offsets=offsets)


def _join_broken_paragraphs(text: str) -> str:
    """Turn a paragraph break into spaces where the sentence obviously continues after it.

    Same length in and out, so the offset map stays valid.
    """

    def replace(match: re.Match[str]) -> str:
        before = text[match.start() - 1] if match.start() > 0 else ""
        line_start = text.rfind("\n", 0, match.start()) + 1
        if (
            before
            and _LOWER_OR_COMMA.match(before)
            and _CONTINUATION_START.match(text, match.end())
            and (before in ",;(-" or match.start() - line_start > MAX_HEADING_CHARS)
            # "van Dijk, A. (2022). ..." after an entry ending in a DOI opens the next entry.
            and not looks_like_entry_start(text[match.end() : match.end() + ENTRY_START_PROBE])
        ):
            return " " * (match.end() - match.start())
        return match.group(0)

    return _PARAGRAPH_BREAK.sub(replace, text)
