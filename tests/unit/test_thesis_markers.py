"""Citation markers in body text, claims, and marker -> reference linking."""

from citeproof.parser.thesis import analyze_thesis

NUMERIC_REFERENCES = "\n".join(
    f"[{number}] A. Author{number} and B. Writer. Title number {number}. Journal, 20{10 + number}."
    for number in range(1, 13)
)

AUTHOR_YEAR_REFERENCES = """
Ammar, W., Groeneveld, D., and Bhagavatula, C. 2018. Construction of the literature graph.
In NAACL.
Daumé III, Hal. 2007. Frustratingly easy domain adaptation. In ACL.
Jimeno-Yepes, Antonio and Alan Aronson. 2011. Exploiting MeSH indexing. BMC Bioinformatics.
Smith, J. 2020a. First paper of the year. Journal of Things, 1(2):3-4.
Smith, J. 2020b. Second paper of the year. Journal of Things, 5(6):7-8.
Smith, J. and Jones, K. 2019. Joint work. In Proceedings of Stuff.
Smith, J., Jones, K., and Lee, M. 2019. Team work. In Proceedings of Stuff.
van Zuylen, Madeleine and Kyle Lo. 2016. Particles in names. In Workshop.
World Health Organization. 2014. Global status report on alcohol and health. WHO Press.
"""


def numeric_doc(body: str) -> str:
    return f"1 Introduction\n\n{body}\n\nReferences\n{NUMERIC_REFERENCES}\n"


def author_year_doc(body: str) -> str:
    return f"1 Introduction\n\n{body}\n\nReferences\n{AUTHOR_YEAR_REFERENCES}"


def links(text: str) -> list[tuple[str, str | None]]:
    analysis = analyze_thesis(text, [0])
    return [(citation.marker_text, citation.reference_label) for citation in analysis.citations]


def test_single_numeric_marker_links_to_entry_and_claim():
    text = numeric_doc(
        "Earlier work studied this. Transformers dominate parsing [3]. More follows."
    )
    analysis = analyze_thesis(text, [0])
    assert analysis.markers_found == 1
    (citation,) = analysis.citations
    assert citation.reference_label == "3"
    assert citation.claim_text == "Transformers dominate parsing [3]."
    assert citation.context_text == "Earlier work studied this."
    assert text[citation.marker_start : citation.marker_end] == "[3]"
    assert text[citation.claim_start : citation.claim_end] == citation.claim_text
    assert citation.page == 1


def test_numeric_list_and_en_dash_range_give_one_row_per_reference():
    text = numeric_doc("Parsing is solved [3–5, 9] and so is tagging [1,2].")
    assert links(text) == [
        ("[3–5, 9]", "3"),
        ("[3–5, 9]", "4"),
        ("[3–5, 9]", "5"),
        ("[3–5, 9]", "9"),
        ("[1,2]", "1"),
        ("[1,2]", "2"),
    ]
    assert analyze_thesis(text, [0]).markers_found == 2


def test_same_reference_twice_in_one_sentence_is_one_row():
    text = numeric_doc("Parsing [3] is solved, as [3] says.")
    assert links(text) == [("[3]", "3")]


def test_numeric_pinpoint_is_kept():
    text = numeric_doc("The exact bound is given in the survey [1, p. 45].")
    analysis = analyze_thesis(text, [0])
    (citation,) = analysis.citations
    assert (citation.reference_label, citation.pinpoint) == ("1", "p. 45")


def test_intervals_and_indices_are_not_citations():
    text = numeric_doc(
        "Scores lie in [0, 1] and the interval [2, 5] is closed. "
        "We set x[2] = 4 and a value in [1, 2000] is clipped. The year [2019] is prose."
    )
    assert links(text) == []


def test_markers_inside_reference_list_are_not_claims():
    text = numeric_doc("Only one claim here [2].")
    text += "\n[13] C. Other. Cites [4] inside the list. 2020.\n"
    analysis = analyze_thesis(text, [0])
    assert [c.reference_label for c in analysis.citations] == ["2"]


