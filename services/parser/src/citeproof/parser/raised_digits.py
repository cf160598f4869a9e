"""Superscript citation numbers in DOCX and HTML, made visible before the text is extracted.

Word keeps "spread¹" as a run "1" formatted ``<w:vertAlign w:val="superscript"/>``; HTML as
``<sup>1</sup>``. Text extraction drops the formatting and leaves "spread1", a number glued to a
word. Runs of digits (with list and range separators) set as superscripts are rewritten as
Unicode superscript digits, which the thesis analysis reads as numeric markers. Nothing else in
the file changes.
"""

from __future__ import annotations

import io
import re
import zipfile

from citeproof.parser.superscripts import SUPERSCRIPT_DIGITS

# What a superscript citation holds: "1", "2,5", "3-7", "2, 4–6".
_CITATION_NUMBERS = re.compile(r"\s*\d{1,3}(?:\s*[,\-–]\s*\d{1,3})*\s*")

_DOCX_BODY = "word/document.xml"
# One run of a WordprocessingML paragraph, and the parts of it that matter here. Runs never
# nest, so a non-greedy match from "<w:r>" (or "<w:r " with attributes) to "</w:r>" is one run.
_RUN = re.compile(r"<w:r(?:\s[^>]*)?>.*?</w:r>", re.DOTALL)
_SUPERSCRIPT_PROPERTY = re.compile(r"<w:vertAlign\s+w:val=\"superscript\"\s*/>")
_RUN_TEXT = re.compile(r"(<w:t(?:\s[^>]*)?>)([^<]*)(</w:t>)")
_HTML_SUP = re.compile(r"(<sup(?:\s[^>]*)?>)([^<]*)(</sup>)", re.IGNORECASE)


def _raised(text: str) -> str:
    if not _CITATION_NUMBERS.fullmatch(text):
        return text
    return re.sub(r"\s+", "", text).translate(SUPERSCRIPT_DIGITS)


def _docx_run(match: re.Match[str]) -> str:
    run = match.group(0)
    if not _SUPERSCRIPT_PROPERTY.search(run):
        return run
    return _RUN_TEXT.sub(lambda t: t.group(1) + _raised(t.group(2)) + t.group(3), run)


def docx_with_raised_digits(data: bytes) -> bytes:
    """The DOCX with superscript digit runs of its body as Unicode superscripts (unchanged when
    it has none). The archive was checked for size bombs by the caller."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        if _DOCX_BODY not in archive.namelist():
            return data
        body = archive.read(_DOCX_BODY).decode("utf-8")
        rewritten = _RUN.sub(_docx_run, body)
        if rewritten == body:
            return data
        output = io.BytesIO()
        with zipfile.ZipFile(output, "w", zipfile.ZIP_DEFLATED) as copy:
            for item in archive.infolist():
                content = archive.read(item.filename)
                if item.filename == _DOCX_BODY:
                    content = rewritten.encode("utf-8")
                copy.writestr(item, content)
    return output.getvalue()


def html_with_raised_digits(text: str) -> str:
    """``<sup>2,5</sup>`` becomes ``<sup>²,⁵</sup>``; other superscripts stay as they are."""
    return _HTML_SUP.sub(lambda m: m.group(1) + _raised(m.group(2)) + m.group(3), text)
