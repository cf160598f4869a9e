"""The reference list's rules (CP411 uncited, CP412 duplicate, CP413 suffix, CP414 ambiguous
author-year, CP415 beyond the list) as pure functions of the list and the citations."""

from __future__ import annotations

import msgspec

from citeproof.contracts.thesis import CitedWork, Reference
from citeproof.pipeline import (
    AMBIGUOUS_AUTHOR_YEAR,
    AMBIGUOUS_SUFFIX,
    DUPLICATE_ENTRY,
    MARKER_BEYOND_LIST,
    UNCITED_ENTRY,
)
from citeproof.retriever.reference_list import (
    ListedCitation,
    ListedEntry,
    reference_list_findings,
    same_work,
)


def _ref(ordinal: int, label: str, authors: list[str], year: int | None, title: str, **kw):
    raw = kw.pop("raw", f"{', '.join(authors)} ({year}). {title}. Journal 3, 1-9.")
    return Reference(
        ordinal=ordinal,
        label=label,
        raw=raw,
        authors=authors,
        year=year,
        title=title,
        char_start=0,
        char_end=len(raw),
        **kw,
    )


def _entries(*references: Reference) -> list[ListedEntry]:
    return [ListedEntry(key=100 + r.ordinal, reference=r) for r in references]


def _cite(key: int, entry: int | None, marker: str, cited: CitedWork | None = None, **kw):
    return ListedCitation(
        key=key, entry=entry, marker=marker, claim="A claim " + marker, cited=cited, **kw
    )


def _rules(found) -> list[tuple[str, int | None, int | None]]:
    return sorted((f.finding.rule, f.citation_id, f.reference_id) for f in found)


SMITH = _ref(1, "Smith2020", ["Smith", "Jones"], 2020, "Masks in schools")
GARCIA = _ref(2, "Garcia2019", ["García"], 2019, "Ventilation and aerosol decay")
NOVAK = _ref(3, "Novak2021", ["Novak", "Kim", "Chen"], 2021, "Saliva testing in schools")


def test_a_clean_list_has_no_findings():
    entries = _entries(SMITH, GARCIA, NOVAK)
    citations = [_cite(1, 101, "(Smith and Jones, 2020)"), _cite(2, 102, "(García, 2019)"),
                 _cite(3, 103, "(Novak et al., 2021)")]  # fmt: skip
    assert reference_list_findings(entries, citations) == []


def test_an_entry_nobody_cites_is_uncited():
    entries = _entries(SMITH, GARCIA, NOVAK)
    found = reference_list_findings(entries, [_cite(1, 101, "(Smith and Jones, 2020)"),
                                              _cite(2, 103, "(Novak et al., 2021)")])  # fmt: skip
    assert _rules(found) == [(UNCITED_ENTRY.code, None, 102)]
    assert "Garcia2019" in found[0].finding.message


def test_uncited_is_not_reported_when_no_marker_linked_at_all_or_for_a_bib_database():
    entries = _entries(SMITH, GARCIA)
    assert reference_list_findings(entries, [_cite(1, None, "(Smith, 2020)")]) == []
    citations = [_cite(1, 101, "\\cite{smith}")]
    assert reference_list_findings(entries, citations, printed_list=False) == []


def test_an_entry_an_unlinked_citation_nearly_names_is_not_uncited():
    entries = _entries(SMITH, GARCIA, NOVAK)
    citations = [
        _cite(1, 101, "(Smith and Jones, 2020)"),
        _cite(2, 103, "(Novak et al., 2021)"),
        # "García 2018": wrong year; the parser keeps the entry as a candidate.
        _cite(3, None, "(García, 2018)", CitedWork(names=["García"], year=2018),
              candidates=["Garcia2019"]),
    ]  # fmt: skip
    assert reference_list_findings(entries, citations) == []


def test_the_same_work_twice_is_a_duplicate_on_the_later_entry():
    again = _ref(4, "Smith2020-2", ["Smith", "Jones"], 2020, "Masks in Schools.")
    entries = _entries(SMITH, GARCIA, again)
    citations = [_cite(1, 101, "[1]"), _cite(2, 102, "[2]"), _cite(3, 104, "[4]")]
    found = reference_list_findings(entries, citations)
    assert _rules(found) == [(DUPLICATE_ENTRY.code, None, 104)]
    assert found[0].finding.evidence[0].text == SMITH.raw


def test_same_doi_is_the_same_work_and_different_dois_are_not():
    a = _ref(1, "A", ["Smith"], 2020, "Title one here", doi="10.1/x")
    b = _ref(2, "B", ["Jones"], 2019, "Other title", doi="https://doi.org/10.1/X")
    c = _ref(3, "C", ["Smith"], 2020, "Title one here", doi="10.1/y")
    assert same_work(a, b)
    assert not same_work(a, c)


def test_numbered_titles_differing_in_a_number_are_two_works():
    a = _ref(1, "W1", ["World Health Organization"], 2020, "Situation report 51")
    b = _ref(2, "W2", ["World Health Organization"], 2020, "Situation report 52")
    assert not same_work(a, b)


