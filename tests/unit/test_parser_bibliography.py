"""A document's own reference list is kept in its text but not chunked as evidence."""

from __future__ import annotations

from pathlib import Path

import pytest

from citeproof.parser.bibliography import is_reference_list_chunk, without_reference_list
from citeproof.parser.chunking import Chunk
from citeproof.parser.extract import parse_bytes
from citeproof.parser.settings import ParserSettings

ENTRIES = (
    "[1] Jacob Devlin, Ming-Wei Chang, Kenton Lee, and Kristina Toutanova. 2019. BERT: "
    "Pre-training of deep bidirectional transformers. In NAACL, pages 4171-4186. "
    "[2] Kyle Lo, Lucy Lu Wang, Mark Neumann, Rodney Kinney, and Daniel Weld. 2020. S2ORC: "
    "The semantic scholar open research corpus. In ACL, pages 4969-4983."
)
PROSE = (
    "Earlier work on citation checking relied on manual inspection by reviewers, which is slow "
    "and rarely complete. Automatic approaches first matched claims to abstracts and later to "
    "full texts, but they seldom told the reader which passage supported the claim and why the "
    "match should be trusted, which is what this thesis sets out to change for every claim."
)


def chunk(ordinal: int, heading: str | None, text: str) -> Chunk:
    return Chunk(ordinal, 1, 1, 0, len(text), heading, text, 50)


def test_reference_list_chunks_go_and_the_rest_are_renumbered() -> None:
    chunks = [
        chunk(0, "1 Introduction", PROSE),
        chunk(1, "References", ENTRIES),
        chunk(2, "7 REFERENCES", ENTRIES),
        chunk(3, "A Background & Terminology", PROSE),
    ]
    kept = without_reference_list(chunks)
    assert [(c.ordinal, c.heading) for c in kept] == [
        (0, "1 Introduction"),
        (1, "A Background & Terminology"),
    ]


def test_a_literature_review_section_is_prose_and_stays() -> None:
    assert not is_reference_list_chunk(chunk(0, "2 Literature", PROSE))
    assert is_reference_list_chunk(chunk(0, "Literaturverzeichnis", ENTRIES))


def test_a_document_that_is_only_a_reference_list_keeps_it() -> None:
    chunks = [chunk(0, "Bibliography", ENTRIES)]
    assert without_reference_list(chunks) == chunks


@pytest.mark.parametrize(
    "name", ["1706.09498v1.pdf", "2020.acl-main.447.pdf", "2302.07302v1.pdf", "N18-3011.pdf"]
)
def test_real_papers_keep_their_bibliography_in_the_text_but_not_in_chunks(
    shared_data: Path, name: str
) -> None:
    path = shared_data / "papers" / name
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    parsed = parse_bytes(path.read_bytes(), name, None, ParserSettings())
    headings = {chunk.heading for chunk in parsed.chunks}
    assert not any(h and h.strip().lower().endswith("references") for h in headings), headings
    assert [chunk.ordinal for chunk in parsed.chunks] == list(range(len(parsed.chunks)))
    assert "references" in parsed.text.lower()
    # The body is all still there: the last chunk before the bibliography and any appendix.
    assert len(parsed.chunks) >= 30
