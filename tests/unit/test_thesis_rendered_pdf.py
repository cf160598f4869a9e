"""The sample theses rendered to PDF and parsed the way the parser stage does (pypdfium2 text,
layout rules, thesis analysis): every (sentence, marker, reference) pair of expected.json is
found and every reference entry is split on its own.

The author-year list used to merge entries 1-6 into one, because each entry ends in a DOI URL
and the layout runs the entries after it into one paragraph.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from uuid import UUID, uuid4

import pytest

pytest.importorskip("reportlab", reason="needs the pdfgen extra: pip install -e 'devkit'")

from citeproof.contracts.thesis import SourceMeta
from citeproof.devkit.pdfgen import parse_source, render_pdf
from citeproof.parser.extract import parse_bytes
from citeproof.parser.parsed import ParsedDocument
from citeproof.parser.settings import ParserSettings
from citeproof.retriever.linking import link_references

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def flat(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def parsed_thesis(corpus: str) -> tuple[ParsedDocument, dict]:
    expected = json.loads((SAMPLES / corpus / "expected.json").read_text(encoding="utf-8"))
    source = (SAMPLES / corpus / expected["thesis"]).read_text(encoding="utf-8")
    pdf = render_pdf(parse_source(source))
    document = parse_bytes(pdf, "thesis.pdf", "application/pdf", ParserSettings(), kind="thesis")
    return document, expected


@pytest.mark.parametrize("corpus", ["demo", "demo-authoryear"])
def test_rendered_thesis_gives_exactly_the_expected_citations(corpus: str) -> None:
    document, expected = parsed_thesis(corpus)
    analysis = document.analysis
    assert analysis is not None
    found = {
        (flat(c.claim_text), flat(c.marker_text), c.reference_label) for c in analysis.citations
    }
    wanted = {
        (sentence["sentence"], sentence["marker"], citation["reference"])
        for sentence in expected["sentences"]
        for citation in sentence["citations"]
    }
    assert found == wanted
    # Labels as expected.json keys them, one entry per reference, in list order.
    assert sorted(ref.label for ref in analysis.references) == sorted(expected["sources"])
    assert analysis.notes == []
    for citation in analysis.citations:
        # Offsets index the stored text verbatim.
        assert document.text[citation.claim_start : citation.claim_end] == citation.claim_text
        assert document.text[citation.marker_start : citation.marker_end] == citation.marker_text


def test_rendered_author_year_list_keeps_each_entry_and_its_doi_apart() -> None:
    document, _ = parsed_thesis("demo-authoryear")
    references = document.analysis.references
    assert [ref.label for ref in references] == [
        "Aalto2023",
        "Vandijk2019",
        "Hofer2020",
        "Kowalczyk2021",
        "Marchetti2022",
        "Moreau2022",
        "Osei2024",
    ]
    assert [ref.doi for ref in references] == [
        "10.5555/eeh.2023.0057",
        "10.5555/ucl.2019.0031",
        "10.5555/ber.2020.0378",
        "10.5555/ucl.2021.0142",
        "10.5555/ucl.2022.0219",
        None,
        None,
    ]
    for ref in references:
        # One entry each: a single author-year head, and no longer than a real entry.
        assert len(re.findall(r"\(\d{4}\)\.", ref.raw)) == 1, ref.raw
        assert len(ref.raw) < 300
        assert flat(document.text[ref.char_start : ref.char_end]) == flat(ref.raw)


@pytest.mark.parametrize("corpus", ["demo", "demo-authoryear"])
def test_every_listed_reference_links_to_its_rendered_source(corpus: str) -> None:
    """Thesis entries -> uploaded sources with the parser's own metadata (the retriever links
    them when a run is planned); references without an upload stay unlinked."""
    document, expected = parsed_thesis(corpus)
    sources: list[SourceMeta] = []
    source_names: dict[UUID, str] = {}
    for name in sorted(path for path in expected["sources"].values() if path):
        spec = parse_source((SAMPLES / corpus / name).read_text(encoding="utf-8"))
        source = parse_bytes(render_pdf(spec), "source.pdf", None, ParserSettings())
        document_id = uuid4()
        source_names[document_id] = name
        sources.append(
            SourceMeta(
                document_id=document_id,
                title=source.meta.title,
                authors=source.meta.authors,
                year=source.meta.year,
                doi=source.meta.doi,
                first_page_text=source.text[: source.page_starts[1]],
            )
        )
    links = link_references(document.analysis.references, sources)
    linked = {
        label: source_names[link.document_id] if link.document_id else None
        for label, link in links.items()
    }
    assert linked == expected["sources"]
