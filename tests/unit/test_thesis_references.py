"""Reference section finding, entry splitting and entry parsing."""

from citeproof.parser.thesis import analyze_thesis
from citeproof.parser.thesis.fields import parse_entry, split_authors
from citeproof.parser.thesis.sections import find_reference_section


def references(text: str):
    return analyze_thesis(text, [0]).references


def test_bracket_numbered_entries_with_doi_and_arxiv():
    text = (
        "Body text [1].\n\nReferences\n"
        "[1] Y. Abouelnaga, B. Smith, and C. Jones. Distracted driver detection. In ICCV, 2017.\n"
        "doi:10.1109/ICCV.2017.13.\n"
        "[2] C. Craye and F. Karray. Driver distraction detection.\n"
        "arXiv preprint arXiv:1502.00250, 2015.\n"
        "[3] World Health Organization. Global status report on road safety. WHO, 2018.\n"
    )
    refs = references(text)
    assert [ref.label for ref in refs] == ["1", "2", "3"]
    first, second, third = refs
    assert first.authors == ["Abouelnaga", "Smith", "Jones"]
    assert first.year == 2017
    assert first.title == "Distracted driver detection"
    assert first.doi == "10.1109/iccv.2017.13"
    assert second.arxiv_id == "1502.00250"
    assert second.year == 2015
    assert third.authors == ["World Health Organization"]
    assert text[first.char_start : first.char_end].startswith("[1] Y. Abouelnaga")
    assert text[third.char_start : third.char_end].endswith("WHO, 2018.")


def test_dot_numbered_entries_survive_page_numbers_inside_the_list():
    text = (
        "Body.\n\nBibliography\n"
        "1. Smith J, Jones K. A study of things. Nature. 2019;5:1-3.\n"
        "2. Lee M. Another study. Science. 2020;7:4-5.\n"
        "14\n\n"
        "3. Brown A. Third study of 3. things. Cell. 2021;9:1-2.\n"
    )
    refs = references(text)
    assert [ref.label for ref in refs] == ["1", "2", "3"]
    assert refs[0].authors == ["Smith", "Jones"]
    assert [ref.year for ref in refs] == [2019, 2020, 2021]


def test_author_year_hanging_entries_acl_style():
    text = (
        "Body (Beltagy et al., 2019).\n\nReferences\n"
        "Riaz Ahmad and Muhammad Tanvir Afzal. 2018. Cad: an algorithm for citation-anchors\n"
        "detection in research papers. Scientometrics, 117:1405–1423.\n"
        "Iz Beltagy, Kyle Lo, and Arman Cohan. 2019. SciBERT: A pretrained language\n"
        "model for scientific text. In Proceedings of the 2019 Conference on\n"
        "Empirical Methods in Natural Language Processing, pages 3615–3620.\n"
        "Hal Daumé III. 2007. Frustratingly easy domain adaptation. In ACL.\n"
        "Nelson F. Liu, Matt Gardner, Yonatan Belinkov, Matthew E. Peters, and Noah A.\n"
        "Smith. 2019a. Linguistic knowledge and transferability. In NAACL.\n"
        "Yinhan Liu, Myle Ott, Naman Goyal. 2019b. RoBERTa: A robustly optimized\n"
        "BERT pretraining approach. arXiv, abs/1907.11692.\n"
    )
    refs = references(text)
    assert [ref.label for ref in refs] == [
        "Ahmad2018",
        "Beltagy2019",
        "Daume2007",
        "Liu2019a",
        "Liu2019b",
    ]
    assert refs[1].title == "SciBERT: A pretrained language model for scientific text"
    assert refs[2].authors == ["Daumé"]
    assert refs[3].year_suffix == "a"
    assert refs[3].authors[:2] == ["Liu", "Gardner"]
    assert refs[4].arxiv_id == "1907.11692"


