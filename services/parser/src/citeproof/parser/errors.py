"""Stable error codes for files the parser cannot use (documented in docs/parser-errors.md).

`ParseFailure` is raised inside the parsing child; it pickles cleanly across the process
boundary and the stage turns it into the runtime's `PermanentError` (no retry: the same bytes
would fail the same way).
"""

from __future__ import annotations

from typing import Final

CORRUPT_FILE: Final = "corrupt_file"
ENCRYPTED: Final = "encrypted"
NO_TEXT_LAYER: Final = "no_text_layer"
TOO_LARGE: Final = "too_large"
TOO_MANY_PAGES: Final = "too_many_pages"
UNSUPPORTED_TYPE: Final = "unsupported_type"
EMPTY_DOCUMENT: Final = "empty_document"
ARCHIVE_BOMB: Final = "archive_bomb"
TIMEOUT: Final = "timeout"
PARSER_CRASHED: Final = "parser_crashed"
MISSING_BYTES: Final = "missing_bytes"
# A bibliography upload with no entry that could be read (not BibTeX/RIS/CSL JSON, or broken).
MALFORMED_BIBLIOGRAPHY: Final = "malformed_bibliography"

ERROR_CODES: Final = (
    CORRUPT_FILE,
    ENCRYPTED,
    NO_TEXT_LAYER,
    TOO_LARGE,
    TOO_MANY_PAGES,
    UNSUPPORTED_TYPE,
    EMPTY_DOCUMENT,
    ARCHIVE_BOMB,
    TIMEOUT,
    PARSER_CRASHED,
    MISSING_BYTES,
    MALFORMED_BIBLIOGRAPHY,
)


class ParseFailure(Exception):
    """The file cannot be parsed; `code` is one of ERROR_CODES, `detail` a sentence for people."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(code, detail)
        self.code = code
        self.detail = detail

    def __str__(self) -> str:
        return f"{self.code}: {self.detail}"
