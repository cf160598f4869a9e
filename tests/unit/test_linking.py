"""Reference -> uploaded source linking: DOI, arXiv, title, authors + year, thresholds."""

import json
from pathlib import Path
from uuid import uuid4

from citeproof.contracts.thesis import Reference, SourceMeta
from citeproof.parser.thesis import analyze_thesis
from citeproof.retriever.linking import ACCEPT_THRESHOLD, link_reference, link_references
from citeproof.text.bibliographic import title_similarity


def reference(**fields) -> Reference:
    defaults = dict(ordinal=1, label="1", raw="raw entry", char_start=0, char_end=9)
    return Reference(**(defaults | fields))


def source(**fields) -> SourceMeta:
    return SourceMeta(document_id=uuid4(), **fields)


def test_doi_match_wins_regardless_of_case_and_prefix():
    target = source(title="Something else entirely", doi="https://doi.org/10.1000/ABC.123")
    other = source(title="Deep learning for parsing", doi="10.1000/xyz")
    ref = reference(title="Deep learning for parsing", doi="10.1000/abc.123")
    result = link_reference(ref, [other, target])
    assert (result.document_id, result.method, result.score) == (target.document_id, "doi", 1.0)


def test_arxiv_id_ignores_version_and_is_found_on_the_first_page():
    with_metadata = source(arxiv_id="1706.09498v2")
    assert link_reference(reference(arxiv_id="1706.09498"), [with_metadata]).method == "arxiv"
    stamped = source(first_page_text="arXiv:1502.00250v1 [cs.CV] 1 Feb 2015\nDriver distraction")
    result = link_reference(reference(arxiv_id="1502.00250"), [stamped])
    assert (result.document_id, result.method) == (stamped.document_id, "arxiv")


def test_title_similarity_tolerates_case_accents_hyphenation_and_subtitles():
    assert (
        title_similarity(
            "SciBERT: A Pretrained Language Model", "Scibert - a pretrained language model"
        )
        > 0.95
    )
    assert title_similarity("Déjà vu in citation", "Deja vu in citation") == 1.0
    assert title_similarity("Attention", "Attention is all you need") < 0.6
    ref = reference(title="Construction of the literature graph in semantic scholar")
    target = source(title="Construction of the Literature Graph in Semantic Scholar")
    decoy = source(title="Construction of knowledge graphs in medicine")
    result = link_reference(ref, [decoy, target])
    assert (result.document_id, result.method) == (target.document_id, "title")
    assert result.score >= 0.9


def test_title_on_first_page_when_metadata_is_missing():
    ref = reference(
        title="Content-based citation recommendation", authors=["Bhagavatula"], year=2018
    )
    page = (
        "Content-Based Citation Recommendation\nChandra Bhagavatula, Sergey Feldman\nAbstract ..."
    )
    target = source(first_page_text=page)
    result = link_reference(ref, [source(first_page_text="Unrelated paper about fish"), target])
    assert (result.document_id, result.method) == (target.document_id, "title")


def test_authors_and_year_link_when_titles_are_absent():
    ref = reference(authors=["Smith", "Jones"], year=2020)
    target = source(authors=["John Smith", "Karen Jones"], year=2020)
    wrong_year = source(authors=["John Smith"], year=2018)
    result = link_reference(ref, [wrong_year, target])
    assert (result.document_id, result.method) == (target.document_id, "authors_year")
    assert result.score >= ACCEPT_THRESHOLD


def test_ambiguous_authors_year_is_refused():
    ref = reference(authors=["Smith"], year=2020)
    first = source(authors=["J. Smith"], year=2020)
    second = source(authors=["A. Smith"], year=2020)
    assert link_reference(ref, [first, second]).document_id is None


def test_unrelated_sources_stay_unlinked():
    ref = reference(
        title="Neural architectures for named entity recognition", authors=["Lample"], year=2016
    )
    result = link_reference(
        ref, [source(title="GloVe: global vectors", authors=["Pennington"], year=2014)]
    )
    assert result.document_id is None
    assert result.method == "none"
    assert result.score < ACCEPT_THRESHOLD


def test_explicit_mapping_overrides_automatic_linking():
    chosen = uuid4()
    ref = reference(label="Smith2020a", title="Same title")
    automatic = source(title="Same title")
    results = link_references([ref], [automatic], explicit={"Smith2020a": chosen})
    assert results["Smith2020a"].document_id == chosen
    assert results["Smith2020a"].method == "explicit"


DEMO = Path(__file__).resolve().parents[2] / "samples" / "demo"


def demo_sources() -> dict[str, dict]:
    """Front matter of the demo sources, keyed by the reference label they belong to."""
    expected = json.loads((DEMO / "expected.json").read_text())
    sources: dict[str, dict] = {}
    for label, path in expected["sources"].items():
        if path is None:
            continue
        front = (DEMO / path).read_text().split("---")[1]
        fields = dict(line.split(": ", 1) for line in front.strip().splitlines())
        sources[label] = fields
    return sources


def test_demo_thesis_references_link_to_their_sources_by_each_kind_of_evidence():
    analysis = analyze_thesis((DEMO / "thesis.md").read_text(), [0])
    fields = demo_sources()
    ids = {label: uuid4() for label in fields}
    full, title_only, authors_only = [], [], []
    for label, meta in fields.items():
        authors = meta["authors"].split("; ")
        full.append(
            SourceMeta(document_id=ids[label], title=meta["title"], doi=meta["doi"], year=2000)
        )
        title_only.append(SourceMeta(document_id=ids[label], title=meta["title"]))
        authors_only.append(
            SourceMeta(document_id=ids[label], authors=authors, year=int(meta["year"]))
        )
    for sources, method in ((full, "doi"), (title_only, "title"), (authors_only, "authors_year")):
        results = link_references(analysis.references, sources)
        assert {label: r.document_id for label, r in results.items()} == {
            **ids,
            "6": None,
            "7": None,
        }
        assert {results[label].method for label in ids} == {method}