def test_apa_entries_with_parenthesised_years():
    text = (
        "Body.\n\nReferences\n"
        "Smith, J. A., & Jones, K. (2020a). Reading habits of scholars. Journal of Reading,\n"
        "12(3), 45–67. https://doi.org/10.1000/jr.2020.1\n"
        "Smith, J. A. (2020b). More reading. Journal of Reading, 13(1), 1–2.\n"
        "O'Neil, C., van der Berg, P., & Müller, T. (2018). Names with particles. Press.\n"
    )
    refs = references(text)
    assert [ref.label for ref in refs] == ["Smith2020a", "Smith2020b", "Oneil2018"]
    assert refs[0].authors == ["Smith", "Jones"]
    assert refs[0].doi == "10.1000/jr.2020.1"
    assert refs[0].title == "Reading habits of scholars"
    assert refs[2].authors == ["O'Neil", "van der Berg", "Müller"]


def test_section_heading_variants_and_end_at_appendix():
    for heading in ("REFERENCES", "7 References", "Literaturverzeichnis", "Bibliografía"):
        text = f"Body text.\n\n{heading}\n[1] A. Smith. Title. 2020.\n[2] B. Lee. T. 2021.\n"
        text += "[3] C. Kim. Third. 2022.\n\nAppendix A: Extra results\nMore [9] text.\n" * 1
        section = find_reference_section(text)
        assert section is not None, heading
        assert text[section.start : section.end].strip().startswith("[1] A. Smith")
        assert "Appendix" not in text[section.start : section.end]


def test_table_of_contents_mention_does_not_hide_the_real_list():
    text = "Contents\nReferences\n\nIntro text [1]." + " filler" * 50
    text += "\n\nReferences\n[1] A. Smith. Title of the work. 2020.\n[2] B. Lee. X. 2021.\n"
    text += "[3] C. Kim. Y. 2022.\n"
    refs = references(text)
    assert [ref.label for ref in refs] == ["1", "2", "3"]


def test_running_header_inside_the_list_is_ignored():
    header = "CiteSee: Augmenting Citations CHI 2023, Hamburg"
    text = f"{header}\nBody [1].\n\n{header}\nMore body [2].\n\nReferences\n"
    text += "[1] A. Smith. A long title that\n\n"
    text += f"{header}\ncontinues here. Journal, 2020.\n[2] B. Lee. Other. 2021.\n"
    text += "[3] C. Kim. Third. 2022.\n"
    refs = references(text)
    assert header not in refs[0].raw
    assert refs[0].raw.endswith("continues here. Journal, 2020.")


def test_no_reference_section_is_reported():
    analysis = analyze_thesis("Just prose with (Smith et al., 2020) in it.", [0])
    assert analysis.references == []
    assert any("no reference section" in note for note in analysis.notes)
    # Without a list only the unmistakable forms count as citations.
    assert [c.marker_text for c in analysis.citations] == ["(Smith et al., 2020)"]


def test_split_authors_forms():
    assert split_authors("Smith, J., Jones, K., & Lee, M.") == ["Smith", "Jones", "Lee"]
    assert split_authors("J. Smith, K. Jones and M. Lee") == ["Smith", "Jones", "Lee"]
    assert split_authors("Vu Ha and Xiang qian Qi") == ["Ha", "Qi"]
    assert split_authors("Smith J, Jones KL") == ["Smith", "Jones"]
    assert split_authors("Association for Computing Machinery") == [
        "Association for Computing Machinery"
    ]


def test_parse_entry_ieee_year_at_end_and_year_suffix():
    fields = parse_entry("R. Berri and A. G. Silva. A pattern recognition system. Sensors, 2014b.")
    assert fields.authors == ["Berri", "Silva"]
    assert (fields.year, fields.year_suffix) == (2014, "b")
    assert fields.title == "A pattern recognition system"
    assert fields.venue == "Sensors"


