"""Decide a file's format from its bytes; the name and declared MIME type are only hints.

A mismatch between what the upload claims and what the bytes are is not an error: the file is
parsed by content and the mismatch is noted on the document.
"""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import PurePosixPath
from typing import Final

from citeproof.parser.errors import UNSUPPORTED_TYPE, ParseFailure

PDF: Final = "pdf"
DOCX: Final = "docx"
HTML: Final = "html"
MARKDOWN: Final = "markdown"
TEXT: Final = "text"
FORMATS: Final = (PDF, DOCX, HTML, MARKDOWN, TEXT)

# PDF readers accept the header anywhere in the first KiB (some generators prepend junk).
_PDF_HEADER_WINDOW = 1024
_ZIP_MAGIC = b"PK\x03\x04"
# Recognised binaries we do not parse, so the error can say what the file is.
_KNOWN_BINARIES: Final = (
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "a legacy Microsoft Office file (.doc/.xls/.ppt)"),
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"II*\x00", "a TIFF image"),
    (b"MM\x00*", "a TIFF image"),
    (b"{\\rtf", "an RTF file"),
    (b"\x1f\x8b", "a gzip archive"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"Rar!", "a RAR archive"),
    (b"\x7fELF", "an executable"),
    (b"MZ", "a Windows executable"),
)
_TEXT_SAMPLE = 64 * 1024
# Share of control characters (besides tab/newline/CR/FF) above which decoded text is binary.
_MAX_CONTROL_SHARE = 0.02
# The start of an HTML document is recognised by a scanner (_starts_like_html), not one regex:
# "declarations and comments, repeated, then <html" as a regex nests a lazy `.*?` inside a `*`,
# which backtracks exponentially on `<!---->` repeated (300 bytes pinned a parse slot).
_SPACES = re.compile(rb"\s*")
_HTML_OPENING = re.compile(rb"<(?:!doctype\s+html|html)\b", re.IGNORECASE)
_XML_DECLARATION = b"<?xml"
_COMMENT_OPEN, _COMMENT_CLOSE = b"<!--", b"-->"
_HTML_TAGS = re.compile(rb"<(?:body|head|p|div|h[1-6]|article|section|table|br)\b[^>]*>", re.I)
# Every piece stays on its line ([ \t], no \n in the classes): with \s a run of blank lines was
# rescanned from every line start, quadratic on 64 KiB of newlines.
_MARKDOWN_SIGNALS = re.compile(
    r"^(?:#{1,6}[ \t]+\S|```|[ \t]*[-*+][ \t]+\S.*\n[ \t]*[-*+][ \t]+\S)", re.MULTILINE
)
# A [text](target) link anywhere. Neither part may contain its own brackets, so each `[` is
# scanned only up to the next one (a line of `[[[[` stays linear), and lengths are bounded.
_MARKDOWN_LINK = re.compile(r"\[[^\[\]\n]{1,300}\]\([^()\s]{1,500}\)")

_EXTENSION_FORMAT: Final = {
    ".pdf": PDF,
    ".docx": DOCX,
    ".html": HTML,
    ".htm": HTML,
    ".xhtml": HTML,
    ".md": MARKDOWN,
    ".markdown": MARKDOWN,
    ".txt": TEXT,
    ".text": TEXT,
}
_MIME_FORMAT: Final = {
    "application/pdf": PDF,
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": DOCX,
    "text/html": HTML,
    "application/xhtml+xml": HTML,
    "text/markdown": MARKDOWN,
    "text/x-markdown": MARKDOWN,
    "text/plain": TEXT,
}


def declared_format(filename: str, declared_type: str | None) -> str | None:
    """What the upload claims to be: the MIME type when it is specific, else the extension."""
    if declared_type:
        mime = declared_type.split(";", 1)[0].strip().lower()
        if mime in _MIME_FORMAT:
            return _MIME_FORMAT[mime]
    return _EXTENSION_FORMAT.get(PurePosixPath(filename or "").suffix.lower())


