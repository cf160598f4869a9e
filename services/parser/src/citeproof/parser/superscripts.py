"""Superscript citation markers in a PDF's text layer, made visible to the thesis analysis.

Vancouver, Nature and AMA print markers as raised small digits after a word ("spread¹", "risk²⁻⁴").
The text layer gives those digits as plain ones glued to the word ("spread1"), which reads as a
number, not a citation. The glyphs tell: set smaller than the character before them and raised
above its baseline. Such digit runs are rewritten as Unicode superscript digits, one character for
one, so offsets do not move and `thesis.markers` can find them.
"""

from __future__ import annotations

import ctypes
import re

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

# A superscript is set at most this share of the size of the character before it...
MAX_SIZE_SHARE = 0.9
# ...and its baseline sits at least this share of that size above the other's.
MIN_RISE_SHARE = 0.15

SUPERSCRIPT_DIGITS = str.maketrans("0123456789-–", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁻")
# Digits (with list and range separators) glued to the character before them, or a run after a
# space too long to be one number ("202015": a year and a raised 15).
_GLUED_DIGITS = re.compile(
    r"(?<=[^\s\d])\d{1,7}(?:[,\-–]\d{1,3})*|(?<=\s)\d{5,7}(?:[,\-–]\d{1,3})*"
)


# A number opening a line: "\r\n99." (the whole run, never a year's first digits).
_LINE_START_DIGITS = re.compile(
    r"(?P<newline>\r\n|\r|\n)(?P<digits>\d{1,3}(?:[,\-–]\d{1,3})*)(?!\d)"
)


def _size_and_baseline(
    textpage: pdfium.PdfTextPage, raw: str, text_index: int
) -> tuple[float, float] | None:
    char_index = pdfium_c.FPDFText_GetCharIndexFromTextIndex(textpage.raw, text_index)
    if (
        char_index < 0
        or chr(pdfium_c.FPDFText_GetUnicode(textpage.raw, char_index)) != raw[text_index]
    ):
        return None
    x, y = ctypes.c_double(), ctypes.c_double()
    if not pdfium_c.FPDFText_GetCharOrigin(
        textpage.raw, char_index, ctypes.byref(x), ctypes.byref(y)
    ):
        return None
    return pdfium_c.FPDFText_GetFontSize(textpage.raw, char_index), y.value


def _raised(glyph: tuple[float, float] | None, base: tuple[float, float]) -> bool:
    if glyph is None:
        return False
    size, baseline = base
    return glyph[0] <= size * MAX_SIZE_SHARE and glyph[1] >= baseline + size * MIN_RISE_SHARE


def _raised_from(textpage: pdfium.PdfTextPage, raw: str, start: int, end: int) -> int | None:
    """Where the raised part of the digit run ``raw[start:end]`` begins, or None.

    The run may begin with digits of the word itself: "COVID-19" + a raised "7" reads "COVID-197".
    Its last digit is compared with the character before the run; then digits are taken back
    while they are raised too.
    """
    # A run after a space ("of 2020" + raised "15") is measured against its own first digit.
    reference = start if raw[start - 1].isspace() else start - 1
    base = _size_and_baseline(textpage, raw, reference)
    if base is None and reference != start:
        # The character before is a hyphen pdfium removed at a line end ("COVID-" + "19⁶²"),
        # which has no glyph: measured against the run's own first digit.
        base = _size_and_baseline(textpage, raw, start)
    if base is None or base[0] <= 0:
        return None
    if not _raised(_size_and_baseline(textpage, raw, end - 1), base):
        return None
    position = end - 1
    while position > start and (
        not raw[position - 1].isdigit()
        or _raised(_size_and_baseline(textpage, raw, position - 1), base)
    ):
        position -= 1
    while position < end and not raw[position].isdigit():
        position += 1
    return position


def with_superscripts(textpage: pdfium.PdfTextPage, raw: str) -> str:
    """``raw`` (the page's text range) with raised small digit runs as superscript digits."""
    pieces: list[str] = []
    cursor = 0
    for match in _GLUED_DIGITS.finditer(raw):
        raised = _raised_from(textpage, raw, match.start(), match.end())
        if raised is None:
            continue
        pieces.append(raw[cursor:raised])
        pieces.append(raw[raised : match.end()].translate(SUPERSCRIPT_DIGITS))
        cursor = match.end()
    pieces.append(raw[cursor:])
    return _with_line_start_superscripts(textpage, raw, "".join(pieces))


def _with_line_start_superscripts(textpage: pdfium.PdfTextPage, raw: str, text: str) -> str:
    """A raised number pdfium put on a line of its own ("SARS-CoV-2" / "99. A new ..."): when it
    sits raised over the last character before the line break, it is that character's
    superscript, moved before the break ("SARS-CoV-2⁹⁹" / ". A new ..."). One character for one,
    so offsets do not move."""
    chars = list(text)
    for match in _LINE_START_DIGITS.finditer(raw):
        digits = match.group("digits")
        before = match.start() - 1
        if before < 0 or raw[before].isspace():
            continue
        base = _size_and_baseline(textpage, raw, before)
        glyph = _size_and_baseline(textpage, raw, match.end() - 1)
        # Raised over it, yet below the top of its line: the same printed line.
        if base is None or glyph is None or not _raised(glyph, base):
            continue
        if glyph[1] > base[1] + base[0]:
            continue
        moved = digits.translate(SUPERSCRIPT_DIGITS) + match.group("newline")
        chars[match.start() : match.end()] = list(moved)
    return "".join(chars)
