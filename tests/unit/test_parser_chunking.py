"""Layout rules, document assembly and chunking."""

from __future__ import annotations

from citeproof.parser.blocks import HEADING, PARAGRAPH, Block
from citeproof.parser.chunking import chunk_document
from citeproof.parser.document import assemble, page_at
from citeproof.parser.layout import lines_to_blocks, remove_page_furniture
from citeproof.parser.wordpieces import CharEstimateCounter, WordPieceCounter, default_counter

SENTENCE = "Smith et al. reported an accuracy of 3.5 points above the baseline in Fig. 3 here."


def test_running_headers_footers_and_page_numbers_are_removed() -> None:
    bodies = ["Alpha begins.", "Beta follows it.", "Gamma is third.", "Delta.", "Epsilon ends."]
    pages = [
        [f"Proc. of the Test Conference 2024, pages {n}-9", body, f"{n}"]
        for n, body in enumerate(bodies, start=1)
    ]
    pages[2].append("Page 3 of 5")
    cleaned = remove_page_furniture(pages)
    assert cleaned == [[body] for body in bodies]


def test_two_page_documents_drop_repeated_edge_lines_and_keep_repeated_body_lines() -> None:
    def body(page: str) -> list[str]:
        return [f"Line {word} of page {page}." for word in "one two three four five".split()]

    pages = [
        ["Same line here.", *body("A")[:3], "Repeated in the body.", *body("A")[3:], "Other."],
        ["Same line here.", *body("B")[:3], "Repeated in the body.", *body("B")[3:], "More."],
    ]
    assert remove_page_furniture(pages) == [page[1:] for page in pages]


def test_headings_paragraphs_and_page_continuations() -> None:
    long = "x" * 70
    pages = [
        ["1 Introduction", f"{long} first paragraph", f"{long} ends here.", "Short end."],
        ["continued on the next page and ends.", "2 Related Work", "Body of section two."],
    ]
    blocks = lines_to_blocks(pages)
    assert blocks[0] == Block(HEADING, "1 Introduction", 1)
    assert blocks[-2].kind == HEADING and blocks[-2].text == "2 Related Work"
    continued = next(b for b in blocks if b.page == 2 and b.kind == PARAGRAPH)
    assert continued.text.startswith("continued")


def test_a_caption_inside_a_sentence_is_moved_after_it() -> None:
    long = "y" * 70
    lines = [f"{long} line {n}" for n in range(5)]
    lines += [f"{long} as shown by (Xiong et al.,", "Figure 1: Part of the graph.", "2017). Next."]
    blocks = lines_to_blocks([lines])
    assert [b.kind for b in blocks] == [PARAGRAPH, PARAGRAPH, "caption"]
    assert blocks[1].continues and blocks[1].text == "2017). Next."
    doc = assemble(blocks, 1)
    assert "(Xiong et al.,\n2017)." in doc.text


def test_hyphen_kept_at_line_end_joins_compounds() -> None:
    blocks = lines_to_blocks([["A state-of-", "the-art system works."]])
    assert blocks[0].text == "A state-of-the-art system works."


def test_assemble_page_starts_and_continuation_separator() -> None:
    blocks = [
        Block(PARAGRAPH, "Page one text", 1),
        Block(PARAGRAPH, "still the same sentence.", 2, continues=True),
        Block(PARAGRAPH, "Page four.", 4),
    ]
    doc = assemble(blocks, 4)
    assert doc.text == "Page one text\nstill the same sentence.\n\nPage four."
    # Page 3 has no text: it starts where page 4 does.
    assert doc.page_starts == [0, 14, 40, 40]
    assert page_at(doc.page_starts, 0) == 1
    assert page_at(doc.page_starts, 20) == 2
    assert page_at(doc.page_starts, 45) == 4
    for block, (start, end) in zip(blocks, doc.spans, strict=True):
        assert doc.text[start:end] == block.text


def _blocks_for(sections: dict[str, int], pages: int = 1) -> list[Block]:
    blocks = []
    for heading, sentences in sections.items():
        blocks.append(Block(HEADING, heading, 1))
        for index in range(sentences):
            page = 1 + index * pages // max(sentences, 1)
            blocks.append(Block(PARAGRAPH, SENTENCE, page))
    return blocks


def test_chunks_respect_budget_sentences_and_sections() -> None:
    blocks = _blocks_for({"1 Introduction": 30, "2 Method": 3}, pages=3)
    doc = assemble(blocks, 3)
    counter = WordPieceCounter()
    chunks = chunk_document(doc, blocks, counter, max_tokens=128, min_tokens=16)
    assert len(chunks) > 3
    for chunk in chunks:
        assert chunk.text == doc.text[chunk.char_start : chunk.char_end]
        assert counter.count([chunk.text])[0] + 2 <= 128
        # Whole sentences only: every chunk ends at a sentence end.
        assert chunk.text.endswith(("here.", "Introduction", "Method"))
        assert 1 <= chunk.page_start <= chunk.page_end <= 3
    # A heading starts a chunk and names it; no chunk mixes two sections.
    method = [c for c in chunks if c.heading == "2 Method"]
    assert method and method[0].text.startswith("2 Method")
    assert all("2 Method" not in c.text for c in chunks if c.heading == "1 Introduction")
    assert [c.ordinal for c in chunks] == list(range(len(chunks)))


def test_an_over_long_sentence_is_cut_at_words() -> None:
    text = " ".join(f"token{i}" for i in range(2000))
    blocks = [Block(PARAGRAPH, text, 1)]
    doc = assemble(blocks, 1)
    counter = default_counter()
    chunks = chunk_document(doc, blocks, counter, max_tokens=256, min_tokens=16)
    assert len(chunks) > 5
    assert all(counter.count([c.text])[0] <= 254 for c in chunks)
    assert " ".join(c.text for c in chunks) == text


def test_char_estimate_is_conservative_for_prose() -> None:
    exact = WordPieceCounter().count([SENTENCE * 5])[0]
    assert CharEstimateCounter().count([SENTENCE * 5])[0] >= exact
