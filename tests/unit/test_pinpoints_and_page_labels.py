"""Pinpoints read from every citation form into printed page numbers; block quotations; the page
numbers printed on a source's pages and their offset from the PDF's page index."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeproof.devkit.library_run import build_docx
from citeproof.parser.block_quotes import block_quote_before
from citeproof.parser.extract import parse_bytes
from citeproof.parser.page_labels import detect_page_labels
from citeproof.parser.settings import ParserSettings
from citeproof.parser.thesis import analyze_thesis
from citeproof.text.pinpoints import normalise_page_label, pinpoint_pages, roman_value

PAPERS = Path(__file__).resolve().parents[3] / "shared" / "data" / "papers"


@pytest.mark.parametrize(
    ("pinpoint", "pages"),
    [
        ("p. 5", ["5"]),
        ("pp. 5–7", ["5", "6", "7"]),
        ("pp. 5--7", ["5", "6", "7"]),
        ("pp. 1123–25", ["1123", "1124", "1125"]),
        ("S. 12f.", ["12", "13"]),
        ("pp. 5 ff.", ["5", "6", "7"]),
        ("pp. xii–xiv", ["xii", "xiii", "xiv"]),
        ("p. II", ["ii"]),
        ("ch. 2, p. 7", ["7"]),
        ("vol. 2, pp. 10-11", ["10", "11"]),
        ("see p. 5", ["5"]),
        ("5, 9", ["5", "9"]),
        ("pages 3 and 4", ["3", "4"]),
        ("p. 45n3", ["45"]),
        ("p.~5", ["5"]),
        ("12", ["12"]),
        ("ch. 2", []),
        ("fig. 3", []),
        ("Table 1", []),
        ("sec. 4.2", []),
        ("pp. 1–400", []),  # a whole book is no pinpoint
        (None, []),
    ],
)
def test_pinpoint_pages(pinpoint, pages) -> None:
    assert pinpoint_pages(pinpoint) == pages


def test_page_labels_normalise() -> None:
    assert [normalise_page_label(x) for x in ("007", "XIV", "xiv.", "iiii", "A3")] == [
        "7",
        "xiv",
        "xiv",
        None,
        None,
    ]
    assert roman_value("mcmxcix") == 1999


REFERENCES = """
García, M., Ruiz, A., and Torres, L. 2020a. Ventilation in schools. Indoor Air, 30(2):1-9.
Smith, J. 2020. Working alone. In Proceedings of Stuff.
Tanaka, H., Weber, R., and Novak, P. 2022. Aerosols indoors. Journal of Air, 7:5-9.
"""


def test_author_year_pinpoints() -> None:
    body = (
        "Masks work well in schools (Smith, 2020, p. 5). Windows help (Smith 2020: 7). "
        "Aerosols linger (Tanaka et al., 2022, pp. 5–7). As Smith (2020, p. 12) notes, rooms "
        "matter. Ventilation matters (García et al., 2020a, S. 3f.). Rooms count (Smith, 2020, "
        "pp. xii-xiv). Fans help (Smith, 2020)."
    )
    analysis = analyze_thesis(f"1 Introduction\n\n{body}\n\nReferences\n{REFERENCES}", [0])
    assert [(c.reference_label, c.pinpoint, c.pinpoint_pages) for c in analysis.citations] == [
        ("Smith2020", "p. 5", ["5"]),
        ("Smith2020", "7", ["7"]),
        ("Tanaka2022", "pp. 5–7", ["5", "6", "7"]),
        ("Smith2020", "p. 12", ["12"]),
        ("Garcia2020a", "S. 3f.", ["3", "4"]),
        ("Smith2020", "pp. xii-xiv", ["xii", "xiii", "xiv"]),
        ("Smith2020", None, []),
    ]


def test_numeric_pinpoints() -> None:
    references = "\n".join(
        f"[{n}] A. Author{n} and B. Writer. Title number {n}. Journal, 20{10 + n}."
        for n in range(1, 13)
    )
    body = "Masks work [12, p. 5]. Hands too [3, pp. 5–7]. Also [6: 4]. Gloves [2, 4]."
    analysis = analyze_thesis(f"1 Introduction\n\n{body}\n\nReferences\n{references}\n", [0])
    assert [(c.reference_label, c.pinpoint_pages) for c in analysis.citations] == [
        ("12", ["5"]),
        ("3", ["5", "6", "7"]),
        ("6", ["4"]),
        ("2", []),
        ("4", []),
    ]


def test_notes_with_pages() -> None:
    text = (
        "1 Introduction\n\nMasks work at home.¹ Ventilation matters.² Distance helps too.³\n\n"
        "Notes\n\n1. Ana García, Masks at Home (Madrid: Prensa, 2020), 12.\n"
        "2. Ibid., pp. 14–15.\n3. Jonas Müller, Saliva Testing (Berlin: Verlag, 2019), p. 3.\n\n"
        "Bibliography\n\n"
        "Fischer, Eva. Distance and Risk. Vienna: Verlag, 2018.\n\n"
        "García, Ana. Masks at Home. Madrid: Prensa, 2020.\n\n"
        "Müller, Jonas. Saliva Testing. Berlin: Verlag, 2019.\n"
    )
    analysis = analyze_thesis(text, [0])
    assert [(c.reference_label, c.pinpoint_pages) for c in analysis.citations] == [
        ("Garcia2020", ["12"]),
        ("Garcia2020", ["14", "15"]),
        ("Muller2019", ["3"]),
    ]


def test_latex_cite_pinpoints() -> None:
    tex = rb"""\documentclass{article}\begin{document}
