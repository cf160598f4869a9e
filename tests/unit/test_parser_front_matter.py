"""Front matter (title, authors, affiliations, venue, DOI) is marked and never evidence.

Every check compares with what the renderer printed (the `DocumentSpec`, or a title from the
Check-COVID corpus file), not with the parser's own marks: a body sentence that is a title,
author or header line fails `front_matter_quotes` whatever the parser thought of it.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from pathlib import Path

import msgspec
import pytest

pytest.importorskip("reportlab", reason="needs the pdfgen extra: pip install -e 'devkit'")

from citeproof.contracts.chunks import BODY, FRONT_MATTER
from citeproof.devkit.pdfgen import DocumentSpec, Section, parse_source, render_pdf
from citeproof.devkit.pdfgen.fonts import body_font_family
from citeproof.devkit.pdfgen.front_matter import (
    FrontMatter,
    assert_no_front_matter_quotes,
    front_matter_of,
    front_matter_quotes,
)
from citeproof.parser.blocks import FRONT_MATTER as FRONT_MATTER_BLOCK
from citeproof.parser.blocks import HEADING, PARAGRAPH, Block
from citeproof.parser.extract import parse_bytes
from citeproof.parser.front_matter import (
    FrontMatterRules,
    mark_front_matter,
    without_running_headers,
)
from citeproof.parser.parsed import ParsedDocument
from citeproof.parser.settings import ParserSettings
from citeproof.retriever.index import split_units
from citeproof.text.normalize import comparison_key

REPO = Path(__file__).resolve().parents[2]
DEMO_SOURCES = sorted((REPO / "samples" / "demo" / "sources").glob("*.md"))
CHECKCOVID_CORPUS = REPO.parent / "shared" / "data" / "checkcovid" / "corpus.json"
# Abstracts of the corpus rendered in the data-driven test (about 40 ms each).
CORPUS_SAMPLE = 60
NAMES = ("Aisha Okafor", "Bruno Andersen", "Chen Haddad", "Dana Kowalski", "Emeka Lindqvist",
         "Fatima Moreno", "Giulia Nakamura", "Hiroshi Petrov")  # fmt: skip
ABSTRACT = (
    "We followed 412 households for six weeks. Secondary attack rates were 17% in households "
    "with a symptomatic index case and 4% with an asymptomatic one. Masks worn at home halved "
    "the attack rate."
)


def parse_spec(spec: DocumentSpec) -> ParsedDocument:
    return parse_bytes(render_pdf(spec), "source.pdf", "application/pdf", ParserSettings())


def evidence_sentences(document: ParsedDocument) -> list[str]:
    """What the retriever can hand a judge: the sentence units of the body chunks."""
    return [
        chunk.text[start:end]
        for chunk in document.chunks
        if chunk.role == BODY
        for start, end in split_units(chunk.text, 40, 600)
    ]


def key(text: str) -> str:
    return comparison_key(body_font_family().printable(text))


def assert_front_matter_marked(spec: DocumentSpec, document: ParsedDocument) -> None:
    assert_no_front_matter_quotes(evidence_sentences(document), [spec])
    front = " ".join(key(c.text) for c in document.chunks if c.role == FRONT_MATTER)
    assert key(spec.title) in front
    for author in spec.authors:
        assert key(author) in front
    # Compared without spaces: a URL broken over a line comes back with a space inside it.
    body = "".join(key(c.text) for c in document.chunks if c.role == BODY).replace(" ", "")
    for paragraph in [spec.abstract or "", *(p for s in spec.sections for p in s.paragraphs)]:
        assert key(paragraph).replace(" ", "") in body
    # Chunks stay contiguous and front matter never shares a chunk with body text.
    assert [c.ordinal for c in document.chunks] == list(range(len(document.chunks)))
    assert {c.role for c in document.chunks} <= {BODY, FRONT_MATTER}


@pytest.mark.parametrize("source", DEMO_SOURCES, ids=lambda path: path.stem)
def test_demo_sources_front_matter_is_marked(source: Path) -> None:
    spec = parse_source(source.read_text(encoding="utf-8"))
    document = parse_spec(spec)
    assert document.chunks[0].role == FRONT_MATTER
    assert_front_matter_marked(spec, document)


HARD_CASES = {
    # A long title wraps over three lines; its last line is a single word ending in "?".
    "wrapped_title": DocumentSpec(
        title="Would household face masks, worn by every member of the family from the first "
        "day of symptoms, have prevented secondary transmission of influenza in a pandemic?",
        authors=NAMES[:3],
        year=2021,
        venue="Journal of Pandemic Medicine 12(3), 45–52",
        abstract=ABSTRACT,
    ),
    # Seven authors wrap onto a second line; the title opens like "A. Methods".
    "many_authors": DocumentSpec(
        title="A Randomized Clinical Trial of Household Masks",
        authors=NAMES[:7],
        year=2020,
        doi="10.5555/test.0001",
        venue="Clinical Infectious Disease Reports 8, 125–133",
        abstract=ABSTRACT,
    ),
    # One author, no venue, no DOI, no abstract heading: the body follows the author line.
    "bare": DocumentSpec(
        title="Household transmission of SARS-CoV-2 in two German cities",
        authors=(NAMES[3],),
        sections=(Section(heading="", paragraphs=(ABSTRACT,)),),
    ),
}


@pytest.mark.parametrize("name", sorted(HARD_CASES))
def test_hard_title_blocks_are_marked(name: str) -> None:
    spec = HARD_CASES[name]
    assert_front_matter_marked(spec, parse_spec(spec))


def test_last_page_with_one_body_line_loses_its_running_header() -> None:
    """A source whose second page carries its header above a single line: too few lines to
    measure the body's type, the header used to reach the text in the middle of a sentence."""
    sentence = "Secondary attack rates were measured in every household."
    for repeats, keywords in ((54, ()), (53, ("masks",))):
        spec = DocumentSpec(
            title="Household transmission of SARS-CoV-2 under different mask policies",
            authors=NAMES[:3],
            year=2020,
            venue="Journal of Pandemic Medicine 12(3), 45–52",
            abstract=" ".join([sentence] * repeats),
            keywords=keywords,
        )
        document = parse_spec(spec)
        assert document.pages == 2, "the fixture must spill onto a second page"
        assert "et al." not in document.text
        assert_front_matter_marked(spec, document)


