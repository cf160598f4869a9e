"""A work listed twice whose copies' titles were read to different lengths is still one work to
its markers (seed 424242, thesis t015, PDF and DOCX alike): the Title Case copy, its journal run
on after the title without a full stop, lost "First-in-human Trial" to the venue, the two
titles differed, and "(Schmidt and Dvořák, 1998, p. 2)" named two entries - unlinked,
reported reference-missing on an untouched citation."""

from __future__ import annotations

from citeproof.parser.thesis import analyze_thesis

_SENTENCE_CASE = (
    "Schmidt, E., and L. Dvořák, 1998, Safety, tolerability, and immunogenicity of a "
    "recombinant adenovirus type-5 vectored COVID-19 vaccine: a dose-escalation, open-label, "
    "non-randomised, first-in-human trial Nature Medicine, 73, 1–4."
)
_TITLE_CASE = (
    "Schmidt, E., and L. Dvořák, 1998, Safety, Tolerability, and Immunogenicity of a "
    "Recombinant Adenovirus Type-5 Vectored COVID-19 Vaccine: a Dose-escalation, Open-label, "
    "Non-randomised, First-in-human Trial Nature Medicine, 73, 1–4."
)
_OTHER = "Weber, L., 2005, Remdesivir in adults with severe COVID-19 Scientific Reports, 77, 5–9."


def test_a_marker_naming_a_work_listed_twice_links_to_its_first_copy() -> None:
    text = (
        "Persistent replication maintains the reservoir (Schmidt and Dvořák, 1998, p. 2). "
        "Remdesivir shortened recovery (Weber, 2005).\n\nReferences\n\n"
        f"{_SENTENCE_CASE}\n\n{_OTHER}\n\n{_TITLE_CASE}"
    )
    analysis = analyze_thesis(text, [0])
    assert len(analysis.references) == 3
    first, _, second = analysis.references
    assert first.title != second.title  # read to different lengths
    labels = [citation.reference_label for citation in analysis.citations]
    assert labels == [first.label, analysis.references[1].label]


def test_two_works_sharing_only_a_short_title_start_stay_apart() -> None:
    # "Safety of a vaccine" starts both titles, but fewer words than MIN_SHARED_TITLE_WORDS:
    # two works, the marker names neither.
    text = (
        "Both were safe (Schmidt and Dvořák, 1998).\n\nReferences\n\n"
        "Schmidt, E., and L. Dvořák, 1998, Safety of a vaccine Nature Medicine, 73, 1–4.\n\n"
        "Schmidt, E., and L. Dvořák, 1998, Safety of a vaccine in older adults with asthma "
        "Nature Medicine, 74, 5–9."
    )
    analysis = analyze_thesis(text, [0])
    assert [citation.reference_label for citation in analysis.citations] == [None]