def test_entries_merged_into_one_paragraph_are_split():
    # Layout engines that join lines into paragraphs merge short entries.
    text = (
        "Body (Daumé, 2007; Culotta et al., 2007).\n\nReferences\n\n"
        "Aron Culotta, Pallika Kanani, and Robert Hall. 2007. Author disambiguation. "
        "In IIWeb Workshop. Hal Daumé. 2007. Frustratingly easy domain adaptation. In ACL. "
        "Dina Demner-Fushman, Willie J. Rogers, and Alan R. Aronson. 2017. MetaMap Lite. "
        "In JAMIA.\n\n"
        "Isabelle Augenstein, Mrinal Das, and Andrew D. McCallum.\n\n"
        "2017. Semeval 2017 task 10. In ACL workshop.\n\n"
        "Lucy Lu Wang, Alex D. Wade, Kuansan Wang, and Oren Etzioni. 2020. CORD-19. In "
        "Findings of EMNLP 2020. Xiao Yu and Jiawei Han. 2012. Citation prediction. In SDM.\n"
    )
    refs = references(text)
    assert [ref.label for ref in refs] == [
        "Culotta2007",
        "Daume2007",
        "Demnerfushman2017",
        "Augenstein2017",
        "Wang2020",
        "Yu2012",
    ]
    assert refs[3].title == "Semeval 2017 task 10"


def test_numbered_labels_run_into_one_paragraph():
    text = (
        "Body [2].\n\nREFERENCES [1] 2019. CHI '19: Proceedings. ACM.\n\n"
        "[2] Rollin Brant. 1990. Assessing proportionality. Biometrics 46, 4 (1990), 1171-1178. "
        "http://www.jstor.org/stable/2532457 [3] Isabel Cachola and Kyle Lo. 2020. TLDR. In "
        "FINDINGS.\n"
    )
    refs = references(text)
    assert [ref.label for ref in refs] == ["1", "2", "3"]
    assert refs[2].authors == ["Cachola", "Lo"]


def test_footnote_dropped_into_the_list_is_masked():
    text = (
        "Body (Ammar et al., 2018).\n\nReferences\n"
        "Riaz Ahmad and Muhammad Tanvir Afzal. 2018. Cad: an algorithm. Scientometrics, 117.\n"
        "Waleed Ammar, Dirk Groeneveld, Chandra Bhagavatula,\n"
        "19The Kaggle CORD-19 and TREC-COVID competitions.\n"
        "See Wang et al. (2020) for details.\n"
        "Kyle Lo, Tyler Murray, and Oren Etzioni. 2018. Construction of the literature graph in\n"
        "semantic scholar. In NAACL.\n"
    )
    analysis = analyze_thesis(text, [0])
    assert [ref.label for ref in analysis.references] == ["Ahmad2018", "Ammar2018"]
    assert "Kaggle" not in analysis.references[1].raw
    assert analysis.references[1].authors[-1] == "Etzioni"
    assert [c.reference_label for c in analysis.citations] == ["Ammar2018"]


def test_bulleted_author_year_list():
    text = (
        "Body (Smith, 2020; Lee & Park, 2019).\n\n## References\n\n"
        "- Smith, J. (2020). A bulleted entry. Journal, 1.\n"
        "- Lee, K., & Park, S. (2019). Another one. Press.\n"
    )
    analysis = analyze_thesis(text, [0])
    assert [ref.label for ref in analysis.references] == ["Smith2020", "Lee2019"]
    assert analysis.references[0].raw.startswith("Smith, J. (2020)")
    assert [c.reference_label for c in analysis.citations] == ["Smith2020", "Lee2019"]


def test_word_list_numbering_lost_entries_are_paragraphs_numbered_in_order():
    text = (
        "Roads are dangerous [1]. Phones distract drivers [2, 3]. Cameras help [3].\n\n"
        "References\n\n"
        "Y. Abouelnaga. Action annotation tool, 2017.\n\n"
        "R. Berri and A. G. Silva. A pattern recognition system for detecting phones. "
        "Sensors, 2014.\n\n"
        "C. Craye and F. Karray. Driver distraction detection. arXiv:1502.00250, 2015.\n"
    )
    analysis = analyze_thesis(text, [0])
    assert [(ref.label, ref.authors[0]) for ref in analysis.references] == [
        ("1", "Abouelnaga"),
        ("2", "Berri"),
        ("3", "Craye"),
    ]
    assert [c.reference_label for c in analysis.citations] == ["1", "2", "3", "3"]


