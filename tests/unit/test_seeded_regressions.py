"""Defects the seeded findings benchmark (`make bench-findings`, bench/findings/seeded.py) found
in the rules and the parser, one test each (each failed before its fix)."""

from __future__ import annotations

import msgspec
import pytest

from citeproof.contracts.thesis import CitedWork, Reference
from citeproof.parser.thesis import analyze_thesis
from citeproof.parser.thesis.fields import parse_entry
from citeproof.parser.thesis.markers import MarkerItem
from citeproof.parser.thesis.resolve import ReferenceIndex
from citeproof.pipeline import AMBIGUOUS_SUFFIX, DUPLICATE_ENTRY
from citeproof.retriever.content_rules.quotations import find_quotations, quotation_spans
from citeproof.retriever.linking.through_library import (
    ENTRY_BY_AUTHORS_YEAR,
    ENTRY_BY_TITLE,
    find_entry,
)
from citeproof.retriever.reference_list import (
    ListedCitation,
    ListedEntry,
    reference_list_findings,
)
from citeproof.text.quantities import extract_quantities, values_agree

GAPS = (250, 8)


def test_a_closing_single_quote_before_a_superscript_marker_closes_the_quotation() -> None:
    # Superscript styles print the note number right after the closing mark: "…reliable’¹ .".
    # Read as an apostrophe ("don’t"), the ’ left the quotation open into the next sentence, and
    # the next citation was charged with a quotation "not in the source".
    context = "It has been reported that ‘This simple framework helps countries to plan’¹ ."
    claim = "An earlier analysis wrote that ‘the World Health Organization declared a pandemic’² ."
    [quotation] = find_quotations(claim, context, GAPS)
    assert quotation.text == "the World Health Organization declared a pandemic"
    assert quotation_spans("‘four words quoted here’¹²³ and ‘more’⁴") == [(1, 23), (33, 37)]
    # An apostrophe before a letter is still none.
    assert quotation_spans("the authors’ view and don’t") == []


def _reference(label: str, ordinal: int = 1, **fields) -> Reference:
    raw = fields.pop("raw", label)
    return Reference(ordinal=ordinal, label=label, raw=raw, char_start=0, char_end=len(raw),
                     **fields)  # fmt: skip


def test_a_library_holding_one_work_twice_links_the_reference_to_it() -> None:
    # A reference manager that kept a work twice (the thesis lists it twice too): both library
    # items are the same work with the same PDF. Linking either is no guess; before, the tie
    # made the reference "reference_missing" and all its citations went unchecked.
    item = {
        "authors": ["Moreau", "Zhang"],
        "year": 2022,
        "title": "A human monoclonal antibody blocking SARS-CoV-2 infection",
        "attachments": ["files/10/Moreau - 2022 - A human monoclonal antibody.pdf"],
    }
    library = [_reference("item10", **item), _reference("item11", ordinal=2, **item)]
    thesis = _reference(
        "Moreau2022", authors=["Moreau", "Zhang"], year=2022,
        title="A human monoclonal antibody blocking SARS-CoV-2 infection",
    )  # fmt: skip
    entry, how, _, candidates = find_entry(thesis, library)
    assert entry is not None and entry.label == "item10" and how == ENTRY_BY_TITLE
    assert candidates == []
    # The same when the reference's title was misread (the parser kept the journal in it) and
    # only first author and year find the library's items.
    misread = msgspec.structs.replace(
        thesis,
        title="A human monoclonal antibody blocking SARS-CoV-2 infection. Journal of Clinical "
        "Investigation 65, e43807",
    )
    entry, how, _, _ = find_entry(misread, library)
    assert entry is not None and entry.label == "item10" and how == ENTRY_BY_AUTHORS_YEAR
    # Two different works under one title (a trial and its re-analysis) stay ambiguous.
    other = {**item, "year": 2021, "attachments": ["files/11/Moreau - 2021 - reanalysis.pdf"]}
    library = [_reference("item10", **item), _reference("item11", ordinal=2, **other)]
    undated = _reference("Moreau", authors=["Moreau", "Zhang"], title=item["title"])
    assert find_entry(undated, library)[0] is None


