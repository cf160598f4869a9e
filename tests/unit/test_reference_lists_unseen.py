"""Reference lists in layouts the style matrix does not print, each a failure the randomly drawn
lists of bench-extraction found (`pdfgen.reference_formats`): titles without full stops, titles
that open like an entry ("COVID-19, 2019: ...", "From April to July 2021: ..."), a title on its
own line after "(2020).", the next entry on the line right after the last title line (no gap,
no indent), organisations and particles in compact author lists, "et al" without its full stop,
lines that pass for appendix headings. Every entry must be found whole and every citation
linked to its own entry."""

from __future__ import annotations

import msgspec
import pytest

from citeproof.devkit.pdfgen.citestyles import (
    STYLE_AUTHOR_YEAR_RANDOM,
    Claim,
    ThesisContent,
    Work,
    styled,
)
from citeproof.devkit.pdfgen.reference_formats import (
    NAMES_COMPACT,
    NAMES_GIVEN_FIRST,
    NAMES_INVERTED,
    TITLE_BARE,
    TITLE_COMMA,
    TITLE_STOP,
    YEAR_BRACKETED,
    YEAR_BRACKETED_STOP,
    YEAR_COMMA,
    YEAR_STOP,
    EntryFormat,
)
from citeproof.devkit.pdfgen.thesis_layout import Layout, render_thesis_docx, render_thesis_pdf
from citeproof.parser.extract import parse_bytes
from citeproof.parser.settings import ParserSettings
from citeproof.parser.thesis import analyze_thesis
from citeproof.text.names import is_initial, surname_of

_AUTHORS = [
    (("Lindqvist", "Lindqvist"), ("Hiroshi", "McDonald"), ("Linh", "Papadopoulos")),
    (("Élodie", "de la Cruz"),),
    (("Markus", "Costa"), ("Sofia", "Fischer"), ("Ana", "Jimeno-Yepes"), ("Eva", "Kim")),
    (("", "World Health Organization"),),
    (("Wei", "Okafor"), ("Petra", "Kaur"), ("Jonas", "Novak")),
    (("Claire", "Brennan"), ("Chidi", "Janssen"), ("Luca", "Hofer"), ("Piotr", "Kowalski"),
     ("Ingrid", "McDonald")),
    (("Antonio", "Silva"),),
    (("Siobhan", "Weber"), ("Pieter", "Nowak")),
]  # fmt: skip
# Titles that open like an entry head, hold dates, ranges, counts and dashes, end in a word.
_TITLES = [
    "COVID-19, 2019: Does molecular architecture of early dissemination hold",
    "From April to July 2021: efficacy of face shields against cough aerosol droplets",
    "Coronavirus Disease Outbreak in Call Center, South Korea, in Lombardy, Italy, 2021",
    "A SARS-CoV-2-Human protein interaction map reveals drug targets",
    "Potential effects of coronaviruses on the cardiovascular system: A Review (40 years on)",
    "Mechanistic transmission modeling of COVID-19 on the Diamond Princess cruise ship",
    "Excess deaths by age - United States, January 26-October 3, 2020",
    "Transmission of SARS-CoV-2 in the Skagit Valley Chorale superspreading event",
]


def _content() -> ThesisContent:
    works = []
    for index, (authors, title) in enumerate(zip(_AUTHORS, _TITLES, strict=True)):
        report = index in (2, 7)
        works.append(
            Work(
                key=f"w{index}",
                authors=authors,
                year=2019 + index % 4,
                title=title,
                venue=None if report else "Journal of Infection",
                volume=None if report else 10 + index,
                pages=None if report else f"{index + 1}–{index + 90}",
                url=f"https://www.example.org/reports/w{index}" if report else None,
            )
        )
    claims = [
        Claim(f"Finding number {index} holds in the studied population of patients", (f"w{index}",))
        for index in range(len(works))
    ]
    claims.append(Claim("Two studies agree on the main effect of the measure", ("w1", "w4")))
    return ThesisContent(
        title="A review", author="A. Student", works=tuple(works), claims=tuple(claims)
    )