def test_numbered_list_cited_by_author_and_year_gets_author_year_labels():
    text = (
        "Trees cool streets (Kowalczyk et al., 2021). Roofs help (Hofer & Lindqvist, 2020). "
        "As van Dijk (2019b) showed, nights are warm.\n\nReferences\n\n"
        "1. Hofer, K., & Lindqvist, J. (2020). Green roofs. Reports, 9, 377–392.\n\n"
        "2. Kowalczyk, M., Brandt, D., & Ferrer, L. (2021). Street trees. Letters, 14(2).\n\n"
        "3. van Dijk, P. (2019a). Diurnal dynamics. Letters, 12(3), 155–170.\n\n"
        "4. van Dijk, P. (2019b). Seasonal dynamics. Letters, 12(4), 171–180.\n"
    )
    analysis = analyze_thesis(text, [0])
    assert [ref.label for ref in analysis.references] == [
        "Hofer2020",
        "Kowalczyk2021",
        "Vandijk2019a",
        "Vandijk2019b",
    ]
    assert [c.reference_label for c in analysis.citations] == [
        "Kowalczyk2021",
        "Hofer2020",
        "Vandijk2019b",
    ]


def test_article_based_thesis_links_each_chapter_to_its_own_list():
    chapter = (
        "Chapter {n}\n\nThis chapter claims a thing [1] and another [2]. "
        + "Some prose without citations. " * 20
        + "\n\nReferences\n"
        "[1] A. Author{n}. First work of chapter {n}. Journal, 2010.\n"
        "[2] B. Writer{n}. Second work of chapter {n}. Journal, 2011.\n"
        "[3] C. Third{n}. Third work of chapter {n}. Journal, 2012.\n\n"
    )
    text = "Contents\nReferences\n\n" + "".join(chapter.format(n=n) for n in (1, 2))
    text += "Appendix A: More\nAn appendix sentence cites [3].\n"
    analysis = analyze_thesis(text, [0])
    assert [ref.label for ref in analysis.references] == ["1/1", "1/2", "1/3", "2/1", "2/2", "2/3"]
    assert [ref.ordinal for ref in analysis.references] == [1, 2, 3, 4, 5, 6]
    assert analysis.references[3].authors == ["Author2"]
    assert [c.reference_label for c in analysis.citations] == ["1/1", "1/2", "2/1", "2/2", "2/3"]
    assert any("2 reference lists" in note for note in analysis.notes)


# The demo-authoryear reference list as the PDF layout gives it: each entry's DOI line starts a
# new paragraph that runs on into the next entries (a URL ends no paragraph), so entries follow
# a DOI on the same line - with no full stop between them.
_DOI_ENDED_ENTRIES = (
    "Body (Aalto et al., 2023; van Dijk and Janssen, 2019; Hofer, 2020; Moreau and Lindgren, "
    "2022).\n\n"
    "References\n\n"
    "Aalto, H., Dubois, M. and Gaspar, P. (2023). Heat-related mortality in fourteen European "
    "cities. European Journal of Environmental Health 31(1), 45–60.\n\n"
    "https://doi.org/10.5555/eeh.2023.0057 van Dijk, P. and Janssen, A. (2019). Diurnal and "
    "seasonal dynamics of the urban heat island. Urban Climate Letters 12(3), 155–170. "
    "https://doi.org/10.5555/ucl.2019.0031 Hofer, K. (2020). Roof-level cooling. Building and "
    "Environment Reports 9, 377–392. doi:10.5555/ber.2020.0378 Moreau, C. and Lindgren, E. "
    "(2022). Projected changes in European heatwaves. Regional Climate Outlooks 8, 12–34.\n"
)


