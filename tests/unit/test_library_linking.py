"""Thesis reference -> library entry -> uploaded source, and bibliography uploads as documents."""

from __future__ import annotations

import uuid

import pytest

from citeproof.contracts.thesis import Reference, SourceMeta
from citeproof.parser.errors import MALFORMED_BIBLIOGRAPHY, ParseFailure
from citeproof.parser.libraries import parse_bibliography
from citeproof.retriever.linking.through_library import (
    ENTRY_BY_AUTHORS_YEAR,
    ENTRY_BY_DOI,
    ENTRY_BY_KEY,
    ENTRY_BY_TITLE,
    ENTRY_WEAK,
    find_entry,
    link_through_library,
)
from tests.unit.test_library_files import ZOTERO_BIB


def ref(label: str, **fields) -> Reference:
    raw = fields.pop("raw", label)
    return Reference(ordinal=1, label=label, raw=raw, char_start=0, char_end=len(raw), **fields)


TREES = ref(
    "kowalczyk2021",
    authors=["Kowalczyk", "Brandt", "Ferrer"],
    year=2021,
    title="Street-tree canopy cover and summer afternoon air temperature in twelve European cities",
    doi="10.5555/ucl.2021.0142",
    attachments=["files/1/Kowalczyk - 2021 - Street trees.pdf"],
)
ROOFS = ref(
    "hofer2020",
    authors=["Hofer", "Lindqvist"],
    year=2020,
    title="Roof-level and street-level cooling by extensive green roofs",
)
LIBRARY = [TREES, ROOFS]


def test_entry_found_by_key_doi_title_and_authors_year() -> None:
    assert find_entry(ref("kowalczyk2021"), LIBRARY)[:2] == (TREES, ENTRY_BY_KEY)
    by_doi = ref("1", doi="https://doi.org/10.5555/UCL.2021.0142", authors=["Someone"])
    assert find_entry(by_doi, LIBRARY)[:2] == (TREES, ENTRY_BY_DOI)
    by_title = ref("2", title="Roof-level and street-level cooling by extensive green roofs.")
    assert find_entry(by_title, LIBRARY)[:2] == (ROOFS, ENTRY_BY_TITLE)
    by_names = ref("3", authors=["Hofer"], year=2020)
    assert find_entry(by_names, LIBRARY)[:3] == (ROOFS, ENTRY_BY_AUTHORS_YEAR, 0.85)


def test_weak_match_is_no_entry_but_candidates() -> None:
    # Same first author, another year: not this entry; shown as a candidate, never linked.
    entry, how, confidence, candidates = find_entry(ref("Hofer2019", authors=["Hofer"],
                                                        year=2019), LIBRARY)  # fmt: skip
    assert (entry, how, confidence, candidates) == (None, ENTRY_WEAK, 0.0, ["hofer2020"])
    # A numeric label equal to a key does not link when the metadata disagrees.
    numbered = ref("hofer2020", authors=["Tan"], year=2011, title="Deep sea vents")
    assert find_entry(numbered, LIBRARY)[0] is None


def test_attachment_links_exactly_and_doi_otherwise() -> None:
    trees_pdf, roofs_pdf = uuid.uuid4(), uuid.uuid4()
    filenames = {trees_pdf: "Kowalczyk - 2021 - Street trees.pdf", roofs_pdf: "roofs.pdf"}
    sources = [
        SourceMeta(document_id=trees_pdf, title="Unrelated metadata"),
        SourceMeta(document_id=roofs_pdf, title=ROOFS.title, authors=["K. Hofer"], year=2020),
    ]
    trees = link_through_library(ref("kowalczyk2021"), LIBRARY, sources, filenames)
    assert trees.link.document_id == trees_pdf
    assert trees.link.method == "library:key+attachment" and trees.link.score == 1.0
    roofs = link_through_library(ref("hofer2020"), LIBRARY, sources, filenames)
    assert roofs.link.document_id == roofs_pdf and roofs.link.method == "library:key+title"
    # Nothing in the library and nothing close: the ordinary linker decides.
    assert link_through_library(ref("x", authors=["Nobody"]), LIBRARY, sources, filenames) is None
    assert link_through_library(ref("kowalczyk2021"), [], sources, filenames) is None


