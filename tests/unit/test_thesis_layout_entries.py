"""Reference lists split by the page layout: one entry per line with a gap after it, no full stop
after titles, titles ending in "?", web references without a journal - every entry found, and
every marker linked to its own entry. Rendered to PDF and DOCX by the thesis renderer."""

from __future__ import annotations

import shutil

import msgspec
import pytest

from citeproof.devkit.pdfgen.citestyles import (
    STYLE_APA,
    STYLE_AUTHOR_YEAR,
    STYLE_AUTHOR_YEAR_BARE,
    STYLE_CHICAGO_FOOTNOTES,
    STYLE_CHICAGO_NOTES,
    STYLE_NUMERIC,
    Claim,
    ThesisContent,
    Work,
    styled,
)
from citeproof.devkit.pdfgen.thesis_layout import Layout, render_thesis_docx, render_thesis_pdf
from citeproof.parser.extract import parse_bytes
from citeproof.parser.settings import ParserSettings
from citeproof.parser.thesis import analyze_thesis

_PEOPLE = [
    (("Ana", "García"), ("Piotr", "Novak")),
    (("Jonas", "Müller"),),
    (("Pieter", "van Dijk"), ("Linh", "Nguyen"), ("Eva", "Weber")),
    (("Siobhan", "O'Brien"),),
    (("Hiroshi", "Tanaka"), ("Ingrid", "Øberg")),
    (("Sofia", "Lindqvist"), ("Markus", "Hofer"), ("Claire", "Moreau"), ("Chidi", "Okafor")),
    (("Luca", "Rossi"),),
    (("Élodie", "Dubois"), ("Wei", "Chen")),
    (("Antonio", "Silva"),),
    (("Jean-Paul", "Fischer"), ("Ana", "Costa"), ("Eva", "Kim")),
]
_TITLES = [
    "Do masks reduce household transmission?",
    "Saliva testing for SARS-CoV-2 in schools",
    "Ventilation rates and aerosol decay in classrooms",
    "Is seroprevalence underestimated in rural districts?",
    "Hand hygiene compliance in long-term care",
    "Vitamin D and the severity of respiratory infection",
    "Contact tracing apps and their uptake",
    "Reinfection after mild disease: a cohort study",
    "What drives vaccine hesitancy?",
    "Wastewater surveillance as an early warning",
]


def _content() -> ThesisContent:
    works = []
    for index, (authors, title) in enumerate(zip(_PEOPLE, _TITLES, strict=True)):
        web = index in (3, 6)
        works.append(
            Work(
                key=f"w{index}",
                authors=authors,
                year=2018 + index % 4,
                title=title,
                venue=None if web else "Journal of Infection",
                volume=None if web else 10 + index,
                pages=None if web else f"{index + 1}–{index + 9}",
                doi=None if web else f"10.5555/w{index}",
                url=f"https://www.example.org/reports/w{index}" if web else None,
            )
        )
    claims = [
        Claim(f"Finding number {index} holds in the studied population of patients", (f"w{index}",))
        for index in range(10)
    ]
    claims.append(Claim("Two studies agree on the main effect of the measure", ("w1", "w4")))
    return ThesisContent(
        title="A review", author="A. Student", works=tuple(works), claims=tuple(claims)
    )


# One entry per line, a visible gap after each, no indent: the layout of the reported thesis.
GAP_NO_INDENT = Layout(hanging_indent_mm=0.0, entry_gap_pt=8.0, first_line_indent_mm=0.0)
HANGING_NO_GAP = Layout(hanging_indent_mm=7.0, entry_gap_pt=0.0)
TWO_COLUMNS = Layout(columns=2, hanging_indent_mm=0.0, entry_gap_pt=5.0, body_size=9.5)


