"""citeproof.devkit.pdfgen: the PDFs carry a faithful text layer, metadata and realistic page
furniture."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

pytest.importorskip("reportlab", reason="needs the pdfgen extra: pip install -e 'devkit'")
pdfium = pytest.importorskip("pypdfium2")

from citeproof.devkit.pdfgen import (  # noqa: E402
    DocumentSpec,
    Reference,
    Section,
    SourceFormatError,
    parse_source,
    render_pdf,
    running_header,
)
from citeproof.devkit.pdfgen.corpus import render_corpus  # noqa: E402

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
LONG_PARAGRAPH = " ".join(
    f"Sentence number {i} reports a finding [{i % 3 + 1}]." for i in range(60)
)


def page_texts(pdf_bytes: bytes) -> list[str]:
    document = pdfium.PdfDocument(pdf_bytes)
    return [document[i].get_textpage().get_text_range() for i in range(len(document))]


def flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def long_spec(**overrides) -> DocumentSpec:
    fields = dict(
        title="Soil moisture and yield: α-diversity ≥ 5 μg per plot",
        authors=("Ana Souza", "Ben Li"),
        year=2023,
        doi="10.5555/test.1",
        venue="Journal of Tests 1(1), 1–9",
        abstract="We measured things carefully.",
        sections=tuple(
            Section(heading=f"{n} Section", paragraphs=(LONG_PARAGRAPH, LONG_PARAGRAPH))
            for n in range(1, 4)
        ),
        references=(
            Reference(text="Doe, J. (2020). First paper. Journal 1, 1–2.", label="1"),
            Reference(text="Roe, R. (2021). Second paper. Journal 2, 3–4.", label="2"),
        ),
        keywords=("soil", "yield"),
    )
    fields.update(overrides)
    return DocumentSpec(**fields)


def test_text_layer_keeps_every_character_including_markers_and_greek():
    pdf = render_pdf(long_spec())
    text = flat(" ".join(page_texts(pdf)))
    assert "Soil moisture and yield: α-diversity ≥ 5 μg per plot" in text
    assert "Sentence number 7 reports a finding [2]." in text
    assert "[1] Doe, J. (2020). First paper. Journal 1, 1–2." in text
    assert "DOI: 10.5555/test.1" in text


def test_metadata_names_title_and_authors():
    meta = pdfium.PdfDocument(render_pdf(long_spec())).get_metadata_dict()
    assert meta["Title"] == "Soil moisture and yield: α-diversity ≥ 5 μg per plot"
    assert meta["Author"] == "Ana Souza; Ben Li"
    assert meta["Keywords"] == "soil, yield"


def test_long_documents_paginate_with_page_numbers_and_a_running_header_after_page_one():
    pages = page_texts(render_pdf(long_spec(running_header="Souza — Soil and yield")))
    assert len(pages) >= 3
    for number, text in enumerate(pages, start=1):
        assert text.strip().splitlines()[-1].strip() == str(number)
    assert "Souza — Soil and yield" not in pages[0]
    assert all(text.lstrip().startswith("Souza — Soil and yield") for text in pages[1:])


def test_default_running_header_names_authors_as_journals_do_and_shortens_the_title():
    pages = page_texts(render_pdf(long_spec()))
    assert pages[1].lstrip().startswith("Souza and Li — Soil moisture and yield")
    three = long_spec(authors=("Pieter van Dijk", "B. Li", "C. Wu"), title="T " + "word " * 30)
    header = running_header(three)
    assert header.startswith("van Dijk et al. — T word")
    assert header.endswith("…") and len(header) <= 70
    assert running_header(long_spec(authors=("Ana Souza",))).startswith("Souza — Soil")


def test_author_year_references_have_no_bracket_label():
    spec = long_spec(references=(Reference(text="Smith, J. (2020a). A study. J 1, 2."),))
    text = flat(page_texts(render_pdf(spec))[-1])
    assert "Smith, J. (2020a). A study." in text
    assert "[" not in text.split("References", 1)[1]


def test_rendering_is_deterministic_so_uploads_deduplicate_by_hash():
    assert render_pdf(long_spec()) == render_pdf(long_spec())
    assert render_pdf(long_spec()) != render_pdf(long_spec(year=2024))


def test_control_characters_print_as_spaces():
    # Check-COVID has mis-decoded thin spaces ("96â\x80\x88032"); no font can draw them.
    spec = long_spec(sections=(Section(heading="1 A", paragraphs=("96â\x80\x88032 patients.",)),))
    assert "96â 032 patients." in flat(" ".join(page_texts(render_pdf(spec))))


def test_markup_characters_are_text_not_markup():
    spec = long_spec(sections=(Section(heading="1 A", paragraphs=("x < y & <b>bold</b> z.",)),))
    assert "x < y & <b>bold</b> z." in flat(" ".join(page_texts(render_pdf(spec))))


SOURCE_TEXT = """---
title: A Title: With Colon
authors: Jane Doe; John Roe
year: 2024
keywords: a; b
---