def test_a_pdf_attached_to_two_entries_links_both() -> None:
    pdf = uuid.uuid4()
    both = [TREES, ref("trees-preprint", attachments=list(TREES.attachments), title="Preprint")]
    filenames = {pdf: "Kowalczyk - 2021 - Street trees.pdf"}
    for key in ("kowalczyk2021", "trees-preprint"):
        decision = link_through_library(ref(key), both, [], filenames)
        assert decision.link.document_id == pdf


def test_bibliography_upload_becomes_references_with_keys_and_notes() -> None:
    broken = ZOTERO_BIB + "\n@article{broken,\n  title = {never closed\n"
    parsed = parse_bibliography(broken.encode(), "My Library.bib")
    assert parsed.detected_type == "bibliography/bibtex" and parsed.chunks == []
    labels = [r.label for r in parsed.analysis.references]
    assert labels == ["kowalczyk_street-tree_2021", "van_dijk_diurnal_2019", "who_heat_2021"]
    first = parsed.analysis.references[0]
    # Only PDF attachments are kept as candidate sources.
    assert first.attachments == ["files/12/Kowalczyk et al. - 2021 - Street-tree canopy.pdf"]
    assert first.doi == "10.5555/ucl.2021.0142" and "Kowalczyk" in first.raw
    assert parsed.notes == [
        "My Library.bib, line 24: this entry could not be read (unbalanced braces or a missing "
        "comma?): @article{broken,"
    ]


@pytest.mark.parametrize(
    "data", [b"@article{broken,\n title = {x\n", b"\x00\x01binary", b"[1, 2", b"plain words"]
)
def test_unreadable_bibliography_fails_with_its_own_code(data: bytes) -> None:
    with pytest.raises(ParseFailure) as caught:
        parse_bibliography(data, "lib.bib")
    assert caught.value.code == MALFORMED_BIBLIOGRAPHY and caught.value.detail


def test_attachments_climbing_out_of_the_export_are_refused_with_a_note() -> None:
    bib = (
        "@article{a2020, title = {A}, author = {Smith, J.}, year = {2020},\n"
        "  file = {Full Text:../../../etc/passwd.pdf:application/pdf;"
        "PDF:/home/me/Zotero/storage/AB12/a.pdf:application/pdf}}\n"
    )
    parsed = parse_bibliography(bib.encode(), "lib.bib")
    # The absolute Zotero path is kept (only its file name is ever compared); `..` is not.
    assert parsed.analysis.references[0].attachments == ["/home/me/Zotero/storage/AB12/a.pdf"]
    assert parsed.notes == [
        "lib.bib, line 1: the file of a2020 (../../../etc/passwd.pdf) points outside the "
        "export; it is ignored."
    ]


def test_two_works_with_one_title_are_told_apart_by_author_and_year() -> None:
    title = "Effect of Convalescent Plasma Therapy: A Randomized Clinical Trial"
    first = ref("andersen2021", authors=["Andersen", "van Dijk"], year=2021, title=title)
    second = ref("jimeno2022", authors=["Jimeno-Yepes", "van Dijk"], year=2022, title=title)
    printed = ref("7", authors=["Jimeno-Yepes", "van Dijk"], year=2022, title=title)
    assert find_entry(printed, [first, second])[:2] == (second, ENTRY_BY_TITLE)
    # Nothing tells them apart: ambiguous, so no entry.
    assert find_entry(ref("8", title=title), [first, second])[0] is None


def test_a_reference_missing_from_a_partial_library_still_links_by_doi() -> None:
    pdf = uuid.uuid4()
    sources = [SourceMeta(document_id=pdf, title="Green roofs in Graz", doi="10.5555/graz")]
    # Same first author as a library entry (a weak match), but its DOI is on an uploaded PDF.
    reference = ref("Hofer2018", authors=["Hofer"], year=2018, doi="10.5555/GRAZ")
    assert link_through_library(reference, LIBRARY, sources, {pdf: "graz.pdf"}) is None
    # Without that PDF the weak match stands: reference_missing with the candidate.
    weak = link_through_library(reference, LIBRARY, [], {})
    assert weak.link.document_id is None and weak.candidates == ["hofer2020"]
