"""Format detection by content."""

from __future__ import annotations

import pytest

from citeproof.parser.errors import ParseFailure
from citeproof.parser.sniff import declared_format, detect_format, mismatch_note
from tests.unit.test_parser_files import HTML_WITH_SCRIPTS, make_docx, make_pdf, paper_pages


def test_pdf_header_may_follow_junk_bytes() -> None:
    assert detect_format(b"\xef\xbb\xbf  " + make_pdf(paper_pages(1))) == "pdf"


def test_docx_is_a_zip_with_a_word_document_part() -> None:
    assert detect_format(make_docx(["Text."])) == "docx"


def test_a_zip_that_is_not_a_word_document_is_unsupported() -> None:
    import io
    import zipfile

    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("data.csv", "a,b\n")
    with pytest.raises(ParseFailure) as failure:
        detect_format(out.getvalue(), "paper.docx")
    assert failure.value.code == "unsupported_type"


def test_legacy_word_files_are_named_in_the_error() -> None:
    with pytest.raises(ParseFailure) as failure:
        detect_format(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 64, "thesis.doc")
    assert "legacy Microsoft Office" in failure.value.detail


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (HTML_WITH_SCRIPTS, "html"),
        (b"<p>One</p><p>Two</p>", "html"),
        (b"# Title\n\nBody text.", "markdown"),
        (b"Plain prose. Nothing else.", "text"),
        ("Café au lait, naïve résumé.".encode("latin-1"), "text"),
        ("\ufeffUTF-16 text here.".encode("utf-16"), "text"),
    ],
)
def test_text_formats(data: bytes, expected: str) -> None:
    assert detect_format(data) == expected


def test_markdown_by_extension_when_the_text_has_no_markup() -> None:
    assert detect_format(b"Just prose.", "notes.md") == "markdown"


def test_declared_mime_beats_extension_and_mismatch_notes() -> None:
    assert declared_format("x.bin", "application/pdf; charset=binary") == "pdf"
    assert declared_format("x.HTM", None) == "html"
    assert mismatch_note("x.pdf", None, "docx") is not None
    assert mismatch_note("x.txt", None, "markdown") is None
    assert mismatch_note("x.pdf", None, "pdf") is None
    assert mismatch_note("noextension", None, "pdf") is None


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"<!DOCTYPE html><title>x</title>", "html"),
        (b"  <?xml version='1.0'?>\n<!-- a -->\n<!-- b --> <HTML lang=en>", "html"),
        (b"<!-- one --><!-- two -->\n<!doctype   html>", "html"),
        (b"<!-- never closed <html>", "text"),
        (b"<!-- a --> not html <html>", "text"),
        (b"<?xml never closed <html>", "text"),
        (b"<htmlx>", "text"),
    ],
)
def test_html_start_after_declarations_and_comments(data: bytes, expected: str) -> None:
    assert detect_format(data) == expected


def test_empty_comments_repeated_are_sniffed_in_linear_time() -> None:
    """300 bytes of `<!---->` used to pin a parse slot: the old regex backtracked exponentially.

    Run in a child process so a regression fails after the bound instead of hanging the suite.
    """
    import subprocess
    import sys

    probe = (
        "from citeproof.parser.sniff import detect_format\n"
        "for size in (300, 64 * 1024, 4 * 1024 * 1024):\n"
        "    detect_format(b'<!---->' * (size // 7) + b'!')\n"
        "    detect_format(b'<!---->' * (size // 7) + b'<html>')\n"
    )
    subprocess.run([sys.executable, "-c", probe], check=True, timeout=20)


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"See [the paper](https://example.org/p) for details.", "markdown"),
        (b"- one\n- two\n", "markdown"),
        (b"## Heading\n\nText.", "markdown"),
        (b"#hashtag and\n\n\n-not a list", "text"),
        (b"[" * 5000 + b" not markdown", "text"),
    ],
)
def test_markdown_signals_stay_on_their_line(data: bytes, expected: str) -> None:
    assert detect_format(data) == expected
