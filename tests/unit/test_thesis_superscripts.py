"""Superscript numeric markers (Vancouver, Nature, AMA): told from glyph size and rise in PDF,
from `w:vertAlign` in DOCX and `<sup>` in HTML; footnote marks beside "[n]" citations are not
citations, and powers ("m²", "10⁻³") never are."""

from __future__ import annotations

import pytest

from citeproof.devkit.pdfgen.citestyles import STYLE_SUPERSCRIPT, styled
from citeproof.devkit.pdfgen.thesis_layout import Layout, render_thesis_docx, render_thesis_pdf
from citeproof.parser.extract import parse_bytes
from citeproof.parser.settings import ParserSettings
from citeproof.parser.thesis import analyze_thesis
from tests.unit.test_thesis_layout_entries import _content

REFERENCES = "\n".join(
    f"{n}. A. Author{n}. Title {n}. Journal. 2019;{n}:1-9." for n in range(1, 13)
)


def _numbers(text: str) -> list[tuple[str, str | None]]:
    return [(c.marker_text, c.reference_label) for c in analyze_thesis(text, [0]).citations]


def test_superscript_digits_are_markers_and_powers_are_not():
    text = (
        "1 Introduction\n\nMasks work¹. Ventilation matters²⁻⁴. Treating COVID-19⁷ is hard. "
        "It peaked in 2020¹¹. The room had 40 m² of floor, x² grows and doses of 10⁻³ help."
        f"\n\nReferences\n{REFERENCES}\n"
    )
    assert _numbers(text) == [
        ("¹", "1"),
        ("²⁻⁴", "2"),
        ("²⁻⁴", "3"),
        ("²⁻⁴", "4"),
        ("⁷", "7"),
        ("¹¹", "11"),
    ]


def test_superscripts_beside_bracket_citations_are_footnote_marks():
    text = (
        "1 Introduction\n\nMasks work [1]. Ventilation matters [2]. Distance too [3]. "
        "We used the public data¹ and the released code².\n\n"
        f"References\n{REFERENCES}\n"
    )
    assert [label for _, label in _numbers(text)] == ["1", "2", "3"]


@pytest.mark.parametrize(
    "render,filename", [(render_thesis_pdf, "t.pdf"), (render_thesis_docx, "t.docx")]
)
def test_rendered_superscript_markers_link_to_their_entries(render, filename):
    thesis = styled(_content(), STYLE_SUPERSCRIPT)
    data = render(thesis, Layout(hanging_indent_mm=0.0, entry_gap_pt=4.0))
    analysis = parse_bytes(data, filename, None, ParserSettings(), kind="thesis").analysis
    assert analysis is not None
    numbers = {key: str(n) for n, key in enumerate(thesis.entry_work_keys, start=1)}
    expected = sorted(numbers[c.work_key] for c in thesis.citations)
    assert sorted(c.reference_label for c in analysis.citations) == expected
    assert all(not any(d in c.claim_checked for d in "¹²³⁴⁵⁶⁷⁸⁹⁰") for c in analysis.citations)


def test_html_sup_numbers_are_markers():
    html = (
        "<html><body><h2>Introduction</h2><p>Masks work<sup>1</sup>. Ventilation matters"
        "<sup>2,3</sup>. Distance too<sup>4</sup>.</p><h2>References</h2><ol>"
        + "".join(
            f"<li>{n}. A. Author{n}. Title {n}. Journal. 2019;{n}:1-9.</li>" for n in range(1, 6)
        )
        + "</ol></body></html>"
    )
    parsed = parse_bytes(html.encode(), "t.html", None, ParserSettings(), kind="thesis")
    assert parsed.analysis is not None
    assert [c.reference_label for c in parsed.analysis.citations] == ["1", "2", "3", "4"]


