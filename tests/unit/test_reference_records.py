"""Reading what an index or the Retraction Watch CSV says (no network, no database): real-shaped
records give their fields, hostile shapes give nothing rather than an exception."""

from __future__ import annotations

import pytest

from citeproof.contracts.thesis import Reference
from citeproof.retractions import (
    CORRECTION,
    EXPRESSION_OF_CONCERN,
    REINSTATEMENT,
    REPLACEMENT,
    RETRACTION,
    RetractionFileError,
    read_text,
)
from citeproof.retriever.verify.client import retry_after_s
from citeproof.retriever.verify.entries import BOOK, PREPRINT, REPORT, WEB, entry_from
from citeproof.retriever.verify.records import from_crossref, from_openalex

# Trimmed from Crossref's record of 10.1016/s0140-6736(97)11096-0 (the shape, as recorded).
WAKEFIELD = {
    "DOI": "10.1016/s0140-6736(97)11096-0",
    "title": ["RETRACTED: Ileal-lymphoid-nodular hyperplasia, non-specific colitis, and "
              "pervasive developmental disorder in children"],
    "container-title": ["The Lancet"],
    "issued": {"date-parts": [[1998, 2]]},
    "author": [{"given": "AJ", "family": "Wakefield", "sequence": "first", "affiliation": []}],
    "type": "journal-article",
    "relation": {},
    "updated-by": [
        {"DOI": "10.1016/s0140-6736(04)15715-2", "type": "correction", "label": "Correction",
         "source": "retraction-watch", "updated": {"date-parts": [[2004, 3, 6]]},
         "record-id": "17269"},
        {"DOI": "10.1016/s0140-6736(10)60175-4", "type": "retraction", "label": "Retraction",
         "source": "retraction-watch", "updated": {"date-parts": [[2010, 2, 6]]},
         "record-id": "4036"},
    ],
}  # fmt: skip


def test_a_crossref_work_with_its_notices_and_relations() -> None:
    record = from_crossref(WAKEFIELD, "crossref")
    assert record is not None
    assert record.doi == "10.1016/s0140-6736(97)11096-0" and record.year == 1998
    assert record.authors == ["AJ Wakefield"] and record.venue == "The Lancet"
    assert [(n.kind, n.date, n.source) for n in record.notices] == [
        (CORRECTION, "2004-03-06", "retraction-watch"),
        (RETRACTION, "2010-02-06", "retraction-watch"),
    ]
    preprint = from_crossref(
        {"DOI": "10.1101/2020.01.22.914952", "title": ["x y z"], "type": "posted-content",
         "relation": {"is-preprint-of": [{"id-type": "doi", "id": "10.1038/s41586-020-2012-7",
                                          "asserted-by": "subject"}]}},
        "crossref",
    )  # fmt: skip
    assert preprint is not None and preprint.is_preprint
    assert preprint.versions[0].doi == "10.1038/s41586-020-2012-7"
    replaced = from_crossref(
        {"title": ["t"], "updated-by": [{"type": "retraction",
                                         "label": "Notice of Retraction and Replacement"}]},
        "crossref",
    )  # fmt: skip
    assert replaced is not None and replaced.notices[0].kind == REPLACEMENT
    notice = from_crossref({"title": ["Retraction: t"], "update-to": [{"DOI": "10.1/x"}]}, "c")
    assert notice is not None and notice.is_notice


def test_an_openalex_work_with_ids_and_a_merged_preprint() -> None:
    record = from_openalex(
        {"id": "https://openalex.org/W1", "doi": "https://doi.org/10.5555/A.1", "title": "T",
         "publication_year": 2019, "ids": {"pmid": "https://pubmed.ncbi.nlm.nih.gov/123456"},
         "type": "article", "is_retracted": True,
         "authorships": [{"author": {"display_name": "Hal Daumé III"}},
                         {"raw_author_name": "B. Raw"}],
         "primary_location": {"source": {"display_name": "Cell"}},
         "locations": [{"landing_page_url": "https://doi.org/10.5555/A.1",
                        "source": {"display_name": "Cell"}, "version": "publishedVersion"},
                       {"landing_page_url": "https://arxiv.org/abs/1801.00001v2",
                        "source": {"display_name": "arXiv (Cornell University)"},
                        "version": "submittedVersion"}]},
        "openalex",
    )  # fmt: skip
    assert record is not None
    assert (record.doi, record.pmid, record.arxiv_id, record.retracted) == (
        "10.5555/a.1", "123456", "1801.00001", True
    )  # fmt: skip
    assert record.authors == ["Hal Daumé III", "B. Raw"]
    assert [v.published for v in record.versions] == [True, False]