def test_a_page_holding_nothing_but_the_header_loses_it() -> None:
    rules = FrontMatterRules(
        "Household transmission of SARS-CoV-2 under different mask policies", NAMES[:3]
    )
    first = ["Household transmission of SARS-CoV-2 under different mask policies", "Body."]
    second = ["Okafor et al. — Household transmission of SARS-CoV-2 under different…", "2"]
    third = ["Okafor et al. wrote this sentence about household transmission.", "3"]
    assert without_running_headers([first, second, third], rules) == [first, ["2"], third]


def corpus_sample() -> list[dict]:
    if not CHECKCOVID_CORPUS.is_file():
        pytest.skip(f"{CHECKCOVID_CORPUS} is absent")
    lines = CHECKCOVID_CORPUS.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines[:: max(1, len(lines) // CORPUS_SAMPLE)]]


def corpus_spec(entry: dict) -> DocumentSpec:
    """The abstract as the accuracy benchmark renders it: title, synthetic authors and venue."""
    rng = random.Random(hashlib.sha256(entry["cord_id"].encode()).digest())
    authors = tuple(rng.sample(NAMES, rng.choice((1, 2, 3, 5, 7))))
    text = " ".join(s.strip() for s in entry["abstract"] if s.strip())
    return DocumentSpec(
        title=re.sub(r"\s+", " ", entry["title"]).strip().rstrip("."),
        authors=authors,
        year=rng.choice((2020, 2021)),
        doi=f"10.5555/ccov.{entry['cord_id']}" if rng.random() < 0.5 else None,
        venue=f"Journal of Respiratory Virology {rng.randint(3, 60)}({rng.randint(1, 12)}), "
        f"{rng.randint(1, 90)}–{rng.randint(91, 200)}",
        abstract=re.sub(r"^abstract\s*:?\s+", "", text, flags=re.IGNORECASE),
    )


def test_checkcovid_sources_never_offer_title_or_author_lines_as_evidence() -> None:
    """Checked against the corpus file's titles (what the renderer wrote)."""
    specs = [corpus_spec(entry) for entry in corpus_sample()]
    for spec in specs:
        assert_front_matter_marked(spec, parse_spec(spec))


# --- the line rules on real papers' first lines -------------------------------------------------

ACL_FIRST_PAGE = [
    "Proceedings of the 58th Annual Meeting of the Association for Computational Linguistics, "
    "pages 4969–4983",
    "July 5 - 10, 2020.",
    "c 2020 Association for Computational Linguistics",
    "4969",
    "S2ORC: The Semantic Scholar Open Research Corpus",
    "Kyle Lo†∗ Lucy Lu Wang†∗ Mark Neumann† Rodney Kinney† Daniel S. Weld†‡",
    "†Allen Institute for Artificial Intelligence",
    "{kylel, lucyw}@allenai.org",
    "Abstract",
    "We introduce S2ORC, a large corpus of 81.1M English-language academic papers",
]


def test_real_paper_title_block_runs_to_the_abstract_heading() -> None:
    rules = FrontMatterRules(
        "S2ORC: The Semantic Scholar Open Research Corpus", ["Kyle Lo", "Lucy Lu Wang"]
    )
    assert rules.leading_count(ACL_FIRST_PAGE) == ACL_FIRST_PAGE.index("Abstract")


def test_a_page_that_opens_with_body_text_has_no_front_matter() -> None:
    rules = FrontMatterRules("Cooling the compact city", ["Jane Doe"])
    body = [
        "Street trees cool the air around them by shading and transpiration, and",
        "their effect was measured in twelve cities during two summers.",
    ]
    assert rules.leading_count(body) == 0
    # Publication-like lines alone (a journal banner) are not front matter without the title
    # or an author line: nothing anchors them to this document.
    assert rules.leading_count(["Urban Climate Letters 14(2), 101–118, 2021", *body]) == 0


def test_structured_formats_mark_their_leading_title_and_author_blocks() -> None:
    """DOCX/HTML (and unstructured's PDF path) arrive as blocks, not lines."""
    rules = FrontMatterRules("Cooling the compact city with street trees", ["Jane Doe", "John Roe"])
    blocks = [
        Block(HEADING, "Cooling the compact city with street trees", 1),
        Block(PARAGRAPH, "Jane Doe, John Roe", 1),
        Block(PARAGRAPH, "Department of Geography, University of Utrecht", 1),
        Block(HEADING, "Abstract", 1),
        Block(PARAGRAPH, "Street trees cooled the air by 0.6 °C per ten points of canopy.", 1),
    ]
    marked = mark_front_matter(blocks, rules)
    assert [b.kind for b in marked] == [FRONT_MATTER_BLOCK] * 3 + [HEADING, PARAGRAPH]
    assert [b.text for b in marked] == [b.text for b in blocks]
    # Without the title or an author among them, leading blocks stay body text.
    assert mark_front_matter(blocks[3:], rules) == blocks[3:]


def test_running_header_recognised_only_for_this_document() -> None:
    rules = FrontMatterRules(
        "Coronavirus Disease 2019 in Children - United States, February 12-April 2, 2020",
        ["Aisha Okafor", "Bruno Andersen", "Chen Haddad"],
    )
    assert rules.is_running_header("Okafor et al. — Coronavirus Disease 2019 in Children…")
    assert rules.is_running_header("Okafor and Haddad")
    assert not rules.is_running_header("Smith et al. — Influenza in care homes…")
    assert not rules.is_running_header("Children were admitted to hospital less often.")


# --- the check itself ---------------------------------------------------------------------------

SPEC = DocumentSpec(
    title="Coronavirus Disease 2019 in Children - United States, February 12-April 2, 2020",
    authors=("Aisha Okafor", "Bruno Andersen", "Chen Haddad"),
    year=2020,
    venue="Journal of Pandemic Medicine 12(3), 45–52",
)


@pytest.mark.parametrize(
    "quote",
    [
        "Coronavirus Disease 2019 in Children - United States, February 12-April 2, 2020",
        "Coronavirus Disease 2019 in Children - United States, February 12-April 2, 2020 "
        "Aisha Okafor, Bruno Andersen, Chen Haddad",
        "Aisha Okafor, Bruno Andersen, Chen Haddad Journal of Pandemic Medicine 12(3), 45–52, 2020",
        "Okafor et al. — Coronavirus Disease 2019 in Children - United States, February…",
        "Coronavirus Disease 2019 in Children - United States, February 12-April 2, 2020 Among "
        "149,082 reported cases, 2,572 were children.",
    ],
)
def test_check_flags_front_matter_quotes(quote: str) -> None:
    assert front_matter_quotes([quote], [SPEC])
    with pytest.raises(AssertionError, match="front matter"):
        assert_no_front_matter_quotes([quote], [SPEC])


def test_check_passes_body_sentences_and_takes_corpus_pairs() -> None:
    body = [
        "Among 149,082 reported cases, 2,572 (1.7%) were children aged under 18 years.",
        "Please cite this paper as: Okafor et al. (2020) Coronavirus Disease 2019 in Children "
        "- United States, February 12-April 2, 2020.",
        "Children",
    ]
    assert_no_front_matter_quotes(body, [SPEC, (SPEC.title, SPEC.authors)])
    pair = front_matter_of((SPEC.title, list(SPEC.authors)))
    assert isinstance(pair, FrontMatter) and pair.title == SPEC.title
    assert front_matter_quotes(["Aisha Okafor, Bruno Andersen, Chen Haddad"], [pair])


def test_spec_front_matter_lists_every_printed_line() -> None:
    front = front_matter_of(msgspec.structs.replace(SPEC, doi="10.5555/x.1"))
    assert SPEC.title in front.lines
    assert "Aisha Okafor, Bruno Andersen, Chen Haddad" in front.lines
    assert "DOI: 10.5555/x.1" in front.lines
    assert any(line.startswith("Okafor et al. — ") for line in front.lines)
