"""Entry against the linked source's own metadata (CP311 wrong-attachment, CP312 metadata-differs):
another work is an error with both sides shown, a differing year or first author of the same
work a warning, and every normal variation neither."""

from __future__ import annotations

import uuid

import msgspec
import pytest

from citeproof.contracts.findings import FROM_REFERENCE_LIST, FROM_SOURCE_METADATA
from citeproof.contracts.thesis import Reference, SourceMeta
from citeproof.pipeline import METADATA_DIFFERS, WRONG_ATTACHMENT
from citeproof.retriever.linking.attachment import (
    AttachmentConfig,
    attachment_findings,
    compare,
)

ABSTRACT = (
    "Abstract\nWe measured carbon dioxide and particle concentrations in 48 classrooms of 12 "
    "primary schools over two heating seasons. Air change rates were estimated from the decay "
    "of carbon dioxide after the pupils had left. Opening windows for ten minutes every hour "
    "halved the median concentration of fine particles, while portable air cleaners reduced it "
    "by a third. Rooms with mechanical ventilation kept concentrations below the guideline on "
    "most days. We discuss what these findings mean for the transmission of respiratory "
    "viruses in schools and for the design of ventilation guidance for school buildings."
)
TITLE = "Ventilation and aerosol decay in primary school classrooms"


def _source(
    title: str | None = TITLE,
    authors: tuple[str, ...] = ("Jonas Müller", "Ana García", "Pieter van Dijk"),
    year: int | None = 2021,
    doi: str | None = "10.5555/vent.2021.004",
    page: str | None = None,
) -> SourceMeta:
    if page is None:
        page = (
            f"Indoor Air Letters 14(2), 101–118, {year}\n{title}\n{', '.join(authors)}\n"
            f"University of Somewhere\nDOI: {doi}\n{ABSTRACT}"
        )
    return SourceMeta(
        document_id=uuid.uuid4(),
        title=title,
        authors=list(authors),
        year=year,
        doi=doi,
        first_page_text=page,
    )


def _entry(**changes) -> Reference:
    base = Reference(
        ordinal=1,
        label="Muller2021",
        raw="Müller, J., García, A. and van Dijk, P. 2021. Ventilation and aerosol decay in "
        "primary school classrooms. Indoor Air Letters 14(2), 101-118.",
        authors=["Müller", "García", "van Dijk"],
        year=2021,
        title=TITLE,
        venue="Indoor Air Letters",
        doi=None,
        char_start=0,
        char_end=10,
    )
    return msgspec.structs.replace(base, **changes)


def test_the_right_attachment_has_no_finding():
    assert attachment_findings(_entry(), _source()) == []
    assert attachment_findings(_entry(doi="10.5555/VENT.2021.004"), _source()) == []


# Each normal variation: no error and no warning.
NORMAL_VARIATIONS = {
    "diacritics dropped": {"authors": ["Muller", "Garcia", "van Dijk"]},
    "latex accents": {
        "authors": [r"M{\"u}ller", r"Garc{\'\i}a", "van Dijk"],
        "title": r"Ventilation and aerosol decay in primary school classrooms",
    },
    "latex accent in the title": {
        "title": r"Ventilation and a{\"e}rosol decay in primary school classrooms"
    },
    "et al.": {"authors": ["Müller et al."]},
    "initials": {"authors": ["Müller, J.", "García, A."]},
    "particle dropped": {"authors": ["Dijk", "Müller"], "year": 2021},
    "en dash for hyphen": {"title": "Ventilation and aerosol decay in primary–school classrooms"},
    "em dash subtitle": {"title": f"{TITLE} — a field study"},
    "subtitle left out": {"title": "Ventilation and aerosol decay"},
    "title case": {"title": TITLE.title()},
    "upper case": {"title": TITLE.upper()},
    "preprint a year earlier": {"year": 2020},
    "published a year later": {"year": 2022},
    "doi url form": {"doi": "https://doi.org/10.5555/vent.2021.004"},
}


@pytest.mark.parametrize("variation", sorted(NORMAL_VARIATIONS))
def test_normal_variation_is_neither_error_nor_warning(variation):
    changes = dict(NORMAL_VARIATIONS[variation])
    if variation == "particle dropped":
        # "van Dijk" as first author, cited as "Dijk" - the source lists him first too.
        source = _source(authors=("Pieter van Dijk", "Jonas Müller"))
    else:
        source = _source()
    assert attachment_findings(_entry(**changes), source) == [], variation


def test_compound_surname_one_part_kept_is_normal():
    source = _source(authors=("Gabriel García Márquez", "Ana Novak"))
    entry = _entry(authors=["García", "Novak"])
    assert attachment_findings(entry, source) == []


def test_another_work_is_a_wrong_attachment_with_both_sides():
    other = _source(
        title="Vitamin D supplementation and the severity of influenza in older adults",
        authors=("Hiroshi Tanaka", "Ingrid Øberg"),
        year=2019,
        doi="10.5555/vitd.2019.77",
        page=(
            "Journal of Nutrition 7, 55–70, 2019\nVitamin D supplementation and the severity "
            "of influenza in older adults\nHiroshi Tanaka, Ingrid Øberg\nDOI: 10.5555/vitd.2019.77"
            "\nAbstract\nIn a randomised trial of 900 residents of care homes, daily vitamin D "
            "did not change the rate of laboratory-confirmed influenza, but hospital admissions "
            "for pneumonia were fewer in the supplemented group over the winter season. Serum "
            "levels rose within eight weeks and stayed above the target for most participants "
            "until the end of the trial in spring, with no excess of adverse events reported."
        ),
    )
    (finding,) = attachment_findings(_entry(), other)
    assert finding.rule == WRONG_ATTACHMENT.code
    fields = {d.field: (d.expected, d.found) for d in finding.differences}
    assert fields["title"] == (TITLE, other.title)
    assert fields["first_author"] == ("Müller", "Hiroshi Tanaka")
    assert {e.origin for e in finding.evidence} == {FROM_REFERENCE_LIST, FROM_SOURCE_METADATA}
    assert "Vitamin D" in finding.message