@pytest.mark.parametrize(
    "hostile",
    [None, [], "text", 7, {"title": None}, {"title": [None, 3]}, {"title": {"a": 1}},
     {"title": ["ok"], "author": "x", "issued": {"date-parts": "nope"}, "updated-by": [1, None],
      "relation": [], "ISBN": 5}],
)  # fmt: skip
def test_hostile_shapes_give_no_record_or_a_partial_one(hostile) -> None:
    for reader in (from_crossref, from_openalex):
        record = reader(hostile, "x")
        assert record is None or (record.title == "ok" and record.authors == [])


def test_long_fields_are_capped() -> None:
    record = from_crossref({"title": ["x" * 50_000], "author": [{"family": "y"}] * 10_000}, "c")
    assert record is not None and len(record.title) <= 1000 and len(record.authors) == 100


HEADER = (
    "Record ID,Title,Subject,Institution,Journal,Publisher,Country,Author,URLS,ArticleType,"
    "RetractionDate,RetractionDOI,RetractionPubMedID,OriginalPaperDate,OriginalPaperDOI,"
    "OriginalPaperPubMedID,RetractionNature,Reason,Paywalled,Notes,"
)


def test_the_retraction_watch_csv_in_its_published_columns() -> None:
    rows = read_text(
        HEADER + "\n"
        "40040,T,S,I,J Surg Oncol,Wiley,,A,,Research Article;,8/10/2000 0:00,"
        "10.1002/1096-9098(200007)74:3%3C201::AID-JSO8%3E3.0.CO;2-5,0,7/1/2000 0:00,"
        "10.1002/1096-9098(200007)74:3%3C201::AID-JSO8%3E3.0.CO;2-5,10951417,Retraction,"
        "Date of Article and/or Notice Unknown;Plagiarism of/in Article;,No,,\n"
        "49720,T2,S,I,Circ,AHA,,A,,Research Article;,11/21/2023 0:00,10.1161/HCQ.0000000000000125,"
        "37988442,4/30/2021 0:00,10.1161/CIRCOUTCOMES.120.007778,33926210,Reinstatement,"
        "Error in Analyses;Retract and Replace;,No,,\n"
        "72867,T3,S,I,Micro,Elsevier,,A,,Research Article;,6/25/2021 0:00,10.1016/j.x.1,0,"
        "2/27/2020 0:00,10.1016/j.micpro.2020.103053,0,Expression of concern,+Rogue Editor;,No,,\n"
        "67291,T4,S,I,IJN,Dove,,A,,Research Article;,8/4/2022 0:00,10.2147/IJN.S384663,35959284,"
        "2/26/2016 0:00,unavailable,27013874,Correction,Error in Text;,No,,\n"
        "70548,T5,S,I,EG-ICE,TU Berlin,,A,,Conference Abstract/Paper;,10/18/2023 0:00,"
        "unavailable,0,6/30/2020 0:00,unavailable,0,Reinstatement,Legal Reasons;,No,,\n"
    )  # fmt: skip
    kinds = {row.record_id: row.nature for row in rows}
    assert kinds == {"40040": RETRACTION, "49720": REPLACEMENT, "72867": EXPRESSION_OF_CONCERN,
                     "67291": CORRECTION, "70548": REINSTATEMENT}  # fmt: skip
    first = rows[0]
    assert first.original_doi == "10.1002/1096-9098(200007)74:3<201::aid-jso8>3.0.co;2-5"
    assert first.original_pmid == "10951417" and first.notice_pmid is None
    assert str(first.notice_date) == "2000-08-10"
    assert rows[2].reasons == ["Rogue Editor"]
    assert rows[3].original_doi is None and rows[3].original_pmid == "27013874"
    with pytest.raises(RetractionFileError, match="not the Retraction Watch CSV"):
        read_text("Title,Author\nx,y\n")


@pytest.mark.parametrize(
    ("value", "seconds"),
    [("3", 3.0), (" 0 ", 0.0), ("-5", 0.0), ("soon", None), (None, None),
     ("Wed, 21 Oct 2015 07:28:00 GMT", 0.0)],
)  # fmt: skip
def test_retry_after_reads_seconds_and_dates(value, seconds) -> None:
    assert retry_after_s(value) == seconds


def _entry(raw: str, **fields):
    return entry_from(1, Reference(ordinal=1, label="1", raw=raw, char_start=0,
                                   char_end=len(raw), **fields), None)  # fmt: skip