@pytest.mark.parametrize(
    ("entry", "authors", "title"),
    [
        ("Quispe É, Chen W, García M. Similar levels of side-effects were seen regardless of "
         "age. PLOS ONE. 2003;50(8):1–4.", ["Quispe", "Chen", "García"],
         "Similar levels of side-effects were seen regardless of age"),
        ("Nguyen J-P. Metformin is known to inhibit mitochondrial complex I in vitro. Clinical "
         "Microbiology Reviews. 2003;70(4).", ["Nguyen"],
         "Metformin is known to inhibit mitochondrial complex I in vitro"),
        ("Øberg C. Based on animal models, SARS-CoV-1 has been found to induce a robust "
         "cytokine. PLOS ONE. 2005;50(8).", ["Øberg"],
         "Based on animal models, SARS-CoV-1 has been found to induce a robust cytokine"),
        ("de la Cruz P, Andersen E. These results reveal an important role for the kinase. "
         "Oncogene. 2001;3(2):1–5.", ["de la Cruz", "Andersen"],
         "These results reveal an important role for the kinase"),
    ],
)  # fmt: skip
def test_vancouver_author_lists_with_accented_hyphenated_initials_and_particles(
    entry: str, authors: list[str], title: str
) -> None:
    # Vancouver entries whose author list holds an accented initial ("Quispe É"), a hyphenated
    # one ("Nguyen J-P"), a surname starting with a letter outside A-Z ("Øberg") or a particle
    # ("de la Cruz P") were read as name-year-title: the title became the journal.
    fields = parse_entry(entry)
    assert fields.authors == authors
    assert fields.title == title


def test_an_author_year_marker_naming_a_work_listed_twice_links_to_it() -> None:
    # The same work twice in an author-year list (CP412 reports the duplicate): its marker
    # "(Moreau and Zhang, 2022)" agreed with two entries and linked to neither, so every
    # citation of the work became reference_missing. Both entries are one work: link the first.
    title = "A human monoclonal antibody blocking SARS-CoV-2 infection"
    first = _reference("Moreau2022", authors=["Moreau", "Zhang"], year=2022, title=title)
    again = _reference(
        "Moreau2022-2", ordinal=2, authors=["Moreau", "Zhang"], year=2022, title=title.title()
    )
    other = _reference(
        "Moreau2022-3",
        ordinal=3,
        authors=["Moreau", "Zhang"],
        year=2022,
        title="Cardiac involvement in a patient with coronavirus disease",
    )
    item = MarkerItem(names=["Moreau", "Zhang"], year=2022)
    assert ReferenceIndex([first, again]).resolve(item) == first
    # Two different works by the same authors in one year, without suffixes, stay ambiguous.
    assert ReferenceIndex([first, other]).resolve(item) is None


def test_a_suffix_the_list_lacks_is_reported_when_the_marker_still_links() -> None:
    # "(Aalto et al., 2023a)" with one Aalto 2023 entry: the parser links it by convention ("a"
    # is the first such entry), so CP413 - which looked at unlinked citations only - stayed
    # silent, while "(Aalto et al., 2023b)" (unlinked) was reported. Both name a suffix the list
    # lacks (docs/rules.md, CP413).
    aalto = _reference("Aalto2023", authors=["Aalto", "Dubois", "Gaspar"], year=2023,
                       title="Heat-related mortality in fourteen European cities")  # fmt: skip
    entries = [ListedEntry(key=101, reference=aalto)]
    cited = CitedWork(names=["Aalto"], et_al=True, year=2023, year_suffix="a")
    linked = ListedCitation(key=1, entry=101, marker="(Aalto et al., 2023a)", cited=cited)
    plain = ListedCitation(key=2, entry=101, marker="(Aalto et al., 2023)",
                           cited=CitedWork(names=["Aalto"], et_al=True, year=2023))  # fmt: skip
    found = reference_list_findings(entries, [linked, plain])
    assert [(f.finding.rule, f.citation_id) for f in found] == [(AMBIGUOUS_SUFFIX.code, 1)]
    assert "2023a" in found[0].finding.message
    # The same when the list holds that work twice and the parser linked "2023b" to the copy.
    copy = msgspec.structs.replace(aalto, label="Aalto2023-2", ordinal=2)
    entries = [ListedEntry(key=101, reference=aalto), ListedEntry(key=102, reference=copy)]
    second = CitedWork(names=["Aalto"], et_al=True, year=2023, year_suffix="b")
    to_copy = ListedCitation(key=3, entry=102, marker="(Aalto et al., 2023b)", cited=second)
    found = reference_list_findings(entries, [plain, to_copy])
    assert (AMBIGUOUS_SUFFIX.code, 3) in [(f.finding.rule, f.citation_id) for f in found]