def _check(style: str, data: bytes, filename: str) -> None:
    thesis = styled(_content(), style)
    parsed = parse_bytes(data, filename, None, ParserSettings(), kind="thesis")
    analysis = parsed.analysis
    assert analysis is not None
    found = [" ".join(reference.raw.split()) for reference in analysis.references]
    expected = [
        " ".join(f"{label} {text}".split()) if label else text for label, text in thesis.entries
    ]
    expected = [text.split(" ", 1)[1] if style == STYLE_NUMERIC else text for text in expected]
    assert found == expected
    by_label = dict(
        zip((r.label for r in analysis.references), thesis.entry_work_keys, strict=True)
    )
    linked = sorted(
        (c.claim_text[:16], by_label[c.reference_label])
        for c in analysis.citations
        if c.reference_label
    )
    assert len(linked) == len(thesis.citations)
    assert all(c.reference_label is not None for c in analysis.citations)


@pytest.mark.parametrize(
    "layout", [GAP_NO_INDENT, HANGING_NO_GAP, TWO_COLUMNS], ids=["gap", "hanging", "columns"]
)
@pytest.mark.parametrize(
    "style", [STYLE_AUTHOR_YEAR_BARE, STYLE_AUTHOR_YEAR, STYLE_APA, STYLE_NUMERIC]
)
def test_pdf_reference_list_is_split_by_layout(style: str, layout: Layout) -> None:
    _check(style, render_thesis_pdf(styled(_content(), style), layout), "thesis.pdf")


# Not GAP_NO_INDENT: on this two-page document the page furniture rule takes "Infection 17
# (2021): 8-16." at the foot of page 1 and "Infection 10 (2018): 1-9." at the top of page 2 for
# one running footer (digits are ignored there); the style matrix covers that layout on ten pages.
@pytest.mark.parametrize("layout", [HANGING_NO_GAP, TWO_COLUMNS], ids=["hanging", "columns"])
def test_chicago_notes_link_through_their_notes(layout: Layout) -> None:
    style = STYLE_CHICAGO_NOTES
    _check(style, render_thesis_pdf(styled(_content(), style), layout), "thesis.pdf")


@pytest.mark.parametrize(
    "layout",
    [HANGING_NO_GAP, msgspec.structs.replace(TWO_COLUMNS, note_number_raised=False)],
    ids=["hanging-raised-numbers", "columns-numbers-on-the-line"],
)
def test_notes_at_the_page_foot_carry_the_citations(layout: Layout) -> None:
    thesis = styled(_content(), STYLE_CHICAGO_FOOTNOTES)
    _check(STYLE_CHICAGO_FOOTNOTES, render_thesis_pdf(thesis, layout), "thesis.pdf")


@pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice is not installed")
def test_word_footnotes_converted_to_pdf_by_libreoffice_carry_the_citations() -> None:
    from bench._extraction_styles import libreoffice_pdf

    thesis = styled(_content(), STYLE_CHICAGO_FOOTNOTES)
    data = libreoffice_pdf(render_thesis_docx(thesis, HANGING_NO_GAP))
    _check(STYLE_CHICAGO_FOOTNOTES, data, "thesis.pdf")


def test_word_footnotes_carry_the_citations() -> None:
    thesis = styled(_content(), STYLE_CHICAGO_FOOTNOTES)
    _check(STYLE_CHICAGO_FOOTNOTES, render_thesis_docx(thesis, HANGING_NO_GAP), "thesis.docx")


def _as_endnotes(docx: bytes) -> bytes:
    """The same document with its footnotes turned into Word endnotes (word/endnotes.xml)."""
    import io
    import zipfile

    output = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(docx)) as source, zipfile.ZipFile(output, "w") as copy:
        for item in source.infolist():
            content = source.read(item.filename)
            if item.filename.endswith((".xml", ".rels")):
                content = content.replace(b"footnote", b"endnote")
            copy.writestr(item.filename.replace("footnote", "endnote"), content)
    return output.getvalue()


def test_word_endnotes_carry_the_citations() -> None:
    thesis = styled(_content(), STYLE_CHICAGO_FOOTNOTES)
    data = _as_endnotes(render_thesis_docx(thesis, GAP_NO_INDENT))
    _check(STYLE_CHICAGO_FOOTNOTES, data, "thesis.docx")


def test_docx_reference_list_is_split_by_paragraphs() -> None:
    style = STYLE_AUTHOR_YEAR_BARE
    _check(style, render_thesis_docx(styled(_content(), style), GAP_NO_INDENT), "thesis.docx")