# Abstract
First line
continues here.

# 1 Introduction
Para one
spans lines.

Para two [1].

# References
[1] Doe, J. Entry one.
Roe, J. (2020). Entry two
on two lines.
"""


def test_parse_source_reads_front_matter_sections_and_both_reference_styles():
    spec = parse_source(SOURCE_TEXT)
    assert spec.title == "A Title: With Colon"
    assert spec.authors == ("Jane Doe", "John Roe")
    assert spec.year == 2024 and spec.doi is None
    assert spec.keywords == ("a", "b")
    assert spec.abstract == "First line continues here."
    assert spec.sections == (
        Section(heading="1 Introduction", paragraphs=("Para one spans lines.", "Para two [1].")),
    )
    assert spec.references == (
        Reference(text="Doe, J. Entry one. Roe, J. (2020). Entry two on two lines.", label="1"),
    )


def test_parse_source_separates_reference_paragraphs():
    spec = parse_source(SOURCE_TEXT.replace("Entry one.\n", "Entry one.\n\n"))
    assert spec.references == (
        Reference(text="Doe, J. Entry one.", label="1"),
        Reference(text="Roe, J. (2020). Entry two on two lines.", label=None),
    )


@pytest.mark.parametrize(
    "text, message",
    [
        ("# Abstract\nx", "must start with"),
        ("---\ntitle: x\n# Abstract", "not closed"),
        ("---\nyear: 2020\n---\n", "no 'title:'"),
        ("---\ntitle x\n---\n", "line 2"),
    ],
)
def test_parse_source_rejects_malformed_text_with_a_located_message(text, message):
    with pytest.raises(SourceFormatError, match=message):
        parse_source(text)


@pytest.mark.parametrize("corpus", ["demo", "demo-authoryear"])
def test_sample_corpus_renders_and_every_expected_sentence_is_in_the_thesis_text_layer(
    corpus, tmp_path
):
    expected = json.loads((SAMPLES / corpus / "expected.json").read_text(encoding="utf-8"))
    rendered = render_corpus(SAMPLES / corpus, tmp_path)
    assert [p.name for p in rendered.sources] == [
        Path(p).with_suffix(".pdf").name for p in expected["sources"].values() if p
    ]
    pages = page_texts(rendered.thesis.read_bytes())
    assert 3 <= len(pages) <= 5
    text = flat(" ".join(pages))
    for row in expected["sentences"]:
        assert row["sentence"] in text
        assert row["marker"] in row["sentence"]
    # Every cited reference is in the list; exactly the ones without an uploaded source are missing.
    thesis = parse_source((SAMPLES / corpus / "thesis.md").read_text(encoding="utf-8"))
    for row in expected["sentences"]:
        for citation in row["citations"]:
            assert any(_names(citation["reference"], ref) for ref in thesis.references)
            has_source = expected["sources"][citation["reference"]] is not None
            assert (citation["label"] == "source_missing") != has_source


def _names(key: str, reference: Reference) -> bool:
    """Whether a reference key ("12", or "Vandijk2019" in author–year style) names the entry."""
    if reference.label is not None:
        return reference.label == key
    surname, year = key.rstrip("0123456789"), key[len(key.rstrip("0123456789")) :]
    squashed = reference.text.replace(" ", "").lower()
    return squashed.startswith(surname.lower()) and f"({year})" in reference.text
