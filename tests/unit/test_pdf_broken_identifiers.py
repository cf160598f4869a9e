"""A DOI or link broken over two lines of a narrow column is read whole (seed 424242, theses
t016 and t056, two-column PDFs): the lines were joined with a space ("https://doi.org/10
.9341/seed...", "htt ps://doi.org/...", "https://doi.org/10.5486/s eed.1269.23353"), entries
lost or cut their DOIs, and two copies of one work listed twice no longer read alike - the
benchmark's scorer paired CP412 (reported on the later copy) with the earlier one: a
duplicate-entry false alarm and a miss."""

from __future__ import annotations

from citeproof.devkit.pdfgen.citestyles import Run, StyledThesis
from citeproof.devkit.pdfgen.thesis_layout import random_layout, render_thesis_pdf
from citeproof.parser.extract import parse_bytes
from citeproof.parser.layout import lines_to_blocks
from citeproof.parser.settings import ParserSettings

_WORKS = (
    ("P. Osei. The effect of large-scale anti-contagion policies on the COVID-19 pandemic. "
     "Vaccine 53, 1070–1073, 2003.", "10.9341/seed.1267.45193"),
    ("A. Ortega Ruiz, H. Silva, I. Kaur. Anti-inflammatory therapy for COVID-19 infection: the "
     "case for colchicine. Scientific Reports 31, 634–637, 2014.", "10.9688/seed.1257.56969"),
    ("L. Benali, S. García, L. Ferreira. Smoking is Associated with COVID-19 Progression: A "
     "Meta-Analysis. Journal of Clinical Investigation 8, 253–256, 2021.",
     "10.6169/seed.1260.73828"),
    ("W. Fischer, M. Novak, P. Okonkwo, L. Chen. An orally bioavailable broad-spectrum "
     "antiviral inhibits SARS-CoV-2 in human airway epithelial cell cultures and multiple "
     "coronaviruses in mice. Vaccine 44, 1–5, 2020.", "10.5486/seed.1269.23353"),
    ("P. Svensson. Combined point of care nucleic acid and antibody testing for SARS-CoV-2: a "
     "prospective cohort study in suspected moderate to severe COVID-19 disease. Vaccine 80, "
     "1–4, 2021.", "10.3201/seed.1256.80284"),
    ("W. Kowalski, P. Şahin, S. Svensson, L. Petrov, C. Andersen. Clinical characteristics and "
     "intrauterine vertical transmission potential of COVID-19 infection in nine pregnant "
     "women. Journal of Clinical Investigation 41, 846–849, 2021.", "10.2286/seed.1271.80038"),
    # Last, without a DOI and long: a bare number among the page's last three lines ("038", a
    # DOI's tail) is still taken for the page number.
    ("A. Kim, B. Rossi. Masks worn in shops, offices and schools during the first year of the "
     "pandemic: a survey of adults in five cities of three countries. Vaccine 1, 1–2, 2020.",
     None),
)  # fmt: skip


def _printed(text: str, doi: str | None) -> str:
    return f"{text} https://doi.org/{doi}" if doi else text


def test_dois_broken_over_lines_of_a_narrow_column_are_read_whole() -> None:
    sentence = "Face masks were worn by most adults in shops during the spring of that year"
    count = len(_WORKS)
    thesis = StyledThesis(
        style="numeric",
        title="A review",
        author="A. Student",
        paragraphs=tuple((Run(f"{sentence} [{n}]. " * 3),) for n in range(1, count + 1)),
        entries=tuple(
            (f"[{n}]", _printed(text, doi)) for n, (text, doi) in enumerate(_WORKS, start=1)
        ),
        entry_work_keys=tuple(f"w{n}" for n in range(1, count + 1)),
        claims=(),
        sentences=(),
        citations=(),
    )
    # Thesis t056's layout: two columns, 9.5 pt entries under a 7 mm hanging indent.
    data = render_thesis_pdf(thesis, random_layout("424242/s424242-t056"))
    analysis = parse_bytes(data, "thesis.pdf", None, ParserSettings(), kind="thesis").analysis
    assert analysis is not None
    assert [reference.doi for reference in analysis.references] == [doi for _, doi in _WORKS]
    assert [" ".join(reference.raw.split()) for reference in analysis.references] == [
        _printed(text, doi) for text, doi in _WORKS
    ]


def _joined(*lines: str) -> str:
    (block,) = lines_to_blocks([list(lines)])
    return block.text


def test_a_line_that_goes_on_with_a_link_is_joined_without_a_space() -> None:
    assert _joined("Vaccine 53, 2003. https://doi.org/10", ".9341/seed.1267.45193") == (
        "Vaccine 53, 2003. https://doi.org/10.9341/seed.1267.45193"
    )
    assert _joined("Reports 8, 2021. htt", "ps://doi.org/10.6169/seed.1260.738", "28") == (
        "Reports 8, 2021. https://doi.org/10.6169/seed.1260.73828"
    )
    assert _joined("2024. https:/", "/doi.org/10.8346/seed.349.49225") == (
        "2024. https://doi.org/10.8346/seed.349.49225"
    )


def test_words_after_a_whole_link_keep_their_space() -> None:
    assert _joined("Data at https://example.org/masks.", "The next sentence ends here.") == (
        "Data at https://example.org/masks. The next sentence ends here."
    )
    assert _joined("doi:10.1000/xyz123", "PMID: 123456.") == "doi:10.1000/xyz123 PMID: 123456."
    assert _joined("See https://example.org/report", "accessed on 3 May.") == (
        "See https://example.org/report accessed on 3 May."
    )
    # A year after a link that a comma or nothing closed: "..., https://example.org/w6," / "2020."
    assert _joined("uptake. https://www.example.org/reports/w6,", "2020.") == (
        "uptake. https://www.example.org/reports/w6, 2020."
    )
    assert _joined("uptake. https://www.example.org/reports/w6", "2020.") == (
        "uptake. https://www.example.org/reports/w6 2020."
    )