def test_page_comes_from_page_starts():
    body = "First page sentence.\n\nSecond page claim [2]."
    text = numeric_doc(body)
    second_page = text.index("Second page")
    analysis = analyze_thesis(text, [0, second_page])
    assert analysis.citations[0].page == 2


def test_parenthetical_author_year_with_multiple_works_and_suffixes():
    text = author_year_doc(
        "Graphs help search (Ammar et al., 2018; Smith, 2020a). "
        "Adaptation is easy (see Daumé, 2007, p. 45)."
    )
    analysis = analyze_thesis(text, [0])
    rows = [(c.marker_text, c.reference_label, c.pinpoint) for c in analysis.citations]
    assert rows == [
        ("(Ammar et al., 2018; Smith, 2020a)", "Ammar2018", None),
        ("(Ammar et al., 2018; Smith, 2020a)", "Smith2020a", None),
        ("(see Daumé, 2007, p. 45)", "Daume2007", "p. 45"),
    ]


def test_same_author_same_year_suffixes_link_to_the_right_entry():
    text = author_year_doc(
        "Smith (2020b) disagrees with Smith (2020a). Both appear (Smith, 2020a, b)."
    )
    assert links(text) == [
        ("Smith (2020b)", "Smith2020b"),
        ("Smith (2020a)", "Smith2020a"),
        ("(Smith, 2020a, b)", "Smith2020a"),
        ("(Smith, 2020a, b)", "Smith2020b"),
    ]


def test_narrative_markers_and_et_al_mid_sentence():
    text = author_year_doc(
        "As Ammar et al. (2018) showed, graphs scale. Smith and Jones (2019) agree with it. "
        "Later, Smith et al. (2019) extended the idea."
    )
    analysis = analyze_thesis(text, [0])
    rows = [(c.marker_text, c.reference_label) for c in analysis.citations]
    assert rows == [
        ("Ammar et al. (2018)", "Ammar2018"),
        ("Smith and Jones (2019)", "Smith2019"),
        ("Smith et al. (2019)", "Smith2019-2"),
    ]
    assert analysis.citations[0].claim_text == "As Ammar et al. (2018) showed, graphs scale."


def test_diacritics_hyphenated_names_particles_and_organisations():
    text = author_year_doc(
        "Adaptation is easy (Daume, 2007). MeSH helps (Jimeno-Yepes and Aronson, 2011). "
        "Names vary (van Zuylen and Lo, 2016). Alcohol harms health (World Health Organization, "
        "2014)."
    )
    assert [label for _, label in links(text)] == [
        "Daume2007",
        "Jimenoyepes2011",
        "Vanzuylen2016",
        "Worldhealthorganization2014",
    ]


def test_years_in_prose_are_not_citations():
    text = author_year_doc(
        "In 2019 the field changed (see Table 2). The data (collected in June 2018) were "
        "cleaned. The CoNLL-2003 set (Tjong, 2003b) is not in our list."
    )
    analysis = analyze_thesis(text, [0])
    # "(Tjong, 2003b)" is a well-formed citation missing from the list: reported, not linked.
    assert [(c.marker_text, c.reference_label) for c in analysis.citations] == [
        ("(Tjong, 2003b)", None)
    ]


def test_marker_split_over_lines_and_hyphenated_name():
    text = author_year_doc(
        "Graphs help (e.g., Ammar\net al.,\n2018) and MeSH (Jimeno-\nYepes and Aronson, 2011)."
    )
    assert [label for _, label in links(text)] == ["Ammar2018", "Jimenoyepes2011"]


def test_page_break_inside_a_sentence_keeps_one_claim():
    text = author_year_doc(
        "Graphs help search engines (e.g., Ammar et al.,\n12\n\n2018), we think."
    )
    analysis = analyze_thesis(text, [0])
    (citation,) = analysis.citations
    assert citation.reference_label == "Ammar2018"
    assert citation.claim_text.endswith("we think.")