def _letters(text: str) -> str:
    return "".join(char for char in text if char.isalnum())


def _check(thesis, data: bytes, filename: str) -> None:
    parsed = parse_bytes(data, filename, None, ParserSettings(), kind="thesis")
    analysis = parsed.analysis
    assert analysis is not None
    # Letters and digits only: a URL broken over two lines of a narrow column comes back with a
    # space in it, which is extraction's, not the list's.
    found = [_letters(reference.raw) for reference in analysis.references]
    expected = [_letters(text) for _, text in thesis.entries]
    assert found == expected
    by_label = dict(
        zip((r.label for r in analysis.references), thesis.entry_work_keys, strict=True)
    )
    cited = {(c.claim, c.work_key) for c in thesis.citations}
    linked = {
        (next(i for i, claim in enumerate(thesis.claims)
              if claim[:20].lower() in c.claim_text.lower()),
         by_label[c.reference_label])
        for c in analysis.citations
        if c.reference_label is not None
    }  # fmt: skip
    assert linked == cited
    assert all(c.reference_label is not None for c in analysis.citations)


# No gap between entries and no indent: only the text tells where an entry starts.
FLUSH_NO_GAP = Layout(hanging_indent_mm=0.0, entry_gap_pt=0.0, first_line_indent_mm=0.0)
FIRST_LINE_NO_GAP = msgspec.structs.replace(FLUSH_NO_GAP, reference_first_line_mm=8.0)
TWO_COLUMNS_HANGING = Layout(columns=2, hanging_indent_mm=10.0, entry_gap_pt=0.0, body_size=11.0)