def test_a_same_author_paper_with_another_title_is_a_wrong_attachment():
    """Smith 2021a's PDF attached to Smith 2021b: same author and year, hardly a word of the
    title on the page."""
    other = _source(
        title="Portable air cleaners in care homes during winter",
        page=(
            "Indoor Air Letters 14(5), 300–312, 2021\nPortable air cleaners in care homes during "
            "winter\nJonas Müller, Eva Weber\nAbstract\nHigh efficiency particulate filters "
            "were placed in the shared rooms of nine care homes for older people and switched "
            "off at random weeks. Particle counts fell by two thirds when the filters ran and "
            "residents reported no more noise than before. Staff opened windows less often in "
            "the weeks with filters, which kept the rooms warmer. The cost per room was small "
            "compared with the cost of one outbreak, and most homes kept the filters afterwards."
        ),
    )
    (finding,) = attachment_findings(_entry(), other)
    assert finding.rule == WRONG_ATTACHMENT.code


def test_a_doi_match_is_never_a_wrong_attachment():
    entry = _entry(title="A completely different title about something else entirely",
                   doi="10.5555/vent.2021.004")  # fmt: skip
    assert [f.rule for f in attachment_findings(entry, _source())] == []


def test_year_off_by_two_is_a_warning_on_the_same_work():
    (finding,) = attachment_findings(_entry(year=2018), _source())
    assert finding.rule == METADATA_DIFFERS.code
    assert [(d.field, d.expected, d.found) for d in finding.differences] == [
        ("year", "2018", "2021")
    ]
    assert finding.key.startswith(FROM_SOURCE_METADATA)


def test_year_printed_on_the_page_is_no_warning():
    """The entry's year is on the first page (received, accepted): the page backs both."""
    source = _source(page=f"Received 2018; accepted 2021\n{TITLE}\nJonas Müller\n{ABSTRACT}")
    assert attachment_findings(_entry(year=2018), source) == []


def test_another_first_author_is_a_warning_on_the_same_work():
    (finding,) = attachment_findings(_entry(authors=["Kowalski", "García"]), _source())
    assert finding.rule == METADATA_DIFFERS.code
    assert ("first_author", "Kowalski", "Jonas Müller") in [
        (d.field, d.expected, d.found) for d in finding.differences
    ]


def test_nothing_is_told_from_a_page_without_text_or_a_short_title():
    blank = _source(title=None, authors=(), year=None, doi=None, page="")
    assert attachment_findings(_entry(), blank) == []
    assert compare(_entry(title="Masks"), _source(title="Vitamin D")).title is None


def test_config_refuses_contradictory_thresholds():
    with pytest.raises(ValueError, match="title_disagrees < title_agrees"):
        AttachmentConfig(title_agrees=0.5, title_disagrees=0.6).validate()
    with pytest.raises(ValueError, match="page_lacks_title"):
        AttachmentConfig(page_lacks_title=0.9, page_prints_title=0.8).validate()
    AttachmentConfig().validate()


def test_the_files_creation_year_is_not_the_works_year():
    """A PDF whose metadata year is its file's creation date (2000) while its front prints
    2021: the entry's 2021 agrees; 2018 differs from the printed year, not from 2000."""
    source = msgspec.structs.replace(_source(), year=2000)
    assert attachment_findings(_entry(), source) == []
    (finding,) = attachment_findings(_entry(year=2018), source)
    assert [(d.field, d.expected, d.found) for d in finding.differences] == [
        ("year", "2018", "2021")
    ]


def test_titles_sharing_topic_words_with_two_other_fields_differing_are_another_work():
    """Two works on one topic share title words (agreement between the thresholds); the DOI and
    the first author both differ: another work."""
    other = _source(
        title="Classroom ventilation and the attention of primary school pupils",
        authors=("Hiroshi Tanaka", "Ingrid Øberg"),
        doi="10.5555/attention.2020.1",
        year=2020,
        page=(
            "Indoor Air Letters 13(1), 11–19, 2020\nClassroom ventilation and the attention of "
            "primary school pupils\nHiroshi Tanaka, Ingrid Øberg\nDOI: 10.5555/attention.2020.1\n"
            "Abstract\nPupils in 30 classrooms took attention tests in weeks with windows open "
            "and weeks with windows shut. Test scores were higher in the weeks with open "
            "windows, and the difference grew with the carbon dioxide concentration of the "
            "rooms in the shut weeks. Teachers reported fewer complaints about headaches. The "
            "effect was largest in the afternoon lessons and in the smallest rooms."
        ),
    )
    entry = _entry(doi="10.5555/vent.2021.004")
    (finding,) = attachment_findings(entry, other)
    assert finding.rule == WRONG_ATTACHMENT.code
    assert {d.field for d in finding.differences} >= {"doi", "first_author"}