def test_footnote_url_inside_a_parenthesis_is_skipped():
    text = author_year_doc(
        "Inline citations help (Ammar 15https://github.com/google/bert et al., 2018; Smith, 2020a)."
    )
    assert [label for _, label in links(text)] == ["Ammar2018", "Smith2020a"]


def test_run_together_table_text_gives_a_window_not_a_huge_claim():
    table = " ".join(f"cell{number} 0.{number}" for number in range(200))
    text = numeric_doc(f"Results {table} as reported [4] {table} end.")
    (citation,) = analyze_thesis(text, [0]).citations
    assert citation.reference_label == "4"
    assert "as reported [4]" in citation.claim_text
    assert len(citation.claim_text) < 700
    assert text[citation.claim_start : citation.claim_end] == citation.claim_text


def test_ieee_bracket_range_is_one_marker():
    text = numeric_doc("Detectors improved steadily [3]–[5], see also [9].")
    assert links(text) == [("[3]–[5]", "3"), ("[3]–[5]", "4"), ("[3]–[5]", "5"), ("[9]", "9")]


def test_organisation_cited_by_acronym():
    text = author_year_doc("Alcohol harms health (WHO, 2014).")
    assert links(text) == [("(WHO, 2014)", "Worldhealthorganization2014")]


def test_offsets_and_texts_are_verbatim_slices_of_raw_extractor_text():
    # pypdfium2-style text: CRLF line ends, U+FFFE at a line-break hyphen, a page number line.
    text = (
        "Earlier work exists.\r\nGraphs help search en\ufffe\r\ngines (e.g., Ammar et al.,\r\n"
        "12\r\n\r\n2018), we think.\r\n\r\nReferences\r\n"
        "Ammar, W., Groeneveld, D., and Bhagavatula, C. 2018. Construction of the literature "
        "graph. In NAACL.\r\n"
    )
    (citation,) = analyze_thesis(text, [0, text.index("2018), we")]).citations
    assert citation.reference_label == "Ammar2018"
    assert citation.claim_text == text[citation.claim_start : citation.claim_end]
    assert citation.marker_text == text[citation.marker_start : citation.marker_end]
    assert citation.claim_text.startswith("Graphs help search en")
    assert citation.claim_text.endswith("we think.")
    assert citation.context_text == "Earlier work exists."
    assert citation.page == 1


def test_vancouver_parenthesized_numbers_when_the_body_never_uses_brackets():
    text = (
        "Heat kills the elderly (1). Trees cool streets (2, 3). Roofs help little (3–4). "
        "By Eq. (2) the flux is constant, and values (0.5) are small.\n\nReferences\n"
        "1. Aalto H, Dubois M. Heat-related mortality. Eur J Health. 2023;31:45-60.\n"
        "2. Kowalczyk M, Brandt D. Street trees. Urban Clim. 2021;14:101-118.\n"
        "3. Hofer K, Lindqvist J. Green roofs. Build Env. 2020;9:377-392.\n"
        "4. Marchetti E. Cool pavements. Urban Clim. 2022;15:211-226.\n"
    )
    assert links(text) == [
        ("(1)", "1"),
        ("(2, 3)", "2"),
        ("(2, 3)", "3"),
        ("(3–4)", "3"),
        ("(3–4)", "4"),
    ]


def test_parenthesized_numbers_are_not_citations_when_brackets_are_used():
    text = numeric_doc("Trees cool streets [2]. Step (3) follows and (4) too [5]. Also [1].")
    assert [label for _, label in links(text)] == ["2", "5", "1"]


def test_prose_word_before_a_narrative_name_list_is_not_an_author():
    # "In Vienna, Hofer and Lindqvist (2020)" also reads as three authors; the list decides.
    text = (
        "In Vienna, Hofer and Lindqvist (2020) measured roof temperatures.\n\n"
        "References\n"
        "Hofer, K. and Lindqvist, J. (2020). Green roofs in Vienna. Reports 9, 377–392.\n"
        "Smith, J. (2019). Other. Press.\n"
        "Jones, A. (2018). More. Press.\n"
    )
    analysis = analyze_thesis(text, [0])
    assert [(c.marker_text, c.reference_label) for c in analysis.citations] == [
        ("Hofer and Lindqvist (2020)", "Hofer2020")
    ]


