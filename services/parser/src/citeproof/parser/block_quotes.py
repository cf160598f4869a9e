"""Block quotations: a long quotation set as its own indented paragraph, without quotation
marks, introduced by a sentence ending in a colon and closed by its citation after the last
full stop ("... as the authors put it:\\n\\nLong passage ... end. (Smith, 2020, p. 5)").

In the stored text the indentation is gone, so the paragraph is recognised by the writing
conventions that mark it (APA, Chicago, MLA alike): the paragraph before ends with a colon, and
the marker stands after the quotation's final punctuation, at the paragraph's end. In running
prose the marker comes before the full stop, and paragraphs rarely follow a colon, so both
together are a quotation.
"""

from __future__ import annotations

import re
from typing import Final

# APA sets quotations of 40 words or more as a block; shorter ones introduced this way are
# still quotations, but a two-line paragraph after a colon is as likely a list item.
MIN_BLOCK_QUOTE_WORDS: Final = 12
# A block quotation is a paragraph or two, never a page.
MAX_BLOCK_QUOTE_CHARS: Final = 4000

_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")
# After the marker: at most a full stop before the paragraph ends.
_AFTER_MARKER = re.compile(r"[ \t.]*$")
# The quotation ends with its own punctuation, possibly inside a closing mark or bracket.
_ENDS_SENTENCE = re.compile(r"[.!?…](?:[\"”’'»)\]])?$")
_WORD = re.compile(r"[^\W_]+")


def block_quote_before(text: str, marker_start: int, marker_end: int) -> str | None:
    """The block quotation the marker at ``text[marker_start:marker_end]`` closes, verbatim
    (stripped of surrounding space), or None."""
    window_start = max(0, marker_start - MAX_BLOCK_QUOTE_CHARS)
    breaks = list(_PARAGRAPH_BREAK.finditer(text, window_start, marker_start))
    if not breaks:
        return None
    paragraph_start = breaks[-1].end()
    following = _PARAGRAPH_BREAK.search(text, marker_end)
    paragraph_end = following.start() if following else len(text)
    if not _AFTER_MARKER.match(text[marker_end:paragraph_end]):
        return None
    quotation = text[paragraph_start:marker_start].strip()
    if not _ENDS_SENTENCE.search(quotation) or len(_WORD.findall(quotation)) < (
        MIN_BLOCK_QUOTE_WORDS
    ):
        return None
    introduction = text[max(0, breaks[-1].start() - 400) : breaks[-1].start()].rstrip()
    if not introduction.endswith(":"):
        return None
    return quotation