def test_an_entry_after_a_blank_line_starts_even_when_the_one_before_ends_without_a_full_stop():
    text = (
        "Body (García and Novak, 2018; Müller, 2019).\n\nReferences\n\n"
        "García, A. and Novak, P. (2018) Do masks reduce household transmission?\n\n"
        "Müller, J. (2019) Saliva testing for SARS-CoV-2 in schools "
        "https://www.example.org/w1\n"
    )
    analysis = analyze_thesis(text, [0])
    assert [r.label for r in analysis.references] == ["Garcia2018", "Muller2019"]
    assert [c.reference_label for c in analysis.citations] == ["Garcia2018", "Muller2019"]


def test_an_author_list_running_over_a_blank_line_is_not_split():
    text = (
        "Body (García et al., 2018).\n\nReferences\n\n"
        "García, A., Novak, P., and\n\nWeber, E. (2018). Do masks reduce transmission? Journal 3.\n"
    )
    analysis = analyze_thesis(text, [0])
    assert [r.label for r in analysis.references] == ["Garcia2018"]


def test_the_last_entry_keeps_its_doi_on_a_line_of_its_own():
    text = (
        "Body (García and Novak, 2018).\n\nReferences\n\n"
        "García, A. and Novak, P. (2018). Masks at home. Journal of Infection, 3, 1–9.\n\n"
        "https://doi.org/10.5555/w0\n"
    )
    (reference,) = analyze_thesis(text, [0]).references
    assert reference.doi == "10.5555/w0"


def test_inside_a_laid_out_list_only_an_entry_start_opens_a_block():
    from citeproof.parser.layout import lines_to_blocks

    first = "Sato, H. and Kim, W. 2022. Factors Associated With Mental Health Outcomes Among"
    second = "García, A. and Novak, P. (2020). Masks at home and in the wider household setting."
    continuation = "Exposed to Coronavirus Disease 2019. BMJ Open 32, 221–562."
    pages = [
        ["References", first, "Health Care Workers"],
        [continuation, second, "Journal 3, 1–9.", "https://doi.org/10.5555/w0"],
    ]
    blocks = lines_to_blocks(pages, [[first], [second]])
    assert [(block.text, block.continues) for block in blocks] == [
        ("References", False),
        (f"{first} Health Care Workers", False),
        # The page broke the entry: its continuation is joined, never a new entry.
        (continuation, True),
        (f"{second} Journal 3, 1–9.", False),
        # A short last line ended the block early: the DOI still belongs to the entry.
        ("https://doi.org/10.5555/w0", True),
    ]


def test_a_lone_entry_start_in_a_column_is_found_by_the_edge_of_its_other_pages():
    from citeproof.parser.blocks import LineBox
    from citeproof.parser.reference_layout import reference_entry_starts

    def box(left: float, bottom: float) -> LineBox:
        return LineBox(size=10.0, top=bottom + 10, bottom=bottom, left=left)

    # Page 1 (hanging indent: starts at 79, continuations at 99; right column 318 / 338).
    first = [
        "References",
        "Aalto, H. (2020). A title",
        "that runs on.",
        "Berg, K. (2021). Another",
        "title here.",
    ]
    first_boxes = [box(79, 700), box(79, 680), box(99, 668), box(318, 700), box(338, 688)]
    # Page 3 (same parity): the right column holds one start among continuation lines, and the
    # page number sits near the middle.
    third = [
        "Sweden. Clinical Reviews,",
        "38, 186–560.",
        "Yilmaz, H. (2021).",
        "Detection of immunity.",
        "7",
    ]
    third_boxes = [
        box(338.6, 700),
        box(338.6, 688),
        box(318.7, 670),
        box(338.6, 658),
        box(294.8, 30),
    ]
    pages = [first, ["Continued."], third]
    boxes = [first_boxes, [box(99, 700)], third_boxes]
    starts = reference_entry_starts(pages, boxes, [595.0, 595.0, 595.0])
    assert "Yilmaz, H. (2021)." in starts[2]
    assert "Detection of immunity." not in starts[2] and "7" not in starts[2]


