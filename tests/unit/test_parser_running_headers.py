"""Running headers, footers and page numbers stay out of the document text and its chunks.

citeproof.devkit.pdfgen prints "<authors> — <title>…" at the top of every page from page 2 and the
page number at the bottom. A two-page paper therefore prints its header once: repetition cannot tell
it from body text, its small type and the white space under it can. The header used to leak into
chunks (a judge quoted "van Dijk and Janssen — Diurnal and seasonal dynamics…" as evidence), and in
one source it sat in the middle of a sentence that runs over the page break.
"""

from __future__ import annotations

import re
from pathlib import Path

import msgspec
import pytest

pytest.importorskip("reportlab", reason="needs the pdfgen extra: pip install -e 'devkit'")

from citeproof.devkit.pdfgen import DocumentSpec, parse_source, render_pdf, running_header
from citeproof.devkit.pdfgen.fonts import body_font_family
from citeproof.parser.blocks import LineBox
from citeproof.parser.extract import parse_bytes
from citeproof.parser.layout import remove_page_furniture
from citeproof.parser.parsed import ParsedDocument
from citeproof.parser.settings import ParserSettings

DEMO_SOURCES = sorted(
    (Path(__file__).resolve().parents[2] / "samples" / "demo" / "sources").glob("*.md")
)


def flat(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def parse_spec(spec: DocumentSpec) -> ParsedDocument:
    pdf = render_pdf(spec)
    return parse_bytes(pdf, "source.pdf", "application/pdf", ParserSettings(), kind="source")


def assert_no_furniture_and_body_intact(spec: DocumentSpec, document: ParsedDocument) -> None:
    header = flat(body_font_family().printable(running_header(spec)))
    # The header's text up to its ellipsis, and its distinctive "authors —" lead.
    lead = header.split(" — ")[0] + " — "
    assert header not in flat(document.text)
    assert lead not in document.text
    for chunk in document.chunks:
        assert lead not in chunk.text, chunk.text
        assert header.rstrip("…") not in flat(chunk.text)
    # No bare page number line survives either.
    assert not re.search(r"(?m)^\d{1,3}$", document.text)
    # Every paragraph of the body is in the text, whole (page breaks inside it are joined).
    text = flat(document.text)
    for section in spec.sections:
        for paragraph in section.paragraphs:
            assert flat(body_font_family().printable(paragraph)) in text


@pytest.mark.parametrize("source", DEMO_SOURCES, ids=lambda path: path.stem)
def test_two_page_demo_sources_lose_their_single_running_header(source: Path) -> None:
    spec = parse_source(source.read_text(encoding="utf-8"))
    document = parse_spec(spec)
    assert document.pages == 2
    assert_no_furniture_and_body_intact(spec, document)


def test_multi_page_source_loses_the_header_on_every_page() -> None:
    spec = parse_source((DEMO_SOURCES[-1]).read_text(encoding="utf-8"))
    # The Rotterdam source five times over: the header on every page but the first.
    longer = msgspec.structs.replace(spec, sections=spec.sections * 5)
    document = parse_spec(longer)
    assert document.pages >= 4
    assert_no_furniture_and_body_intact(longer, document)


def test_first_page_title_block_is_kept() -> None:
    spec = parse_source(DEMO_SOURCES[0].read_text(encoding="utf-8"))
    document = parse_spec(spec)
    first_page = flat(document.text[: document.page_starts[1]])
    assert first_page.startswith(flat(spec.title))
    assert spec.doi in first_page
    assert document.meta.doi == spec.doi


# Line boxes as pypdfium2 reports them (PDF units, y up): an 8.5 pt header at y 800, then
# 10.5 pt body lines every 13 pt from y 770 down.
HEADER_BOX = LineBox(size=8.5, top=808.0, bottom=798.0)


def body_boxes(count: int, size: float = 10.5, first_top: float = 770.0) -> list[LineBox]:
    return [
        LineBox(size=size, top=first_top - 13 * n, bottom=first_top - 13 * n - 12)
        for n in range(count)
    ]


def body(page: int) -> list[str]:
    return [f"Body line {n} of page {'ABCDEFGH'[page]} continues the paragraph" for n in range(6)]


BODY = body(0)


def test_small_header_with_white_space_below_is_dropped_from_page_two_only() -> None:
    first = ["Journal of Tests, volume one", *BODY]
    second = ["Smith et al. — A title that is cut…", *body(1)]
    boxes = [HEADER_BOX, *body_boxes(6)]
    assert remove_page_furniture([first, second], [boxes, boxes]) == [first, body(1)]


def test_top_lines_that_are_not_a_header_are_kept() -> None:
    same_size = [LineBox(size=10.5, top=808.0, bottom=796.0), *body_boxes(6)]
    no_gap = [LineBox(size=8.5, top=782.0, bottom=772.0), *body_boxes(6)]
    caption = ["Table 2: Results on the test set.", *body(1)]
    for lines, boxes in [
        (["A first line in body type", *body(1)], same_size),
        (["Model  P  R  F1", *body(1)], no_gap),
        (caption, [HEADER_BOX, *body_boxes(6)]),
    ]:
        assert remove_page_furniture([BODY, lines], [body_boxes(6), boxes]) == [BODY, lines]


def test_header_after_a_top_page_number_and_two_line_headers() -> None:
    page_number_first = ["2", "Journal of Tests 1 (2024)", *body(1)]
    boxes = [LineBox(size=9, top=820.0, bottom=810.0), HEADER_BOX, *body_boxes(6)]
    two_lines = ["Journal of Tests 1 (2024)", "Smith et al.", *body(2)]
    two_line_boxes = [
        LineBox(size=8.5, top=820.0, bottom=810.0),
        HEADER_BOX,
        *body_boxes(6),
    ]
    cleaned = remove_page_furniture(
        [BODY, page_number_first, two_lines], [body_boxes(6), boxes, two_line_boxes]
    )
    assert cleaned == [BODY, body(1), body(2)]


def test_repeated_footer_on_both_pages_of_a_two_page_document() -> None:
    pages = [
        ["Urban Climate Letters 12(3), 155–170", "First page body.", "1"],
        ["Second page body.", "Urban Climate Letters 12(3), 156–170", "2"],
    ]
    assert remove_page_furniture(pages) == [["First page body."], ["Second page body."]]


def test_repeated_header_with_typographic_variants_and_a_chapter_header() -> None:
    # Dashes and ellipses printed differently, and a chapter's header on 3 of 10 pages.
    words = "alpha beta gamma delta epsilon zeta eta theta iota kappa".split()
    pages = [[f"Unique body text {word}."] for word in words]
    for n, variant in [(1, "Smith — A study…"), (2, "Smith – A study..."), (3, "Smith - A study…")]:
        pages[n].insert(0, variant)
    for n in (5, 6, 7):
        pages[n].insert(0, f"Chapter 3. Methods {n + 1}")
    cleaned = remove_page_furniture(pages)
    assert cleaned == [[f"Unique body text {word}."] for word in words]


def test_numbers_and_lines_repeated_once_or_off_the_edge_are_kept() -> None:
    pages = [
        ["0.5 0.3 0.1", *body(0)[:3], "Same sentence in the middle.", *body(0)[3:], "(3)"],
        ["0.5 0.3 0.1", *body(1)[:3], "Same sentence in the middle.", *body(1)[3:], "(3)"],
        ["Only once at the top", *body(2)],
    ]
    assert remove_page_furniture(pages) == [[line for line in page] for page in pages]