def test_entries_know_their_identifiers_and_kind() -> None:
    broken = _entry("Yan C. Driving posture recognition. IET Comput Vis. doi:10.1049/iet-cvi. "
                    "2015.0175. PMID: 12345678")  # fmt: skip
    assert broken.dois[0] == "10.1049/iet-cvi.2015.0175" and broken.pmid == "12345678"
    assert _entry("Kuhn TS. The Structure of Scientific Revolutions. University of Chicago "
                  "Press; 1962. ISBN 978-0-226-45808-3").isbn == "9780226458083"  # fmt: skip
    assert _entry("Craye C. Driver distraction. arXiv preprint arXiv:1502.00250, 2015.").kind == (
        PREPRINT
    )
    assert _entry("Saier T. 2019. Bibliometric-enhanced arXiv: A data set. In Proceedings of "
                  "BIR 2019.").kind != PREPRINT  # fmt: skip
    assert _entry("Bishop CM. Pattern Recognition. Springer; 2006.").kind == BOOK
    assert _entry("OCLC. 2009. Practices online. Report commissioned by OCLC Research.").kind == (
        REPORT
    )
    assert _entry("CDC. Distracted driving, 2016. URL https://www.cdc.gov/x").kind in (WEB, REPORT)
    quoted = _entry('Q. Yang and A. Sciuto, "Investigating How Designers Work with Machine '
                    'Learning," Proceedings of DIS, 2018.')  # fmt: skip
    assert quoted.searchable_title == "Investigating How Designers Work with Machine Learning"


def test_among_namesakes_the_one_whose_author_and_year_agree_is_chosen() -> None:
    from citeproof.retriever.verify.check import best_candidate
    from citeproof.retriever.verify.records import IndexRecord

    namesake = IndexRecord(index="crossref", title="T", authors=["Kenji Snow"], year=2020)
    real = IndexRecord(index="crossref", title="T", authors=["Philippe Gautret"], year=2020)
    # The index lists the namesake first; identity ties (1.0), the author decides.
    assert best_candidate([((1.0, False, True), namesake), ((1.0, True, True), real)]) is real


def test_a_published_record_alone_says_nothing_about_a_preprint() -> None:
    from citeproof.retriever.verify.compare import has_published_version
    from citeproof.retriever.verify.records import IndexRecord, Version

    published_only = IndexRecord(
        index="openalex", title="T", work_type="article",
        versions=[Version(venue="ACL", published=True)],
    )  # fmt: skip
    assert has_published_version(published_only) is None
    merged = IndexRecord(
        index="openalex", title="T", work_type="article",
        versions=[Version(doi="10.5555/x", venue="ACL", published=True),
                  Version(venue="arXiv (Cornell University)", published=False)],
    )  # fmt: skip
    assert has_published_version(merged) == "ACL, doi:10.5555/x"


def test_check_takes_verify_references_like_open_access() -> None:
    from citeproof.cli import parse
    from citeproof.cli._check import _verify_status

    assert parse(["check", "thesis.pdf", "--verify-references"]).verify_references is True
    assert parse(["check", "thesis.pdf", "--no-verify-references"]).verify_references is False
    assert parse(["check", "thesis.pdf"]).verify_references is None
    assert "off for this account" in _verify_status({"verify_references": False})
    assert "CITEPROOF_VERIFY_ENABLED" in _verify_status({"verify_references": True})


def test_library_identifiers_reach_verification() -> None:
    """A .bib's pmid, isbn and arXiv eprint, and a CSL JSON PMID/ISBN, are read, printed in the
    library entry's rendering, and looked up by: before, only the DOI was kept."""
    from citeproof.library.bibtex import parse_bibtex
    from citeproof.library.csljson import parse_csl_json
    from citeproof.parser.libraries.references import entry_reference

    library = parse_bibtex(
        "@article{w98, title={Ileal-lymphoid-nodular hyperplasia}, author={Wakefield, A. J.},"
        " year={1998}, journal={The Lancet}, pmid={9500320}}\n"
        "@book{k62, title={The Structure of Scientific Revolutions}, author={Kuhn, Thomas S.},"
        " year={1962}, publisher={University of Chicago Press}, isbn={978-0-226-45808-3}}\n"
        "@misc{v17, title={Attention is all you need}, author={Vaswani, Ashish}, year={2017},"
        " eprint={1706.03762v5}, archivePrefix={arXiv}}\n"
    )  # fmt: skip
    pmid, isbn, arxiv = (entry_reference(e, i) for i, e in enumerate(library.entries, 1))
    assert "PMID: 9500320" in pmid.raw and "ISBN 9780226458083" in isbn.raw
    assert arxiv.arxiv_id == "1706.03762"
    thesis = Reference(ordinal=1, label="1", raw="Wakefield (1998) Ileal-lymphoid-nodular "
                       "hyperplasia. Lancet.", char_start=0, char_end=10)  # fmt: skip
    assert entry_from(1, thesis, pmid).pmid == "9500320"
    assert entry_from(1, thesis, isbn).isbn == "9780226458083"
    csl = parse_csl_json('[{"id": "a", "type": "article-journal", "title": "T", "PMID": "123",'
                         ' "ISBN": "0-262-03561-8"}]')  # fmt: skip
    assert (csl.entries[0].pmid, csl.entries[0].isbn) == ("123", "0262035618")