@pytest.mark.parametrize("tag", ["p", "li"])
def test_html_entries_are_their_paragraphs_or_list_items(tag: str) -> None:
    entries = [
        "García, A. and Novak, P. (2018) Do masks reduce household transmission?",
        "Müller, J. (2019) Saliva testing for SARS-CoV-2 in schools https://www.example.org/w1",
        "O'Brien, S. (2021) Is seroprevalence underestimated in rural districts",
    ]
    wrapper = ("<ul>", "</ul>") if tag == "li" else ("", "")
    html = (
        "<html><body><h2>Introduction</h2><p>Masks help (García and Novak, 2018). Saliva works"
        " (Müller, 2019). Rural rates are low (O'Brien, 2021).</p><h2>References</h2>"
        + wrapper[0]
        + "".join(f"<{tag}>{entry}</{tag}>" for entry in entries)
        + wrapper[1]
        + "</body></html>"
    )
    parsed = parse_bytes(html.encode(), "thesis.html", None, ParserSettings(), kind="thesis")
    assert parsed.analysis is not None
    assert [r.raw for r in parsed.analysis.references] == entries
    assert [c.reference_label for c in parsed.analysis.citations] == [
        "Garcia2018",
        "Muller2019",
        "Obrien2021",
    ]


def test_a_line_pdfium_joined_at_a_hyphen_is_no_gap_between_entries():
    from citeproof.parser.blocks import LineBox
    from citeproof.parser.reference_layout import reference_entry_starts

    def box(bottom: float, end_bottom: float | None = None) -> LineBox:
        return LineBox(size=10.0, top=bottom + 10, bottom=bottom, left=72, end_bottom=end_bottom)

    # No indent; a gap of 6 pt after each entry (pitch 14 inside, 20 between). The third entry's
    # first line ends "Health-" and pdfium joined "Protective Behavior ..." to it: the line's
    # text runs over two printed lines, so the line after it starts two pitches lower.
    lines = [
        "References",
        "Aalto, Hanna. A first title. Journal 1 (2020): 1–9.",
        "Berg, Karin. A second title that runs on to a second",
        "line. Journal 2 (2021): 3–8.",
        "Haddad, Ingrid. Social Capital and HealthProtective Behavior Intentions in an",
        "Influenza Pandemic. Journal 3 (2022): 308–625.",
        "Hofer, Pieter. A last title. Journal 4 (2019): 5–7.",
    ]
    boxes = [
        box(740),
        box(714),
        box(694),
        box(680),
        box(660, end_bottom=646),
        box(632),
        box(612),
    ]
    (starts,) = reference_entry_starts([lines], [boxes], [595.0])
    assert starts == [lines[1], lines[2], lines[4], lines[6]]


def test_a_modest_gap_starts_an_entry_when_the_line_opens_like_one():
    from citeproof.parser.blocks import LineBox
    from citeproof.parser.reference_layout import reference_entry_starts

    def box(bottom: float) -> LineBox:
        return LineBox(size=10.5, top=bottom + 9.5, bottom=bottom, left=64)

    # Pitch 14 inside entries; 4 pt after each entry, placed by the producer at 18.2 or 17.7
    # (the threshold of a gap by itself lies at 17.8). No full stop ends an entry.
    lines = [
        "References",
        "Ferreira, W. (2020) Masks Do More Than Protect Others, Clinical Reviews 4,",
        "95–880",
        "Fischer, S., Horvath, P. and Haddad, L. (2021) Primary exposure to SARS-CoV-2",
        "protects against reinfection in rhesus macaques, Nature Medicine 49, 142–476",
        "Haddad, I. and Larsen, M. (2022) Duration of Antibody Responses after Severe",
        "Acute Respiratory Syndrome, Journal of Hospital Infection 23, 113–867",
        "Hofer, P. (2022) Does impact assessment hold?, Journal of Infection 18, 343–453",
    ]
    bottoms = [760.0, 740.0, 726.0, 707.8, 693.8, 676.1, 662.1, 643.9]
    (starts,) = reference_entry_starts([lines], [[box(b) for b in bottoms]], [595.0])
    assert starts == [lines[1], lines[3], lines[5], lines[7]]