def decode_text(data: bytes) -> str | None:
    """The bytes as text (UTF-8/UTF-16 with BOM, UTF-8, else Latin-1) or None when binary."""
    if data.startswith(b"\xef\xbb\xbf"):
        text = data[3:].decode("utf-8", errors="replace")
    elif data.startswith((b"\xff\xfe", b"\xfe\xff")):
        text = data.decode("utf-16", errors="replace")
    else:
        if b"\x00" in data[:_TEXT_SAMPLE]:
            return None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            # Latin-1 decodes anything, so the control-character check below decides.
            text = data.decode("latin-1")
    sample = text[:_TEXT_SAMPLE]
    if sample:
        controls = sum(1 for ch in sample if ord(ch) < 32 and ch not in "\t\n\r\f")
        controls += sum(1 for ch in sample if 0x7F <= ord(ch) < 0xA0)
        if controls / len(sample) > _MAX_CONTROL_SHARE:
            return None
    return text


def _is_docx(data: bytes) -> bool:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            return "word/document.xml" in archive.namelist()
    except (zipfile.BadZipFile, ValueError, OSError):
        return False


def _starts_like_html(head: bytes) -> bool:
    """An optional XML declaration, any comments and whitespace, then `<html` or a doctype.

    Each step moves forward with find(): linear in the input, whatever it holds.
    """
    position = _SPACES.match(head).end()
    if head[position : position + len(_XML_DECLARATION)].lower() == _XML_DECLARATION:
        position = head.find(b">", position)
        if position < 0:
            return False
        position = _SPACES.match(head, position + 1).end()
    while head.startswith(_COMMENT_OPEN, position):
        position = head.find(_COMMENT_CLOSE, position + len(_COMMENT_OPEN))
        if position < 0:
            return False
        position = _SPACES.match(head, position + len(_COMMENT_CLOSE)).end()
    return _HTML_OPENING.match(head, position) is not None


def detect_format(data: bytes, filename: str = "", declared_type: str | None = None) -> str:
    """One of FORMATS, judged from the bytes. Raises ParseFailure(unsupported_type) otherwise."""
    if b"%PDF-" in data[:_PDF_HEADER_WINDOW]:
        return PDF
    if data.startswith(_ZIP_MAGIC):
        if _is_docx(data):
            return DOCX
        raise ParseFailure(
            UNSUPPORTED_TYPE,
            "The file is a ZIP archive but not a Word document (DOCX); upload PDF, DOCX, "
            "Markdown, HTML or plain text.",
        )
    for magic, what in _KNOWN_BINARIES:
        if data.startswith(magic):
            raise ParseFailure(
                UNSUPPORTED_TYPE,
                f"The file is {what}, which citeproof cannot read; upload PDF, DOCX, Markdown, "
                "HTML or plain text.",
            )
    head = data[:_TEXT_SAMPLE]
    if _starts_like_html(head) or len(_HTML_TAGS.findall(head)) >= 2:
        return HTML
    text = decode_text(data)
    if text is None:
        raise ParseFailure(
            UNSUPPORTED_TYPE,
            "The file is binary data of an unknown kind; upload PDF, DOCX, Markdown, HTML or "
            "plain text.",
        )
    if declared_format(filename, declared_type) == MARKDOWN:
        return MARKDOWN
    sample = text[:_TEXT_SAMPLE]
    if _MARKDOWN_SIGNALS.search(sample) or _MARKDOWN_LINK.search(sample):
        return MARKDOWN
    return TEXT


def mismatch_note(filename: str, declared_type: str | None, detected: str) -> str | None:
    """A note for documents.notes when the upload's claim disagrees with its content."""
    claimed = declared_format(filename, declared_type)
    if claimed is None or claimed == detected:
        return None
    # Markdown is plain text with conventions: a .txt holding Markdown is not a surprise.
    if {claimed, detected} == {MARKDOWN, TEXT}:
        return None
    return (
        f"The file was uploaded as {claimed.upper()} ({filename!r}) but its content is "
        f"{detected.upper()}; it was parsed as {detected.upper()}."
    )
