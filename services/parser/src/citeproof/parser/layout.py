"""Plain page lines to structural blocks: drop running headers, footers and page numbers, then
group lines into headings and paragraphs.

Used for PDFs (pypdfium2 gives lines in reading order but no structure). The rules are deliberately
conservative: a false heading only starts a new chunk early, a missed one only leaves the heading
inside the paragraph chunk; neither loses text.
"""

from __future__ import annotations

import re
from collections import Counter

from citeproof.parser.blocks import CAPTION, HEADING, LIST_ITEM, PARAGRAPH, Block

# How many lines at the top and bottom of a page can hold a running header/footer.
EDGE_LINES = 3
# A line that repeats (digits ignored) at a page edge on at least this share of pages is
# boilerplate, provided the document has enough pages to tell.
REPEAT_SHARE = 0.4
MIN_PAGES_FOR_REPEATS = 3
# A line shorter than this share of the page's typical line ends its paragraph (when it also ends
# in terminal punctuation): the last line of a justified paragraph is short.
SHORT_LINE_SHARE = 0.75
MAX_HEADING_CHARS = 90
MAX_HEADING_WORDS = 12

_PAGE_NUMBER = re.compile(
    r"^(?:page\s+)?(?:\d{1,4}|[ivxlc]{1,7})(?:\s*(?:/|of)\s*\d{1,4})?$", re.IGNORECASE
)
_NUMBERED_HEADING = re.compile(
    r"^(?:(?:\d{1,2}(?:\.\d{1,2}){0,3}\.?)|(?:[IVX]{1,5}\.)|(?:[A-H]\.?(?:\d{1,2}(?:\.\d+)*)?))"
    r"\s+[A-Z][^\n]*$"
)
_KNOWN_HEADING_WORDS = re.compile(
    r"^(?:abstract|introduction|background|related work|methods?|methodology|approach|"
    r"experiments?|experimental setup|evaluation|results(?: and discussion)?|discussion|"
    r"conclusions?(?: and future work)?|limitations|future work|acknowledge?ments?|references|"
    r"bibliography|works cited|literature cited|appendix(?: [a-z])?|appendices|summary|"
    r"zusammenfassung|literaturverzeichnis|bibliographie|références|referencias|bibliografía)$",
    re.IGNORECASE,
)
_CAPTION = re.compile(r"^(?:Figure|Fig\.|Table|Tab\.|Algorithm|Listing)\s*\d+[.:]", re.IGNORECASE)
_BULLET = re.compile(r"^(?:[•◦▪‣∙·\-–*]|\(?[a-z0-9]{1,3}[.)])\s+")
_TERMINAL = re.compile(r"[.!?:;)\]\"”’]$")
_DIGITS = re.compile(r"\d+")
_SPACES = re.compile(r"\s+")


def _boilerplate_key(line: str) -> str:
    return _DIGITS.sub("#", _SPACES.sub(" ", line.strip().lower()))


def remove_page_furniture(pages: list[list[str]]) -> list[list[str]]:
    """Drop running headers/footers (edge lines repeating across pages) and bare page numbers."""
    counts: Counter[str] = Counter()
    if len(pages) >= MIN_PAGES_FOR_REPEATS:
        for lines in pages:
            edge = lines[:EDGE_LINES] + lines[-EDGE_LINES:]
            counts.update({_boilerplate_key(line) for line in edge if line.strip()})
    threshold = max(2, int(REPEAT_SHARE * len(pages) + 0.999))
    repeated = {key for key, n in counts.items() if n >= threshold}
    cleaned: list[list[str]] = []
    for lines in pages:
        keep: list[str] = []
        last = len(lines) - 1
        for index, line in enumerate(lines):
            at_edge = index < EDGE_LINES or index > last - EDGE_LINES
            stripped = line.strip()
            if not stripped:
                continue
            if at_edge and (_PAGE_NUMBER.match(stripped) or _boilerplate_key(line) in repeated):
                continue
            keep.append(stripped)
        cleaned.append(keep)
    return cleaned


