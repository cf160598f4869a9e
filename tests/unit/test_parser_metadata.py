"""Document metadata from PDF info, first-page layout and text patterns."""

from __future__ import annotations

import pytest

from citeproof.parser.blocks import FileFacts
from citeproof.parser.extract import parse_bytes
from citeproof.parser.metadata import extract_metadata, find_doi
from citeproof.parser.settings import ParserSettings


def test_doi_pattern_strips_trailing_punctuation() -> None:
    assert find_doi("see https://doi.org/10.1145/3544548.3580847.") == "10.1145/3544548.3580847"
    assert find_doi("DOI: 10.18653/V1/2020.acl-main.447)") == "10.18653/v1/2020.acl-main.447"
    assert find_doi("no identifier here 10.12/x") is None


def test_junk_metadata_titles_fall_back_to_layout() -> None:
    facts = FileFacts(
        info={"Title": "Microsoft Word - draft3.docx", "CreationDate": "D:20190102"},
        first_page_lines=[
            ("Preprint under review", 8.0),
            ("Checking Citations at", 17.2),
            ("Scale With Retrieval", 17.2),
            ("Ada Lovelace, Alan Turing and Grace Hopper", 11.0),
            ("University of Somewhere", 10.0),
            ("Abstract", 12.0),
        ],
    )
    meta = extract_metadata(facts, [], "Preprint under review")
    assert meta.title == "Checking Citations at Scale With Retrieval"
    assert meta.authors == ["Ada Lovelace", "Alan Turing", "Grace Hopper"]
    assert meta.year == 2019


def test_arxiv_identifier_gives_the_year() -> None:
    meta = extract_metadata(FileFacts(), [], "arXiv:1706.09498v1 [cs.CV] 29 Jun 2017")
    assert meta.year == 2017


@pytest.mark.parametrize(
    ("name", "title", "first_author", "year", "doi"),
    [
        ("N18-3011.pdf", "Construction of the Literature Graph in Semantic Scholar",
         "Waleed Ammar", 2018, None),
        ("2020.acl-main.447.pdf", "S2ORC: The Semantic Scholar Open Research Corpus",
         "Kyle Lo", 2020, None),
        ("2302.07302v1.pdf", "CiteSee: Augmenting Citations in Scientific Papers with "
         "Persistent and Personalized Historical Context", "Joseph Chee Chang", 2023,
         "10.1145/3544548.3580847"),
        ("1706.09498v1.pdf", "Real-time Distracted Driver Posture Classification",
         "Yehya Abouelnaga", 2017, None),
    ],
)  # fmt: skip
def test_real_papers(shared_data, name, title, first_author, year, doi) -> None:
    path = shared_data / "papers" / name
    if not path.is_file():
        pytest.skip(f"{name} absent")
    meta = parse_bytes(path.read_bytes(), name, None, ParserSettings()).meta
    assert meta.title == title
    assert meta.authors[0] == first_author
    assert meta.year == year
    assert meta.doi == doi


def test_html_citation_meta_tags() -> None:
    page = b"""<html><head><title>Site | Paper</title>
    <meta name="citation_title" content="Grounded Claims in Practice">
    <meta name="citation_author" content="Lovelace, Ada">
    <meta name="citation_author" content="Alan Turing">
    <meta name="citation_doi" content="10.1234/abc.5678">
    <meta name="citation_publication_date" content="2021/05/01"></head>
    <body><h1>Grounded Claims in Practice</h1><p>Body text of the paper.</p></body></html>"""
    meta = parse_bytes(page, "p.html", None, ParserSettings()).meta
    assert meta.title == "Grounded Claims in Practice"
    assert meta.doi == "10.1234/abc.5678"
    assert meta.year == 2021
    assert meta.authors == ["Ada Lovelace", "Alan Turing"]


def test_docx_core_properties() -> None:
    import io

    import docx

    document = docx.Document()
    document.core_properties.title = "Evidence Retrieval for Theses"
    document.core_properties.author = "Grace Hopper"
    document.add_paragraph("Some body text for the document.")
    out = io.BytesIO()
    document.save(out)
    meta = parse_bytes(out.getvalue(), "t.docx", None, ParserSettings()).meta
    assert meta.title == "Evidence Retrieval for Theses"
    assert meta.authors == ["Grace Hopper"]


def test_year_from_the_articles_own_citation_line_beats_years_in_prose() -> None:
    for first_page, year in [
        ("A Title\nAna Souza\nUrban Climate Letters 14(2), 101–118, 2021\nDOI: 10.5555/x", 2021),
        ("A Title\nAna Souza\nJournal of Things 31 (2019) 45–60\nReceived May 2017.", 2019),
        ("A Title\nUrban Letters 12(3), 155–170, 2019\nThe journal printed in July 2016.", 2019),
        ("A Title\nBuilding and Environment Reports 9, 377–392, 2020\nAbstract", 2020),
    ]:
        info = {"CreationDate": "D:20000101000000"}
        assert extract_metadata(FileFacts(info=info), [], first_page).year == year