FORMATS = {
    # "Smith, J. (2020)." then the title on its own line, titles without full stops, reports
    # ending in their title: the reported thesis.
    "inverted-bare-broken": EntryFormat(
        name_order=NAMES_INVERTED, year_form=YEAR_BRACKETED_STOP, title_end=TITLE_BARE,
        final_stop=False, reports_without_url=True, break_share=1.0,
    ),
    "inverted-comma-reports": EntryFormat(
        name_order=NAMES_INVERTED, year_form=YEAR_BRACKETED, title_end=TITLE_COMMA,
        venue_issue=False, final_stop=False, reports_without_url=True,
    ),
    "compact-et-al-stop": EntryFormat(
        name_order=NAMES_COMPACT, initial_dots=False, last_joiner=" & ", et_al_after=3,
        year_form=YEAR_STOP, title_end=TITLE_BARE, reports_without_url=False,
    ),
    "compact-comma-year": EntryFormat(
        name_order=NAMES_COMPACT, initial_dots=False, year_form=YEAR_COMMA,
        title_end=TITLE_BARE, web_lead="Online: ",
    ),
    "given-first-no-dots": EntryFormat(
        name_order=NAMES_GIVEN_FIRST, initial_dots=False, last_joiner=", ",
        year_form=YEAR_BRACKETED, title_end=TITLE_STOP, final_stop=False,
    ),
}  # fmt: skip
LAYOUTS = {
    "flush": FLUSH_NO_GAP,
    "first-line": FIRST_LINE_NO_GAP,
    "two-columns": TWO_COLUMNS_HANGING,
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("entry_format", sorted(FORMATS))
def test_pdf_lists_in_unseen_formats_split_entry_by_entry(entry_format: str, layout: str) -> None:
    thesis = styled(_content(), STYLE_AUTHOR_YEAR_RANDOM, FORMATS[entry_format])
    _check(thesis, render_thesis_pdf(thesis, LAYOUTS[layout]), "thesis.pdf")


@pytest.mark.parametrize("entry_format", sorted(FORMATS))
def test_docx_lists_in_unseen_formats_split_entry_by_entry(entry_format: str) -> None:
    thesis = styled(_content(), STYLE_AUTHOR_YEAR_RANDOM, FORMATS[entry_format])
    _check(thesis, render_thesis_docx(thesis, FLUSH_NO_GAP), "thesis.docx")


# --- the rules, on plain text ---------------------------------------------------------------
def _labels(text: str) -> list[str]:
    return [reference.label for reference in analyze_thesis(text, [0]).references]


def test_a_title_that_opens_like_an_organisation_and_a_year_stays_in_its_entry():
    text = (
        "Body (Lindqvist et al., 2022).\n\nReferences\n\n"
        "Lindqvist, L., McDonald, H. and Rossi, M. (2022).\n"
        "COVID-19, 2019: Does molecular architecture hold. BMJ Open 58(3), 360–465.\n"
    )
    (reference,) = analyze_thesis(text, [0]).references
    assert reference.title == "COVID-19, 2019: Does molecular architecture hold"


def test_a_title_on_the_line_after_the_year_is_never_an_entry_of_its_own():
    """Right after an entry's authors and year comes its title, whatever it looks like."""
    text = (
        "Body (Lindqvist and Ivanova, 2020).\n\nReferences\n\n"
        "Lindqvist W & Ivanova J-P. 2020. Coronavirus Disease Outbreak in Call Center, South "
        "Korea, in Lombardy, Italy, 2021 Clinical Microbiology Reviews 14(1), 313–643.\n"
    )
    assert _labels(text) == ["Lindqvist2020"]


def test_words_of_titles_are_no_author_list():
    text = (
        "Body (García et al., 2021).\n\nReferences\n\n"
        "García J, Müller S, McDonald L, et al. 2021.\n"
        "From April to July 2021: Efficacy of Face Shields Against Cough Aerosol Droplets "
        "Vaccine 26(6), 390–480.\n"
    )
    assert _labels(text) == ["Garcia2021"]


def test_et_al_without_its_full_stop_closes_an_author_list():
    text = (
        "Body (Andersen, 2019; Andersen et al., 2021).\n\nReferences\n\n"
        "Andersen H. 2019. Evolutionary history of SARS-CoV-2 Online: https://example.org/r1\n"
        "Andersen I, Moreau C, Novak S, et al. 2021. Interregional spread from a single "
        "introduction Vaccine 58(3), 48–590.\n"
    )
    assert _labels(text) == ["Andersen2019", "Andersen2021"]


def test_a_trailing_comma_after_the_title_ends_the_entry_at_a_paragraph_break():
    """ "..., 2020," ends a title once the entry has its year; only before the year does a
    trailing comma continue the author list."""
    text = (
        "Body (Chen, 2022; Chen et al., 2021).\n\nReferences\n\n"
        "Chen, É. (2022). COVID-19 outbreak associated with air conditioning, China, 2020,\n\n"
        "Chen, S., Andersen, J. and Nguyen, A. (2021). Racial and ethnic disparities, "
        "The Lancet 51, 144–850.\n"
    )
    assert _labels(text) == ["Chen2022", "Chen2021"]


def test_an_entry_right_after_a_title_ending_in_a_word_starts_when_entries_open_alike():
    lines = [
        "Costa, L., Horvath, P. and Tanaka, C. (2020). Transmission in the Skagit Valley "
        "Chorale superspreading event",
        "Dubois, C. (2022). Does tracking the reach of kin loss hold? BMJ Open 9(3), 371–863.",
        "Fischer, E. and Moreau, C. (2019). Cluster randomised trial of masks",
        "García, J. (2021). Efficacy of face shields. Vaccine 26(6), 390–480.",
        "Kaur, P. (2019). Masks in schools. Vaccine 2(1), 1–9.",
        "Kim, E. and Novak, J. (2020). Gowns in wards. Vaccine 3(1), 10–19.",
        "Sato, H. and Chen, É. (2020). Hand-to-face contact rate – findings from 25 sites",
        "World Health Organization (2020). A protein interaction map. BMJ Open 10(4), 125–588.",
    ]
    text = (
        "Body (Costa et al., 2020; Dubois, 2022; Fischer and Moreau, 2019; García, 2021; "
        "Kaur, 2019; Kim and Novak, 2020; Sato and Chen, 2020; World Health Organization, 2020)."
        "\n\nReferences\n\n" + "\n".join(lines) + "\n"
    )
    assert _labels(text) == [
        "Costa2020",
        "Dubois2022",
        "Fischer2019",
        "Garcia2021",
        "Kaur2019",
        "Kim2020",
        "Sato2020",
        "Worldhealthorganization2020",
    ]


def test_particles_and_initials_after_a_surname():
    assert surname_of("de la Cruz É") == "de la Cruz"
    assert surname_of("van Dijk PJ") == "van Dijk"
    assert surname_of("García Márquez G") == "García Márquez"
    assert surname_of("Smith JR") == "Smith"
    assert surname_of("Pieter van Dijk") == "van Dijk"
    assert is_initial("É") and is_initial("Ø.")


def test_a_one_letter_surname_is_no_part_of_an_organisation():
    """ "de la Cruz É" once parsed as surname "É", which is "in" World Health Organization: the
    organisation's citation then matched two entries and was left unlinked."""
    text = (
        "Body (World Health Organization, 2022).\n\nReferences\n\n"
        "É, 2022, Combined point of care testing Journal of Infection 12(6), 314–764\n"
        "World Health Organization, 2022, We shouldn't worry when a virus mutates Journal of "
        "Hospital Infection 28(1), 386–591\n"
    )
    analysis = analyze_thesis(text, [0])
    assert [c.reference_label for c in analysis.citations] == ["Worldhealthorganization2022"]


# --- long lists over several pages ---------------------------------------------------------
_SURNAMES = ("Chen", "Weber", "Okafor", "García", "Novak", "Sato", "Haddad", "Larsen", "Kaur")
_VENUES = ("Journal of Hospital Infection", "Vaccine", "BMJ Open")
_WORDS = (
    "masks ventilation saliva testing schools wards gloves cohorts aerosols vaccines kin loss "
    "contact tracing hand hygiene seroprevalence wastewater dashboards"
).split()


def _long_content(works: int = 36) -> ThesisContent:
    """Many entries, so that the list runs over pages: venue lines fall at page feet, the
    running header sits above a page's first entry, titles are broken at page ends."""
    made = []
    for index in range(works):
        words = [_WORDS[(index * 7 + k * 3) % len(_WORDS)] for k in range(6 + index % 5)]
        title = " ".join(words).capitalize()
        if index % 4 == 1:
            title = f"{index % 9 + 1} Sites in the United States, March–May 2020: {title}"
        authors = tuple(
            (given, _SURNAMES[(index + k) % len(_SURNAMES)])
            for k, given in enumerate(("Ana", "Jonas", "Wei", "Eva")[: 1 + index % 4])
        )
        report = index % 5 == 2
        made.append(
            Work(
                key=f"w{index}",
                authors=authors,
                year=2019 + index % 4,
                title=title,
                venue=None if report else _VENUES[index % len(_VENUES)],
                volume=None if report else 3 + index,
                pages=None if report else f"{10 + index}–{200 + index}",
                url=f"https://www.example.org/reports/w{index}" if report else None,
            )
        )
    claims = [
        Claim(f"Finding number {index} holds in the population studied", (f"w{index}",))
        for index in range(works)
    ]
    return ThesisContent(title="A long review", author="A. Student", works=tuple(made),
                         claims=tuple(claims))  # fmt: skip


@pytest.mark.parametrize(
    "entry_format",
    ["inverted-bare-broken", "compact-et-al-stop", "inverted-comma-reports"],
)
def test_a_long_flush_list_without_gaps_over_pages(entry_format: str) -> None:
    """Several pages of entries: a running header above each page's first entry is no gap
    between entries, a venue line repeated at two page feet is no running footer, a title line
    opening with a number at a page foot ("3 Sites in ...") is no footnote."""
    thesis = styled(_long_content(), STYLE_AUTHOR_YEAR_RANDOM, FORMATS[entry_format])
    layout = msgspec.structs.replace(FLUSH_NO_GAP, running_header=True, body_size=11.0)
    _check(thesis, render_thesis_pdf(thesis, layout), "thesis.pdf")


# --- the page rules, on lines ------------------------------------------------------------------
def test_a_venue_line_at_two_page_feet_is_no_running_footer():
    """Digits are ignored when edge lines are compared; a reference list's venue lines differ in
    volume, issue and pages, a running footer in its page number at most."""
    from citeproof.parser.layout import remove_page_furniture

    body = [f"Body line {n} of the list goes on here" for n in range(8)]
    pages = [
        ["Running title of the thesis", *body, "Journal of Hospital Infection 6(7), 234–664.", "1"],
        ["Running title of the thesis", *body, "Journal of Hospital Infection 5(6), 156–730.", "2"],
        ["Running title of the thesis", *body, "Vaccine 3(1), 10–19.", "3"],
    ]
    cleaned = remove_page_furniture(pages)
    assert "Journal of Hospital Infection 6(7), 234–664." in cleaned[0]
    assert "Journal of Hospital Infection 5(6), 156–730." in cleaned[1]
    assert all("Running title of the thesis" not in page for page in cleaned)
    footers = [[*body, f"Proceedings of the Workshop 2020, pages 11–19 | {n}"] for n in (4, 5, 6)]
    assert all(len(page) == len(body) for page in remove_page_furniture(footers))


def test_a_title_line_opening_with_a_number_at_a_page_foot_is_no_footnote():
    """Page-foot lines opening with a number are footnotes in a body; in a reference list,
    after an entry's authors and year or in the middle of its title, they are the entry's."""
    from citeproof.parser.layout import lines_to_blocks

    first_page = [
        "Kim, E. and Novak, J. (2019). Gowns in surgical wards of three hospitals. Vaccine 3, 1–9.",
        "Okafor, E., Kim, L., Weber, S. and Sato, H. (2020).",
        "1 January 2019 – 30 June 2019: public attitudes to stay-at-home orders. BMJ 4, 2–8.",
        "Papadopoulos, J. (2020). Seroprevalence of antibodies to SARS-CoV-2 in",
        "10 Sites in the United States, March 23-May 12, 2020. Vaccine 3, 1–9.",
        "de la Cruz, É. and Kim, J. (2021). 1 January 2021 –",
        "30 June 2021: Transplacental transmission of SARS-CoV-2 infection, Vaccine 2, 1–5.",
    ]
    second_page = ["Weber, S. (2021). Masks in schools. Vaccine 5, 3–7."]
    starts = [[first_page[0], first_page[1], first_page[3], first_page[5]], [second_page[0]]]
    blocks = lines_to_blocks([first_page, second_page], starts)
    # Nothing is moved away as a footnote: the lines stay in order, each with its entry.
    assert " ".join(block.text for block in blocks) == " ".join(first_page + second_page)
    opening = [block.text.startswith(tuple(starts[0] + starts[1])) for block in blocks]
    assert all(opening[i] or blocks[i].continues for i in range(len(blocks)))


def test_a_number_after_a_title_word_does_not_end_an_entry():
    text = (
        "Body (Yilmaz, 2019; Kim and Novak, 2020).\n\nReferences\n\n"
        "Kim, E, Novak, J, 2020, Gowns in surgical wards, Vaccine, 3, 10–19\n"
        "Yilmaz, P, 2019, High Proportion of Asymptomatic Infections in 9\n"
        "Long-Term Care Facilities, Pasadena, California, USA, April 2020, Journal of "
        "Hospital Infection, 55, 195–653\n"
    )
    assert _labels(text) == ["Kim2020", "Yilmaz2019"]