def _is_heading(line: str, previous_ended: bool, typical: float) -> bool:
    if len(line) > MAX_HEADING_CHARS or len(line.split()) > MAX_HEADING_WORDS:
        return False
    if _KNOWN_HEADING_WORDS.match(line.rstrip(".:")):
        return True
    if not previous_ended or line.endswith((".", ",", ";")) or len(line) > typical * 0.8:
        return False
    match = _NUMBERED_HEADING.match(line)
    # "2 Related Work", "3.1 Data", "IV. RESULTS"; not "3 The model runs ..." prose lines.
    return match is not None and not re.search(r"\d[\d.,%]*\s*$", line)


def _typical_length(lines: list[str]) -> float:
    lengths = sorted(len(line) for line in lines if len(line) > 10)
    if not lengths:
        return 80.0
    return float(lengths[int(len(lengths) * 0.8) - 1 if len(lengths) > 1 else 0])


def _join(lines: list[str]) -> str:
    text = ""
    for line in lines:
        if not text:
            text = line
        elif text.endswith("-") and line[:1].islower():
            # A hyphen kept at a line end belongs to a compound ("state-of-" + "the-art").
            text += line
        else:
            text += " " + line
    return text


def lines_to_blocks(pages: list[list[str]]) -> list[Block]:
    """Group each page's lines into blocks; a paragraph cut by a page break `continues`."""
    blocks: list[Block] = []
    for page_number, lines in enumerate(pages, start=1):
        typical = _typical_length(lines)
        current: list[str] = []
        kind = PARAGRAPH
        first_on_page = True

        def flush(current: list[str] = current, page_number: int = page_number) -> None:
            nonlocal kind, first_on_page
            if not current:
                return
            text = _join(current)
            continues = (
                first_on_page
                and kind == PARAGRAPH
                and bool(blocks)
                and blocks[-1].kind == PARAGRAPH
                and not _TERMINAL.search(blocks[-1].text)
                and text[:1].islower()
            )
            blocks.append(Block(kind, text, page_number, continues))
            first_on_page = False
            current.clear()
            kind = PARAGRAPH

        previous_ended = True
        for line in lines:
            if _is_heading(line, previous_ended, typical):
                flush()
                blocks.append(Block(HEADING, line, page_number))
                first_on_page = False
                previous_ended = True
                continue
            if _CAPTION.match(line) or (_BULLET.match(line) and previous_ended):
                flush()
                kind = CAPTION if _CAPTION.match(line) else LIST_ITEM
            current.append(line)
            ended = bool(_TERMINAL.search(line))
            if ended and len(line) < typical * SHORT_LINE_SHARE:
                flush()
            previous_ended = ended
        flush()
    return _move_floats_out_of_sentences(blocks)


def _move_floats_out_of_sentences(blocks: list[Block]) -> list[Block]:
    """A figure/table caption typeset in the middle of a paragraph ("... (e.g., Xiong et al.,"
    / "Figure 1: ..." / "2017). We ...") is moved after the paragraph's continuation, which is
    then joined to the paragraph so that the sentence and its citation stay whole."""
    out = list(blocks)
    index = 1
    while index < len(out) - 1:
        previous, current = out[index - 1], out[index]
        if (
            current.kind == CAPTION
            and previous.kind == PARAGRAPH
            and not _TERMINAL.search(previous.text)
        ):
            follow = index + 1
            while follow < len(out) and out[follow].kind == CAPTION:
                follow += 1
            if follow < len(out) and out[follow].kind == PARAGRAPH:
                continuation = out[follow]
                floats = out[index:follow]
                out[index : follow + 1] = [
                    Block(PARAGRAPH, continuation.text, continuation.page, continues=True),
                    *floats,
                ]
                index += len(floats) + 1
                continue
        index += 1
    return out