Heat kills \cite[p.~5]{a2020}. Trees cool \citep[see][pp.~5--7]{b2021}. Roofs \cite{c2019}.
Walls \citep[ch.~3]{d2018}.
\end{document}"""
    parsed = parse_bytes(tex, "thesis.tex", None, ParserSettings(), kind="thesis")
    assert [(c.reference_label, c.pinpoint_pages) for c in parsed.analysis.citations] == [
        ("a2020", ["5"]),
        ("b2021", ["5", "6", "7"]),
        ("c2019", []),
        ("d2018", []),
    ]


@pytest.mark.parametrize("plugin", ["zotero", "mendeley"])
def test_word_citation_field_locators(plugin: str, tmp_path: Path) -> None:
    data = build_docx(plugin, tmp_path / f"{plugin}.docx")
    parsed = parse_bytes(data, f"{plugin}.docx", None, ParserSettings(), kind="thesis")
    pinned = [(c.pinpoint, c.pinpoint_pages) for c in parsed.analysis.citations if c.pinpoint]
    assert ("p. 14", ["14"]) in pinned


def test_a_zotero_locator_range_is_read() -> None:
    data = {"type": "article", "title": "Heat", "author": [{"family": "Aalto"}], "issued":
            {"date-parts": [[2023]]}}  # fmt: skip
    item = {"itemData": data, "uris": ["http://zotero.org/x/1"], "locator": "5-7",
            "label": "page"}  # fmt: skip
    code = "ADDIN ZOTERO_ITEM CSL_CITATION " + json.dumps({"citationItems": [item]})
    escaped = code.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
    body = (
        '<w:p><w:r><w:t xml:space="preserve">Heat kills many people in cities </w:t></w:r>'
        f'<w:fldSimple w:instr="{escaped}"><w:r><w:t>(Aalto, 2023, pp. 5-7)</w:t></w:r>'
        "</w:fldSimple><w:r><w:t>.</w:t></w:r></w:p>"
    )
    xml = (
        '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
        f"<w:body>{body}</w:body></w:document>"
    )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("word/document.xml", xml)
    from citeproof.parser.wordfields import field_analysis, read_citation_fields

    fields = read_citation_fields(buffer.getvalue())
    text = "Heat kills many people in cities (Aalto, 2023, pp. 5-7)."
    analysis = field_analysis(text, [0], fields)
    assert [(c.pinpoint, c.pinpoint_pages) for c in analysis.citations] == [
        ("p. 5-7", ["5", "6", "7"])
    ]


# --- block quotations ------------------------------------------------------------------------

QUOTED = (
    "Opening windows for ten minutes every hour halved the concentration of carbon dioxide in "
    "the classrooms we measured, and teachers reported fewer headaches."
)


def test_a_block_quotation_after_a_colon_closed_by_its_marker() -> None:
    text = f"The authors conclude:\n\n{QUOTED} (Smith, 2020, p. 5)\n\nNext paragraph here."
    marker = text.index("(Smith")
    assert block_quote_before(text, marker, marker + len("(Smith, 2020, p. 5)")) == QUOTED
    analysis = analyze_thesis(f"1 Introduction\n\n{text}\n\nReferences\n{REFERENCES}", [0])
    [citation] = analysis.citations
    assert citation.block_quote == QUOTED and citation.pinpoint_pages == ["5"]


@pytest.mark.parametrize(
    "text",
    [
        # running prose: the marker before the full stop
        f"The authors conclude:\n\n{QUOTED[:-1]} (Smith, 2020, p. 5).\n\nNext.",
        # no colon before the paragraph
        f"The authors conclude.\n\n{QUOTED} (Smith, 2020, p. 5)\n\nNext.",
        # text after the marker in the same paragraph
        f"The authors conclude:\n\n{QUOTED} (Smith, 2020, p. 5) This is more.\n\nNext.",
        # too short to be a block quotation
        "The authors conclude:\n\nWindows help. (Smith, 2020, p. 5)\n\nNext.",
    ],
)
def test_no_block_quotation(text) -> None:
    marker = text.index("(Smith")
    end = text.index(")", marker) + 1
    assert block_quote_before(text, marker, end) is None


# --- printed page numbers ---------------------------------------------------------------------


def _page(number_line: str | None, body: str, top: bool = False) -> list[str]:
    lines = [f"{body} line {i}." for i in range(8)]
    if number_line is None:
        return lines
    return [number_line, *lines] if top else [*lines, number_line]


def test_an_article_starting_on_a_journal_page() -> None:
    # The first page prints no number; the others print theirs at the foot.
    pages = [_page(None, "Title")] + [_page(str(1123 + i), "Body") for i in range(1, 6)]
    detected = detect_page_labels(pages)
    assert detected.labels == ["1123", "1124", "1125", "1126", "1127", "1128"]
    assert detected.offset == 1122


def test_numbers_in_running_headers_and_roman_front_matter() -> None:
    pages = [
        _page(None, "Title page"),
        _page("ii", "Abstract"),
        _page("- iii -", "Contents"),
        _page("Smith et al. 1", "Intro", top=True),
        _page("2 Journal of Things 12(3)", "Methods", top=True),
        _page("Smith et al. 3", "Results", top=True),
        _page("Page 4 of 5", "Discussion"),
    ]
    detected = detect_page_labels(pages)
    assert detected.labels == ["i", "ii", "iii", "1", "2", "3", "4"]
    assert detected.offset == -3


def test_years_and_table_numbers_are_no_page_numbers() -> None:
    pages = [_page("Annual Report 2020", "Body") for _ in range(4)]
    pages[1] = _page("Table total 17", "Body")
    detected = detect_page_labels(pages)
    assert detected.labels == [None, None, None, None] and detected.offset is None


def test_a_single_page_takes_only_a_number_on_its_own_line() -> None:
    # A venue line's year at the foot of a one-page source is no page number.
    assert detect_page_labels([_page("Journal of Things 2020", "Body")]).labels == [None]
    assert detect_page_labels([_page("17", "Body")]).labels == ["17"]
    # The year alone in the title block and the page number at the foot: the page number.
    assert detect_page_labels([["2020", *_page("1", "Body")]]).labels == ["1"]


def test_the_pdfs_own_labels_when_nothing_is_printed() -> None:
    pages = [_page(None, "Body") for _ in range(3)]
    assert detect_page_labels(pages, ["", "", ""]).labels == [None, None, None]
    assert detect_page_labels(pages, ["84", "85", "86"]).labels == ["84", "85", "86"]


@pytest.mark.parametrize(
    ("name", "first", "offset"),
    [
        ("2020.acl-main.447.pdf", "4969", 4968),  # "4970" heads each page after the first
        ("N18-3011.pdf", "84", 83),  # numbers at the foot
        ("1706.09498v1.pdf", "1", 0),  # arXiv preprint numbered from 1
        ("2302.07302v1.pdf", None, None),  # CHI format: no page numbers printed
    ],
)
def test_real_papers(name: str, first: str | None, offset: int | None) -> None:
    path = PAPERS / name
    if not path.exists():
        pytest.skip(f"{path} is absent (see ../shared/data/SOURCES.md)")
    parsed = parse_bytes(path.read_bytes(), name, None, ParserSettings())
    assert parsed.page_labels[0] == first and parsed.page_label_offset == offset
    assert len(parsed.page_labels) == parsed.pages


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=st.sampled_from(list("pPS.f–-—,;& 0123456789ivxlcdmIVX~n\n"))))
def test_any_pinpoint_reads_as_pages_or_none(text) -> None:
    pages = pinpoint_pages(text)
    assert len(pages) <= 40 and all(normalise_page_label(page) == page for page in pages)


@settings(max_examples=200, deadline=None)
@given(
    pages=st.lists(
        st.lists(st.text(alphabet=st.sampled_from(list("ab 0123456789ivx-|")), max_size=12),
                 max_size=8),
        max_size=6,
    )
)  # fmt: skip
def test_any_pages_give_a_label_or_none_for_each(pages) -> None:
    detected = detect_page_labels(pages)
    assert len(detected.labels) == len(pages)
    assert all(label is None or normalise_page_label(label) == label for label in detected.labels)