def test_note_numbers_link_through_their_notes_never_by_position():
    # Chicago notes-bibliography: the superscripts number notes, not bibliography entries; a
    # note names its work in full, shortened or as "Ibid.", and the pinpoint is kept.
    text = (
        "1 Introduction\n\nMasks work at home.¹ Ventilation matters.² Distance helps too.³\n\n"
        "Notes\n\n1. Ana García, Masks at Home (Madrid: Prensa, 2020), 12.\n"
        "2. Ibid., 14.\n3. Jonas Müller, Saliva Testing (Berlin: Verlag, 2019), 3.\n\n"
        "Bibliography\n\n"
        "Fischer, Eva. Distance and Risk. Vienna: Verlag, 2018.\n\n"
        "García, Ana. Masks at Home. Madrid: Prensa, 2020.\n\n"
        "Müller, Jonas. Saliva Testing. Berlin: Verlag, 2019.\n"
    )
    analysis = analyze_thesis(text, [0])
    assert len(analysis.references) == 3
    assert [(c.claim_checked, c.reference_label, c.pinpoint) for c in analysis.citations] == [
        ("Masks work at home.", "Garcia2020", "12"),
        ("Ventilation matters.", "Garcia2020", "14"),
        ("Distance helps too.", "Muller2019", "3"),
    ]


def test_a_note_that_names_no_entry_strictly_is_left_unlinked_with_candidates():
    text = (
        "1 Introduction\n\nMasks work at home.¹ Ventilation matters.²\n\n"
        "Notes\n\n1. Ana García, Masks in Schools (Madrid: Prensa, 2021), 12.\n"
        "2. Jonas Müller, Saliva Testing (Berlin: Verlag, 2019), 3.\n\n"
        "Bibliography\n\n"
        "García, Ana. Masks at Home. Madrid: Prensa, 2020.\n\n"
        "Müller, Jonas. Saliva Testing. Berlin: Verlag, 2019.\n\n"
        "Weber, Eva. Distance. Vienna: Verlag, 2018.\n"
    )
    analysis = analyze_thesis(text, [0])
    assert [(c.reference_label, c.candidates) for c in analysis.citations] == [
        (None, ["Garcia2020"]),
        ("Muller2019", []),
    ]


def test_a_year_with_a_raised_number_is_a_candidate_after_a_line_break_too():
    from citeproof.parser.superscripts import _GLUED_DIGITS

    # "October of" / "2020" + raised "15": the run opens a line, after CRLF.
    assert [m.group(0) for m in _GLUED_DIGITS.finditer("of\r\n202015. x12, 2020 1999")] == [
        "202015",
        "12",
    ]


def test_a_raised_number_after_a_hyphen_pdfium_removed_is_a_superscript(monkeypatch):
    import citeproof.parser.superscripts as superscripts

    # "COVID-" ends a line; pdfium removed the hyphen (U+FFFE, no glyph) and joined "19" and a
    # raised note number "62" to it. Glyphs: (size, baseline) per text index; None for U+FFFE.
    raw = "from COVID\ufffe1962. Next"
    glyphs = {index: (11.0, 685.0) for index in range(len(raw))}
    glyphs[raw.index("\ufffe")] = None
    for index in (raw.index("62"), raw.index("62") + 1):
        glyphs[index] = (6.4, 689.4)
    monkeypatch.setattr(superscripts, "_size_and_baseline", lambda _page, _raw, i: glyphs[i])
    assert superscripts.with_superscripts(None, raw) == "from COVID\ufffe19⁶². Next"


def test_a_raised_number_pdfium_put_on_a_line_of_its_own_is_a_superscript(monkeypatch):
    import citeproof.parser.superscripts as superscripts

    # "... of SARS-CoV-2" ends a line with a raised note number "99" that pdfium gave a line
    # of its own; the next line starts "99. A new", and "2020" opens the line after that.
    raw = "of SARS-CoV\ufffe2\r\n99. A new study\r\n2020 was"
    glyphs = {index: (10.0, 677.7) for index in range(len(raw))}
    for index in (raw.index("99"), raw.index("99") + 1):
        glyphs[index] = (5.8, 681.6)
    for index in range(raw.index("2020"), raw.index("2020") + 4):
        glyphs[index] = (10.0, 663.7)
    monkeypatch.setattr(superscripts, "_size_and_baseline", lambda _page, _raw, i: glyphs[i])
    text = superscripts.with_superscripts(None, raw)
    assert text == "of SARS-CoV\ufffe2⁹⁹\r\n. A new study\r\n2020 was"
    assert len(text) == len(raw)
