"""A numbered entry's title on the line after its authors is no appendix heading.

Seeded findings benchmark, seed 424242, thesis t056 (PDF, two columns, hanging indent): the
entry "[11] H. McDonald, P. Moreau, P. Haddad." filled its first line and its title went on
"A Study Quantifying the" / "Hand-to-Face Contact Rate ...". A letter, a capitalised word and
no full stop read as a lettered appendix heading ("A Background"), which ended the list at
[11]: markers [12]-[18] were called beyond the list (CP415 precision 0.888 in PDF), [11] lost
its title (source-missing) and an entry listed later went uncited. After a numbered entry's
label and authors comes its title, as after an author-year entry's authors and year."""

from __future__ import annotations

from citeproof.devkit.pdfgen.citestyles import Run, StyledThesis
from citeproof.devkit.pdfgen.thesis_layout import random_layout, render_thesis_pdf
from citeproof.parser.blocks import HEADING
from citeproof.parser.extract import parse_bytes
from citeproof.parser.layout import lines_to_blocks
from citeproof.parser.settings import ParserSettings
from citeproof.parser.thesis import analyze_thesis

_ENTRIES = (
    "P. Osei. The effect of large-scale anti-contagion policies on the COVID-19 pandemic. "
    "Vaccine 53, 1070–1073, 2003.",
    "A. Ortega Ruiz, H. Silva, I. Kaur. Anti-inflammatory therapy for COVID-19 infection: the "
    "case for colchicine. Scientific Reports 31, 634–637, 2014.",
    "H. McDonald, P. Moreau, P. Haddad. A Study Quantifying the Hand-to-Face Contact Rate and "
    "Its Potential Application to Predicting Respiratory Tract Infection. Molecular Cell 30, "
    "1915–1919, 2021.",
    "S. McDonald, M. Andersen. Pharmacologic Treatments for Coronavirus Disease 2019 "
    "(COVID-19): A Review. Vaccine 16, 1–4, 2010.",
    "M. Jimeno-Yepes, J.-P. Marchetti. Olfactory transmucosal SARS-CoV-2 invasion as a port of "
    "central nervous system entry in individuals with COVID-19. Molecular Cell 8, 1–4, 2018.",
    "L. Benali, S. García, L. Ferreira. Smoking is Associated with COVID-19 Progression: A "
    "Meta-Analysis. Journal of Clinical Investigation 8, 253–256, 2021.",
)


def _thesis() -> StyledThesis:
    sentence = "Face masks were worn by most adults in shops during the spring of that year"
    paragraphs = tuple(
        (Run(f"{sentence} [{number}]. " * 3),) for number in range(1, len(_ENTRIES) + 1)
    )
    return StyledThesis(
        style="numeric",
        title="A review",
        author="A. Student",
        paragraphs=paragraphs,
        entries=tuple((f"[{n}]", text) for n, text in enumerate(_ENTRIES, start=1)),
        entry_work_keys=tuple(f"w{n}" for n in range(1, len(_ENTRIES) + 1)),
        claims=(),
        sentences=(),
        citations=(),
    )


def test_the_title_line_after_a_numbered_entrys_authors_keeps_the_list_going() -> None:
    # The thesis's own layout: two columns, 9.5 pt entries, a 7 mm hanging indent - the third
    # entry's authors fill its first line.
    layout = random_layout("424242/s424242-t056")
    data = render_thesis_pdf(_thesis(), layout)
    analysis = parse_bytes(data, "thesis.pdf", None, ParserSettings(), kind="thesis").analysis
    assert analysis is not None
    assert [" ".join(r.raw.split()) for r in analysis.references] == list(_ENTRIES)
    assert all(citation.reference_label is not None for citation in analysis.citations)


def test_a_title_line_after_a_numbered_entrys_authors_is_no_heading() -> None:
    lines = [
        "[3] H. McDonald, P. Moreau, P. Haddad.",
        "A Study Quantifying the",
        "Hand-to-Face Contact Rate. Molecular Cell 30, 1915–1919, 2021.",
        "[4] S. McDonald, M. Andersen. Pharmacologic Treatments. Vaccine 16, 1–4, 2010.",
    ]
    blocks = lines_to_blocks([lines], entry_starts=[[lines[0], lines[3]]])
    assert all(block.kind != HEADING for block in blocks)
    # The entry's short first line ends a block; the title's lines go on with it.
    assert blocks[1].text.startswith("A Study Quantifying the")
    assert blocks[1].continues


def test_a_title_line_on_its_own_after_a_numbered_entrys_authors_does_not_end_the_list() -> None:
    text = (
        "Body [1], [2] and [3].\n\nReferences\n\n"
        "[1] P. Osei. The effect of policies. Vaccine 53, 1070–1073, 2003.\n\n"
        "[2] H. McDonald, P. Moreau, P. Haddad.\n\nA Study Quantifying the\n\n"
        "Hand-to-Face Contact Rate. Molecular Cell 30, 1915–1919, 2021.\n\n"
        "[3] S. McDonald, M. Andersen. Pharmacologic Treatments. Vaccine 16, 1–4, 2010."
    )
    analysis = analyze_thesis(text, [0])
    assert [r.label for r in analysis.references] == ["1", "2", "3"]
    assert analysis.references[1].title is not None
    assert analysis.references[1].title.startswith("A Study Quantifying")
