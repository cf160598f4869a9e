# ruff: noqa: E501, W291 - export samples keep their real long lines and "ER  - " tags
"""Reference-manager exports: BibTeX (Zotero, Better BibTeX, Mendeley, JabRef), RIS, CSL-JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citeproof.library import BIBTEX, CSL_JSON, RIS, LibraryFormatError, parse_library
from citeproof.library.attachments import (
    attachment_basename,
    find_local_attachment,
    parse_file_field,
    relative_inside,
)

ZOTERO_BIB = r"""@article{kowalczyk_street-tree_2021,
	title = {Street-tree canopy cover and summer afternoon air temperature in twelve {European} cities},
	volume = {14},
	doi = {10.5555/ucl.2021.0142},
	journal = {Urban Climate Letters},
	author = {Kowalczyk, Marta and Brandt, Daniel and Ferrer, Luc{\'i}a},
	year = {2021},
	file = {Full Text PDF:files/12/Kowalczyk et al. - 2021 - Street-tree canopy.pdf:application/pdf;Snapshot:files/13/snapshot.html:text/html},
}

@article{van_dijk_diurnal_2019,
	title = {Diurnal and seasonal dynamics of the urban heat island},
	author = {van Dijk, Pieter and Janssen, Anouk},
	date = {2019-06},
	url = {https://doi.org/10.5555/UCL.2019.0031},
}

@report{who_heat_2021,
	title = {Heat and health},
	author = {{World Health Organization}},
	year = {2021},
}
"""


def test_zotero_bibtex_entries_keys_and_attachments() -> None:
    library = parse_library(ZOTERO_BIB, "My Library.bib")
    assert library.format == BIBTEX
    assert library.problems == []
    first, second, third = library.entries
    assert first.key == "kowalczyk_street-tree_2021"
    assert first.title.startswith("Street-tree canopy cover") and "European" in first.title
    assert first.authors == ["Kowalczyk", "Brandt", "Ferrer"]
    assert first.year == 2021 and first.doi == "10.5555/ucl.2021.0142"
    assert first.venue == "Urban Climate Letters"
    assert first.line == 1
    assert [a.path for a in first.attachments] == [
        "files/12/Kowalczyk et al. - 2021 - Street-tree canopy.pdf",
        "files/13/snapshot.html",
    ]
    assert first.attachments[0].is_pdf and not first.attachments[1].is_pdf
    assert first.attachments[0].description == "Full Text PDF"
    # BibLaTeX `date`, DOI from a doi.org URL, surname particles kept.
    assert second.year == 2019 and second.doi == "10.5555/ucl.2019.0031"
    assert second.authors == ["van Dijk", "Janssen"]
    # A braced corporate author stays whole.
    assert third.authors == ["World Health Organization"]


def test_malformed_entry_is_reported_by_line_and_the_rest_is_read() -> None:
    text = ZOTERO_BIB.replace(
        "@article{van_dijk_diurnal_2019,\n\ttitle = {Diurnal",
        "@article{broken_2020,\n\ttitle = {Never closed,\n}\n\n@article{van_dijk_diurnal_2019,\n"
        "\ttitle = {Diurnal",
    )
    library = parse_library(text, "x.bib")
    keys = [e.key for e in library.entries]
    assert "kowalczyk_street-tree_2021" in keys and "who_heat_2021" in keys
    assert "broken_2020" not in keys
    assert len(library.problems) == 1
    assert library.problems[0].line == 11
    assert "line 11" in library.problems[0].describe()


@pytest.mark.parametrize(
    ("field", "expected"),
    [
        # Better BibTeX: bare paths, several separated by ';'.
        ("files/1/a.pdf;files/2/b.pdf", [("files/1/a.pdf", None), ("files/2/b.pdf", None)]),
        # Zotero on Windows: drive colon and backslashes escaped.
        (
            r"Full Text:C\:\\Users\\me\\Zotero\\storage\\AB12\\paper.pdf:application/pdf",
            [(r"C:\Users\me\Zotero\storage\AB12\paper.pdf", "application/pdf")],
        ),
        # Mendeley Desktop: empty description, $\backslash$ for backslashes, bare type.
        (
            r":C$\backslash$:/Users/me/Mendeley/Smith 2020.pdf:pdf",
            [("C:/Users/me/Mendeley/Smith 2020.pdf", "pdf")],
        ),
        # JabRef.
        (":papers/smith.pdf:PDF", [("papers/smith.pdf", "PDF")]),
    ],
)
def test_file_field_dialects(field: str, expected: list[tuple[str, str | None]]) -> None:
    assert [(a.path, a.mime) for a in parse_file_field(field)] == expected


def test_attachment_paths_never_leave_the_export(tmp_path: Path) -> None:
    assert relative_inside("files/12/a.pdf").as_posix() == "files/12/a.pdf"
    assert relative_inside("../../etc/passwd") is None
    assert relative_inside("files/../../secret.pdf") is None
    assert relative_inside("/home/me/Zotero/storage/X/a.pdf") is None
    assert relative_inside(r"C:\Users\me\a.pdf") is None
    assert attachment_basename(r"C:\Users\me\a b.pdf") == "a b.pdf"
    (tmp_path / "files" / "3").mkdir(parents=True)
    (tmp_path / "files" / "3" / "a.pdf").write_bytes(b"%PDF-1.4")
    outside = tmp_path.parent / "outside.pdf"
    outside.write_bytes(b"%PDF-1.4")
    assert find_local_attachment("files/3/a.pdf", tmp_path, allow_absolute=False) == (
        tmp_path / "files" / "3" / "a.pdf"
    )
    assert find_local_attachment(str(outside), tmp_path, allow_absolute=False) is None
    assert find_local_attachment(str(outside), tmp_path, allow_absolute=True) == outside


RIS_TEXT = """TY  - JOUR
TI  - Roof-level and street-level cooling by extensive green roofs
AU  - Hofer, Katharina
AU  - Lindqvist, Johan
PY  - 2020
DO  - 10.5555/ber.2020.0378
L1  - files/2/2-green-roofs.pdf
ER  - 

TY  - JOUR
ID  - marchetti2022
T1  - Reflective pavement coatings
A1  - Marchetti, Elena
Y1  - 2022///
UR  - https://doi.org/10.5555/ucl.2022.0219
ER  - 

TY  - JOUR
TI  - A record whose end line is missing
AU  - Osei, Kwame
PY  - 2024
"""


def test_ris_records_with_l1_attachments_and_problems() -> None:
    library = parse_library(RIS_TEXT, "export.ris")
    assert library.format == RIS
    first, second, third = library.entries
    assert first.key == "hofer2020" and first.authors == ["Hofer", "Lindqvist"]
    assert [a.path for a in first.attachments] == ["files/2/2-green-roofs.pdf"]
    assert first.doi == "10.5555/ber.2020.0378" and first.line == 1
    assert second.key == "marchetti2022" and second.year == 2022
    assert second.doi == "10.5555/ucl.2022.0219" and second.title == "Reflective pavement coatings"
    assert third.authors == ["Osei"] and third.line == 18
    assert [p.line for p in library.problems] == [18]


def test_csl_json_zotero_export() -> None:
    items = [
        {
            "id": "http://zotero.org/users/local/x/items/ABCD1234",
            "citation-key": "aalto2023",
            "type": "article-journal",
            "title": "Heat-related mortality in fourteen European cities",
            "author": [
                {"family": "Aalto", "given": "Hanna"},
                {"family": "Dijk", "given": "P.", "non-dropping-particle": "van"},
                {"literal": "EuroHeat Consortium"},
            ],
            "issued": {"date-parts": [[2023, 2]]},
            "DOI": "10.5555/EEH.2023.0057",
        },
        {"id": "item2", "type": "book", "title": "No authors", "issued": {"raw": "2001"}},
    ]
    library = parse_library(json.dumps(items), "lib.json")
    assert library.format == CSL_JSON
    first, second = library.entries
    assert first.key == "aalto2023"
    assert first.authors == ["Aalto", "van Dijk", "EuroHeat Consortium"]
    assert first.year == 2023 and first.doi == "10.5555/eeh.2023.0057"
    assert second.key == "item2" and second.year == 2001


def test_invalid_json_names_the_line_and_unknown_files_are_refused() -> None:
    with pytest.raises(LibraryFormatError) as caught:
        parse_library('[\n {"id": "a",\n  "title": }\n]', "lib.json")
    assert caught.value.line == 3 and "line 3" in caught.value.message
    with pytest.raises(LibraryFormatError):
        parse_library("just some words", "notes.txt")


def test_local_export_folder_finds_attached_pdfs_and_reports_missing(tmp_path: Path) -> None:
    from citeproof.library.local import load_local_library

    export = tmp_path / "My Collection"
    (export / "files" / "1").mkdir(parents=True)
    (export / "files" / "1" / "1-street-trees.pdf").write_bytes(b"%PDF-1.4")
    elsewhere = tmp_path / "pdfs"
    elsewhere.mkdir()
    (elsewhere / "2-green-roofs.pdf").write_bytes(b"%PDF-1.4")
    owned = tmp_path / "Zotero" / "storage" / "AB12" / "3-cool.pdf"
    owned.parent.mkdir(parents=True)
    owned.write_bytes(b"%PDF-1.4")
    (export / "My Collection.bib").write_text(
        "@article{a, title={A}, file={files/1/1-street-trees.pdf}}\n"
        "@article{b, title={B}, file={files/2/2-green-roofs.pdf}}\n"
        f"@article{{c, title={{C}}, file={{PDF:{owned}:application/pdf}}}}\n"
        "@article{d, title={D}, file={files/4/gone.pdf}}\n"
        "@article{e, title={E}, file={files/1/1-street-trees.pdf}}\n"
    )
    local = load_local_library(export, (elsewhere,))
    found = {e.key: e.found for e in local.entries}
    assert found["a"] == export / "files/1/1-street-trees.pdf"
    assert found["b"] == elsewhere / "2-green-roofs.pdf"
    assert found["c"] == owned
    assert [e.key for e in local.missing] == ["d"]
    # One upload per PDF even when two entries attach it.
    assert len(local.pdfs) == 3
    # A server-side caller does not follow absolute paths.
    assert load_local_library(export, allow_absolute=False).entries[2].found is None


ZOTERO_RDF_EXPORT = """<rdf:RDF
 xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"
 xmlns:z="http://www.zotero.org/namespaces/export#"
 xmlns:dcterms="http://purl.org/dc/terms/"
 xmlns:bib="http://purl.org/net/biblio#"
 xmlns:foaf="http://xmlns.com/foaf/0.1/"
 xmlns:link="http://purl.org/rss/1.0/modules/link/"
 xmlns:dc="http://purl.org/dc/elements/1.1/">
    <bib:Article rdf:about="http://doi.org/10.5555/ucl.2021.0142">
        <z:itemType>journalArticle</z:itemType>
        <dcterms:isPartOf rdf:resource="urn:issn:1234-5678"/>
        <bib:authors><rdf:Seq>
            <rdf:li><foaf:Person><foaf:surname>Kowalczyk</foaf:surname>
                <foaf:givenName>Marta</foaf:givenName></foaf:Person></rdf:li>
            <rdf:li><foaf:Person><foaf:surname>Brandt</foaf:surname></foaf:Person></rdf:li>
        </rdf:Seq></bib:authors>
        <link:link rdf:resource="#item_12"/>
        <link:link rdf:resource="#item_13"/>
        <dc:title>Street-tree canopy cover and summer afternoon air temperature</dc:title>
        <dc:date>2021-07</dc:date>
    </bib:Article>
    <bib:Journal rdf:about="urn:issn:1234-5678"><dc:title>Urban Climate Letters</dc:title></bib:Journal>
    <z:Attachment rdf:about="#item_12">
        <z:itemType>attachment</z:itemType>
        <rdf:resource rdf:resource="files/12/Kowalczyk et al. - 2021.pdf"/>
        <dc:title>Full Text PDF</dc:title>
        <link:type>application/pdf</link:type>
    </z:Attachment>
    <z:Attachment rdf:about="#item_13">
        <z:itemType>attachment</z:itemType>
        <rdf:resource rdf:resource="files/13/snapshot.html"/>
        <link:type>text/html</link:type>
    </z:Attachment>
    <bib:Memo rdf:about="#item_14"><z:itemType>note</z:itemType></bib:Memo>
</rdf:RDF>
"""


def test_zotero_rdf_export_with_files() -> None:
    from citeproof.library import ZOTERO_RDF

    library = parse_library('<?xml version="1.0" encoding="UTF-8"?>\n' + ZOTERO_RDF_EXPORT, "x.rdf")
    assert library.format == ZOTERO_RDF and library.problems == []
    (entry,) = library.entries
    assert entry.key == "kowalczyk2021" and entry.authors == ["Kowalczyk", "Brandt"]
    assert entry.year == 2021 and entry.doi == "10.5555/ucl.2021.0142"
    assert entry.venue == "Urban Climate Letters"
    assert [(a.path, a.is_pdf) for a in entry.attachments] == [
        ("files/12/Kowalczyk et al. - 2021.pdf", True),
        ("files/13/snapshot.html", False),
    ]
    with pytest.raises(LibraryFormatError):
        parse_library("<rdf:RDF><unclosed></rdf:RDF>", "x.rdf")


def test_format_detection_stays_linear_on_hostile_text() -> None:
    import time

    from citeproof.library.detect import detect_library_format

    started = time.process_time()
    with pytest.raises(LibraryFormatError):
        detect_library_format("\n" * 100_000 + " " * 100_000, "upload.txt")
    assert time.process_time() - started < 1.0


def test_rdf_detection_does_not_backtrack_on_comment_runs() -> None:
    import time

    from citeproof.library.detect import detect_library_format

    started = time.process_time()
    with pytest.raises(LibraryFormatError):
        detect_library_format("<!---->" * 600 + "<html>", "upload.txt")
    assert time.process_time() - started < 1.0