def test_two_smith_2020_without_suffixes_are_ambiguous():
    other = _ref(4, "Smith2020-2", ["Smith", "Jones"], 2020, "Gloves in hospitals")
    entries = _entries(SMITH, other, GARCIA)
    citations = [_cite(1, 102, "(García, 2019)")]
    found = [f for f in reference_list_findings(entries, citations)
             if f.finding.rule == AMBIGUOUS_AUTHOR_YEAR.code]  # fmt: skip
    assert [(f.reference_id) for f in found] == [104]
    assert "Smith2020" in found[0].finding.message


def test_different_marker_forms_or_suffixes_are_not_ambiguous():
    alone = _ref(4, "Smith2020-2", ["Smith"], 2020, "Gloves in hospitals")  # "(Smith, 2020)"
    suffixed_a = msgspec.structs.replace(SMITH, year_suffix="a")
    suffixed_b = _ref(5, "Smith2020b", ["Smith", "Jones"], 2020, "Gowns", year_suffix="b")
    for entries in (_entries(SMITH, alone), _entries(suffixed_a, suffixed_b)):
        found = reference_list_findings(entries, [_cite(1, 101, "x")])
        assert AMBIGUOUS_AUTHOR_YEAR.code not in {f.finding.rule for f in found}


def test_numbered_lists_are_never_author_year_ambiguous():
    one = msgspec.structs.replace(SMITH, label="1")
    two = _ref(2, "2", ["Smith", "Jones"], 2020, "Gloves in hospitals")
    found = reference_list_findings(
        _entries(one, two), [_cite(1, 101, "[1]"), _cite(2, 102, "[2]")]
    )
    assert found == []


def test_a_cited_suffix_the_list_lacks():
    entries = _entries(SMITH, GARCIA)
    citations = [
        _cite(1, 102, "(García, 2019)"),
        _cite(2, None, "(Smith and Jones, 2020b)",
              CitedWork(names=["Smith", "Jones"], year=2020, year_suffix="b")),
    ]  # fmt: skip
    found = reference_list_findings(entries, citations)
    assert _rules(found) == [(AMBIGUOUS_SUFFIX.code, 2, None)]
    assert "2020b" in found[0].finding.message and SMITH.raw in [
        e.text for e in found[0].finding.evidence
    ]


def test_a_citation_without_the_suffix_every_entry_has():
    a = msgspec.structs.replace(SMITH, year_suffix="a", label="Smith2020a")
    b = _ref(4, "Smith2020b", ["Smith", "Jones"], 2020, "Gowns", year_suffix="b")
    bare = CitedWork(names=["Smith", "Jones"], year=2020)
    citations = [
        _cite(1, 101, "(Smith and Jones, 2020a)"),
        _cite(2, 104, "(Smith and Jones, 2020b)"),
        _cite(3, None, "(Smith and Jones, 2020)", bare),
    ]
    found = reference_list_findings(_entries(a, b), citations)
    assert _rules(found) == [(AMBIGUOUS_SUFFIX.code, 3, None)]


def test_an_unlinked_citation_of_an_unknown_author_has_no_list_finding():
    nobody = CitedWork(names=["Nobody"], year=2020, year_suffix="b")
    citations = [_cite(1, 101, "x"), _cite(2, 102, "y"), _cite(3, None, "(Nobody, 2020b)", nobody)]
    found = reference_list_findings(_entries(SMITH, GARCIA), citations)
    assert found == []


def test_a_number_beyond_the_list():
    numbered = [msgspec.structs.replace(r, label=str(r.ordinal)) for r in (SMITH, GARCIA, NOVAK)]
    citations = [_cite(1, 101, "[1]"), _cite(2, 102, "[2]"), _cite(3, 103, "[3]"),
                 _cite(4, None, "[3, 7]", CitedWork(number=7))]  # fmt: skip
    found = reference_list_findings(_entries(*numbered), citations)
    assert _rules(found) == [(MARKER_BEYOND_LIST.code, 4, None)]
    assert "[7]" in found[0].finding.message and "[3]" in found[0].finding.message


def test_a_gap_in_the_numbering_is_not_beyond_the_list():
    numbered = [msgspec.structs.replace(r, label=str(r.ordinal * 2)) for r in (SMITH, GARCIA)]
    citations = [
        _cite(1, 101, "[2]"),
        _cite(2, 102, "[4]"),
        _cite(3, None, "[3]", CitedWork(number=3)),
    ]
    assert reference_list_findings(_entries(*numbered), citations) == []


def test_chapter_lists_keep_their_rules_within_one_list():
    """The same work in two chapters' lists is no duplicate; numbers are per list."""
    first = msgspec.structs.replace(SMITH, label="1/1")
    second = msgspec.structs.replace(SMITH, ordinal=2, label="2/1")
    citations = [
        _cite(1, 101, "[1]"),
        _cite(2, 102, "[1]"),
        _cite(3, None, "[9]", CitedWork(number=9)),
    ]
    assert reference_list_findings(_entries(first, second), citations) == []