def test_author_year_entries_after_a_doi_url_on_the_same_line_are_split():
    analysis = analyze_thesis(_DOI_ENDED_ENTRIES, [0])
    refs = analysis.references
    assert [ref.label for ref in refs] == ["Aalto2023", "Vandijk2019", "Hofer2020", "Moreau2022"]
    # Each DOI stays with the entry it ends.
    assert [ref.doi for ref in refs] == [
        "10.5555/eeh.2023.0057",
        "10.5555/ucl.2019.0031",
        "10.5555/ber.2020.0378",
        None,
    ]
    assert refs[1].raw.startswith("van Dijk, P. and Janssen, A. (2019). Diurnal")
    assert refs[1].raw.endswith("https://doi.org/10.5555/ucl.2019.0031")
    assert [c.reference_label for c in analysis.citations] == [
        "Aalto2023",
        "Vandijk2019",
        "Hofer2020",
        "Moreau2022",
    ]


def test_author_year_entries_after_a_doi_at_a_line_end_are_split():
    text = (
        "Body (Smith, 2020; Lee and Park, 2019; Kim, 2018).\n\nReferences\n"
        "Smith, J. (2020). A study of things. Journal of Studies 3, 1–9.\n"
        "doi:10.5555/js.2020.0001\n"
        "Lee, K. and Park, S. (2019). Another study. Press.\n"
        "https://doi.org/10.5555/press.2019.abc\n"
        "Kim, H. (2018). A third one. Journal 1, 2–3.\n"
    )
    analysis = analyze_thesis(text, [0])
    assert [ref.label for ref in analysis.references] == ["Smith2020", "Lee2019", "Kim2018"]
    assert [ref.doi for ref in analysis.references] == [
        "10.5555/js.2020.0001",
        "10.5555/press.2019.abc",
        None,
    ]


def test_words_after_a_url_inside_an_entry_do_not_start_an_entry():
    text = (
        "Body (Smith, 2020; Lee, 2019).\n\nReferences\n\n"
        "Smith, J. (2020). Data portal. https://example.org/portal Accessed 3 May 2021. "
        "Lee, K. (2019). Another study. Press.\n"
    )
    refs = references(text)
    assert [ref.label for ref in refs] == ["Smith2020", "Lee2019"]
    assert "Accessed 3 May 2021" in refs[0].raw


def test_vancouver_entry_with_a_year_inside_the_title():
    fields = parse_entry(
        "Yilmaz P, Iqbal P. Neurologic Manifestations of Hospitalized Patients With Coronavirus "
        "Disease 2019 in Wuhan, China. J Clin Neurol. 2020;36(4):543-556."
    )
    assert fields.authors == ["Yilmaz", "Iqbal"]
    assert fields.year == 2020
    assert fields.title == (
        "Neurologic Manifestations of Hospitalized Patients With Coronavirus Disease 2019 "
        "in Wuhan, China"
    )
    assert fields.venue == "J Clin Neurol"


def test_vancouver_entry_with_et_al_month_date_and_doi():
    fields = parse_entry(
        "Huang C, Wang Y, Li X, et al. Clinical features of patients infected with 2019 novel "
        "coronavirus in Wuhan, China. Lancet. 2020 Feb 15;395(10223):497-506. "
        "doi:10.1016/S0140-6736(20)30183-5"
    )
    assert fields.authors == ["Huang", "Wang", "Li"]
    assert fields.year == 2020
    assert fields.title == (
        "Clinical features of patients infected with 2019 novel coronavirus in Wuhan, China"
    )
    assert fields.venue == "Lancet"
    assert fields.doi == "10.1016/s0140-6736(20)30183-5"


def test_vancouver_entry_with_a_year_closing_the_title_and_an_epub_date():
    fields = parse_entry(
        "Lee K, Park SH. Seroprevalence of SARS-CoV-2 in 2020. Euro Surveill. "
        "2021;26(3):2001234. Epub 2020 Dec 1. doi:10.2807/1560-7917.ES.2021.26.3.2001234"
    )
    assert fields.authors == ["Lee", "Park"]
    assert fields.year == 2021
    assert fields.title == "Seroprevalence of SARS-CoV-2 in 2020"
    assert fields.venue == "Euro Surveill"
    assert fields.doi == "10.2807/1560-7917.es.2021.26.3.2001234"