def test_a_quotation_ending_in_s_before_its_marker_is_closed() -> None:
    # "‘… travel restrictions’ [5]": a ’ after an "s" and a space was always read as a plural's
    # possessive ("the authors’ view"), so the quotation never closed and was not checked at
    # all - neither verified nor reported (also for superscript markers, which the rules blank
    # out before reading quotations). A possessive is followed by a word; a marker, a bracket
    # or punctuation ends the quotation.
    claim = (
        "The authors concluded that ‘movement data were used to derive travel restrictions’ [5]."
    )
    [quotation] = find_quotations(claim, "", GAPS)
    assert quotation.text.endswith("travel restrictions")
    assert quotation_spans("‘hospitalised human cases’ .") == [(1, 25)]
    assert quotation_spans("the ‘authors’ view’ of it") == [(5, 18)]


def test_the_uncited_copy_of_a_work_listed_twice_is_no_uncited_entry() -> None:
    # A numbered list holding a work twice, its citations naming the later copy: CP412 reports
    # the later entry as the duplicate, and CP411 reported the earlier copy as uncited too - a
    # second warning for one mistake, on a work the text does cite.
    title = "Temperature screening has negligible value for control of COVID-19"
    first = _reference("4", authors=["McDonald", "Rossi"], year=2020, title=title)
    again = _reference(
        "9", ordinal=2, authors=["McDonald", "Rossi"], year=2020, title=title.title()
    )
    entries = [ListedEntry(key=101, reference=first), ListedEntry(key=102, reference=again)]
    citations = [ListedCitation(key=1, entry=102, marker="[9]")]
    found = reference_list_findings(entries, citations)
    assert [(f.finding.rule, f.reference_id) for f in found] == [(DUPLICATE_ENTRY.code, 102)]


def test_a_block_quotation_is_the_claim_its_marker_checks() -> None:
    # A block quotation's marker stands alone after it, so the claim without its markers was
    # empty: planning called the citation not checkable and the content rules never saw the
    # quotation (no quote-verified, no quote-not-found for any block quotation).
    quoted = (
        "Opening windows for ten minutes every hour halved the concentration of carbon dioxide "
        "in the classrooms we measured, and teachers reported fewer headaches."
    )
    references = "Smith, J. 2020. Working alone. In Proceedings of Stuff.\n"
    text = f"The authors conclude:\n\n{quoted} (Smith, 2020, p. 5)\n\nNext paragraph here."
    analysis = analyze_thesis(f"1 Introduction\n\n{text}\n\nReferences\n{references}", [0])
    [citation] = analysis.citations
    assert citation.block_quote == quoted
    assert citation.claim_checked == quoted


def test_a_numbered_list_with_one_label_lost_keeps_the_entries_after_it() -> None:
    # A PDF page's first lines were taken for page furniture, and "[10] ..." with them: the
    # list ended at [9], the 17 entries after it were no entries, and every marker [11]-[27]
    # was reported "beyond the list" (CP415) and unlinked.
    entries = [
        f"[{n}] Author{chr(64 + n)} J, Other P. A title about topic number {n}. Vaccine. "
        f"2020;{n}(2):1–4."
        for n in range(1, 15)
        if n != 10
    ]
    body = "Masks reduce transmission [3]. Late results differ [12].\n\nReferences\n"
    analysis = analyze_thesis("1 Introduction\n\n" + body + "\n".join(entries) + "\n", [0])
    assert [r.label for r in analysis.references] == [str(n) for n in range(1, 15) if n != 10]
    assert {c.reference_label for c in analysis.citations} == {"3", "12"}


@pytest.mark.parametrize("text", ["254nm", "3 µg", "0.5 ms", "12 mm"])
def test_a_small_quantity_agrees_with_itself(text: str) -> None:
    # Values in SI units are tiny (254 nm = 2.54e-7 m) and the "intervals only touch" margin
    # was at least 1e-9 in absolute terms - as wide as the interval itself - so 254nm never
    # agreed with 254nm: "The claim says 254nm where the source's matching sentence says
    # 254nm" (CP201 on a verbatim quotation).
    [claim] = extract_quantities(f"UV light at {text} inactivated the virus.")
    [source] = extract_quantities(f"The virus was inactivated by ultraviolet light at {text}.")
    assert values_agree(claim, source)
    [other] = extract_quantities("The virus was inactivated by ultraviolet light at 312nm.")
    if text == "254nm":
        assert not values_agree(claim, other)