def test_three_author_narrative_marker_keeps_all_names_when_they_name_an_entry():
    text = (
        "Vienna, Hofer and Lindqvist (2020) measured roof temperatures.\n\n"
        "References\n"
        "Vienna, P., Hofer, K. and Lindqvist, J. (2020). Green roofs. Reports 9, 377–392.\n"
        "Smith, J. (2019). Other. Press.\n"
        "Jones, A. (2018). More. Press.\n"
    )
    analysis = analyze_thesis(text, [0])
    assert [(c.marker_text, c.reference_label) for c in analysis.citations] == [
        ("Vienna, Hofer and Lindqvist (2020)", "Vienna2020")
    ]


def _only_claim(body: str):
    analysis = analyze_thesis(numeric_doc(body), [0])
    (citation,) = analysis.citations
    assert citation.reference_label == "3"
    return citation


def test_marker_after_a_closing_quote_keeps_the_quoted_sentence():
    # The full stop sits inside the quotes, then the marker and a second full stop: the
    # splitter ends a sentence at the quote, yet the claim is the quoted sentence.
    cases = [
        'Earlier work. The drug was "well tolerated by the patients.” [3]. Next one.',
        "Earlier work. The drug was “well tolerated by the patients.” [3]. Next one.",
        'Earlier work. The drug was "well tolerated by the patients." [3]. Next one.',
        "Earlier work. The drug was 'well tolerated by the patients.' [3]. Next one.",
        "Earlier work. The drug was ‘well tolerated by the patients.’ [3]. Next one.",
    ]
    for body in cases:
        citation = _only_claim(body)
        claim = body[len("Earlier work. ") : body.index(" Next one.")]
        assert citation.claim_text == claim, body
        assert citation.context_text == "Earlier work.", body


def test_marker_after_a_closing_quote_without_a_full_stop_inside():
    for body in (
        'Earlier work. The drug was "well tolerated by the patients” [3]. Next one.',
        'Earlier work. The drug was "well tolerated by the patients" [3]. Next one.',
        "Earlier work. The drug was 'well tolerated by the patients' [3]. Next one.",
    ):
        citation = _only_claim(body)
        assert citation.claim_text == body[len("Earlier work. ") : body.index(" Next one.")]
        assert citation.context_text == "Earlier work."


def test_marker_between_two_full_stops_and_at_the_end_of_the_text():
    citation = _only_claim("Earlier work. The drug was well tolerated. [3].")
    assert citation.claim_text == "The drug was well tolerated. [3]."
    assert citation.context_text == "Earlier work."


def test_marker_only_paragraph_is_not_joined_to_the_paragraph_before():
    citation = _only_claim("The drug was well tolerated.\n\n[3].")
    assert citation.claim_text == "[3]."
    assert citation.context_text == ""


def test_marker_after_a_closing_quote_in_author_year_style():
    text = author_year_doc(
        'Earlier work. Adaptation is "frustratingly easy." (Daumé III, 2007). Next one.'
    )
    (citation,) = analyze_thesis(text, [0]).citations
    assert citation.reference_label == "Daume2007"
    assert citation.claim_text == 'Adaptation is "frustratingly easy." (Daumé III, 2007).'


def test_marker_after_a_closing_quote_before_a_lower_case_sentence():
    text = numeric_doc(
        'It found no link with "increased overall mortality." [3]. hydroxychloroquine could '
        "reduce the chance of ventilation [4]."
    )
    claims = {c.reference_label: c.claim_text for c in analyze_thesis(text, [0]).citations}
    assert claims == {
        "3": 'It found no link with "increased overall mortality." [3].',
        "4": "hydroxychloroquine could reduce the chance of ventilation [4].",
    }