def test_vancouver_entry_with_covid_19_in_the_title_inside_a_numbered_list():
    text = (
        "Neurological signs are common (1). Fatigue persists (2). Smell is lost (3).\n\n"
        "References\n"
        "1. Yilmaz P, Iqbal P. Neurologic Manifestations of Hospitalized Patients With "
        "Coronavirus Disease 2019 in Wuhan, China. J Clin Neurol. 2020;36(4):543-556.\n"
        "2. Chen N, Zhou M. Long COVID-19 fatigue in 1,000 patients. BMJ. 2021;372:n136.\n"
        "3. Smith AB, Jones C, et al. Anosmia in COVID-19. Rhinology. 2020 Jun;58(3):299-301.\n"
    )
    first, second, third = references(text)
    assert (first.authors, first.year) == (["Yilmaz", "Iqbal"], 2020)
    assert first.title.startswith("Neurologic Manifestations")
    assert (second.authors, second.year) == (["Chen", "Zhou"], 2021)
    assert second.title == "Long COVID-19 fatigue in 1,000 patients"
    assert (third.authors, third.year) == (["Smith", "Jones"], 2020)
    assert third.title == "Anosmia in COVID-19"
    assert third.venue == "Rhinology"


def test_single_vancouver_author_before_a_title_case_title_with_a_year():
    fields = parse_entry(
        "Yilmaz P. Neurologic Manifestations of Hospitalized Patients With Coronavirus Disease "
        "2019 in Wuhan, China. J Clin Neurol. 2020;36(4):543-556."
    )
    assert (fields.authors, fields.year) == (["Yilmaz"], 2020)
    assert fields.title.endswith("Coronavirus Disease 2019 in Wuhan, China")


def test_vancouver_like_authors_followed_directly_by_the_year_stay_author_year():
    fields = parse_entry("Smith J, Jones K. 2020. A short title. Journal of Things.")
    assert (fields.authors, fields.year, fields.title) == (
        ["Smith", "Jones"],
        2020,
        "A short title",
    )


def test_vancouver_title_with_its_own_full_stop_or_question_mark_ends_at_the_journal():
    cases = {
        "Varga K, Bauer W. Can a toilet promote virus transmission? From a fluid dynamics "
        "perspective. Phys Fluids. 2020;32(6):065107.": (
            "Can a toilet promote virus transmission? From a fluid dynamics perspective",
            "Phys Fluids",
        ),
        "Costa K. Psychotic symptoms in COVID-19 patients. A retrospective descriptive study. "
        "Psychiatry Res. 2021;46(9):369-383.": (
            "Psychotic symptoms in COVID-19 patients. A retrospective descriptive study",
            "Psychiatry Res",
        ),
        "Iqbal I, Wang M. Susceptibility of ferrets, cats, and dogs to SARS-coronavirus 2. "
        "Science. 2020;368(6494):1016-1020.": (
            "Susceptibility of ferrets, cats, and dogs to SARS-coronavirus 2",
            "Science",
        ),
        "Abebe V. The emergence of SARS-CoV-2 in Europe and the US. Proc. Natl. Acad. Sci. "
        "2020;117(2):91-98.": (
            "The emergence of SARS-CoV-2 in Europe and the US",
            "Proc. Natl. Acad. Sci",
        ),
    }
    for entry, (title, venue) in cases.items():
        fields = parse_entry(entry)
        assert (fields.title, fields.venue) == (title, venue), entry
        assert fields.year in (2020, 2021)


def test_given_name_and_initial_before_the_surname_is_not_a_vancouver_author():
    fields = parse_entry(
        "Caleb M. Trujillo and Tammy M. Long. 2018. Document co-citation analysis to enhance "
        "transdisciplinary research. Science Advances, 4(1)."
    )
    assert (fields.authors, fields.year) == (["Trujillo", "Long"], 2018)
    assert fields.title == "Document co-citation analysis to enhance transdisciplinary research"
