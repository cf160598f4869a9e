"""Comparing two descriptions of one work (citeproof.text.bibliographic): normal variation agrees,
another work does not."""

from __future__ import annotations

import pytest

from citeproof.text.bibliographic import (
    content_words,
    doi_in_text,
    dois_in_text,
    latex_to_text,
    main_title,
    name_tokens,
    normalise_doi,
    surname_in_text,
    surname_matches,
    title_agreement,
    title_coverage,
    title_key,
    years_compatible,
)


def test_latex_escapes_print_as_their_characters():
    assert latex_to_text(r"M{\"u}ller") == "Müller"
    assert latex_to_text(r"Garc{\'\i}a") == "García"
    assert latex_to_text(r"{\o}berg") == "øberg"
    assert latex_to_text(r"{COVID}-19 in 2019--2020") == "COVID-19 in 2019–2020"
    assert latex_to_text("plain text, no markup") == "plain text, no markup"
    # Unbalanced input keeps its raw text rather than raising.
    assert latex_to_text(r"broken {\"u") in (r"broken {\"u", "broken ü")


@pytest.mark.parametrize(
    ("entry", "source"),
    [
        (
            "Ventilation and aerosol decay in classrooms",
            "VENTILATION AND AEROSOL DECAY IN CLASSROOMS",
        ),
        (
            "Masks – a review of household transmission",
            "Masks — a review of household transmission",
        ),
        (r"Transmission in {M\"u}nster schools", "Transmission in Münster schools"),
        ("Salt & pepper noise in CT scans", "Salt and pepper noise in CT scans"),
        ("Deep learning for triage", "Deep learning for triage: a systematic review"),
        ("Does ventilation matter? A cohort study", "Does ventilation matter"),
        ("Vaccine uptake in 2019–2020", "Vaccine uptake in 2019-2020."),
    ],
)
def test_normal_title_variation_agrees(entry, source):
    assert title_agreement(entry, source) >= 0.85


@pytest.mark.parametrize(
    ("entry", "source"),
    [
        ("Ventilation and aerosol decay in classrooms", "Vitamin D and respiratory infection"),
        ("Attention", "Attention: a survey of mechanisms in neural networks"),
        ("Saliva testing for SARS-CoV-2 in schools", "Wastewater surveillance as an early warning"),
    ],
)
def test_other_titles_disagree(entry, source):
    assert title_agreement(entry, source) < 0.6


def test_main_title_drops_the_subtitle():
    assert main_title("Deep learning: a review") == "Deep learning"
    assert (
        main_title("What drives hesitancy? Evidence from 12 countries") == "What drives hesitancy"
    )
    assert main_title("Masks — a review") == "Masks"
    assert main_title("No subtitle here") == "No subtitle here"


def test_title_key_and_content_words():
    assert title_key("COVID‑19 & Schools: A “Review”") == "covid 19 and schools a review"
    assert content_words("The role of masks in the home") == ["role", "masks", "home"]


def test_title_coverage_reads_a_page_with_the_title_broken_over_lines():
    page = "Journal of Things 3 (2020)\nVENTILA-\nTION AND AEROSOL DECAY\nIN CLASSROOMS\nAna García"
    assert title_coverage("Ventilation and aerosol decay in classrooms", page) == 1.0
    assert title_coverage("Vitamin D and respiratory infection", page) == 0.0


@pytest.mark.parametrize(
    ("surname", "person"),
    [
        ("Müller", "Jonas Muller"),  # diacritics
        (r"M{\"u}ller", "Jonas Müller"),  # LaTeX accent
        (r"Garc\'ia", "Ana García"),
        ("Smith et al.", "John A. Smith"),  # et al., initials
        ("Smith, J. A.", "John Smith"),
        ("van der Berg", "Jan van der Berg"),  # particles
        ("Berg", "Jan van der Berg"),
        ("van Dijk", "Dijk, P."),
        ("Vandijk", "Pieter van Dijk"),  # written together
        ("García Márquez", "Gabriel García"),  # compound, one part kept
        ("Jimeno-Yepes", "Antonio Jimeno Yepes"),  # hyphen
        ("Zhang", "Zhang Wei"),  # family name first
        ("de la Cruz", "María De La Cruz"),
        ("WHO", "World Health Organization"),  # acronym
        ("O'Brien", "Siobhan OBrien"),
    ],
)
def test_normal_name_variation_matches(surname, person):
    assert surname_matches(surname, person)


@pytest.mark.parametrize(
    ("surname", "person"),
    [("Smith", "John Smithson"), ("Kim", "Kimberly Jones"), ("Novak", "Piotr Nowak"), ("", "A")],
)
def test_other_names_do_not_match(surname, person):
    assert not surname_matches(surname, person)


@pytest.mark.parametrize(
    ("surname", "person"),
    [
        ("Das", "Nikhil Das"),
        ("Das", "Das, N."),
        ("Le", "T. Hoang Ngan Le"),
        ("Du", "Wei Du"),
        ("van der Berg", "Ines van der Berg"),
        ("Le Roux", "Pierre Le Roux"),
    ],
)
def test_a_surname_that_is_a_particle_word_is_kept(surname, person):
    # Dropping "das" or "le" everywhere lost the whole surname: no match with the person.
    assert surname_matches(surname, person)


def test_name_tokens_drop_particles_initials_and_et_al():
    assert name_tokens("van der Berg, J.-P.") == ["berg"]
    assert name_tokens("Smith et al.") == ["smith"]
    assert name_tokens("Daumé III") == ["daume"]


def test_surname_on_a_page():
    page = "Ana García, Pieter van Dijk\nUniversity of Somewhere"
    assert surname_in_text("van Dijk", page)
    assert surname_in_text("Garcia", page)
    assert not surname_in_text("Novak", page)


def test_years_and_dois():
    assert years_compatible(2020, 2021) and years_compatible(None, 2020)
    assert not years_compatible(2018, 2020)
    assert normalise_doi("https://doi.org/10.1000/ABC.1.") == "10.1000/abc.1"
    assert dois_in_text("see doi:10.1000/x1, and 10.2000/y2.") == ["10.1000/x1", "10.2000/y2"]
    assert doi_in_text("10.1016/j.vaccine.2020.01.001", "DOI 10.1016/j.\nvaccine.2020.01.001")
    assert not doi_in_text("10.1016/j.other", "DOI 10.1016/j.vaccine")
