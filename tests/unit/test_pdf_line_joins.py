"""Lines of a PDF's text layer that pdfium or the page layout run together: a line-end hyphen
pdfium removed (U+FFFE in its text, U+0002 as the character), a page range broken over two lines
whose second half looks like a page number."""

from __future__ import annotations

from types import SimpleNamespace

from citeproof.parser import pdf
from citeproof.parser.layout import remove_page_furniture


def test_a_line_holding_a_removed_hyphen_is_still_measured(monkeypatch) -> None:
    raw = "Hofer anti\ufffecontagion"
    # The hyphen is the middle visible character: one of the three a line's size is read from.
    visible = [index for index, char in enumerate(raw) if not char.isspace()]
    assert raw[visible[len(visible) // 2]] == "\ufffe"
    # pdfium's character for a removed hyphen is U+0002, not the U+FFFE its text range shows.
    fake = SimpleNamespace(
        FPDFText_GetCharIndexFromTextIndex=lambda _page, index: index,
        FPDFText_GetUnicode=lambda _page, index: 2 if raw[index] == "\ufffe" else ord(raw[index]),
        FPDFText_GetFontSize=lambda _page, _index: 10.0,
    )
    monkeypatch.setattr(pdf, "pdfium_c", fake)
    monkeypatch.setattr(pdf, "_char_box", lambda _page, _index: (720.0, 710.0, 72.0))
    box = pdf._line_box(SimpleNamespace(raw=None), raw, 0, len(raw))
    assert box is not None and box.size == 10.0


def test_a_bare_number_ending_a_broken_page_range_is_no_page_number() -> None:
    pages = [
        ["Nguyen, J. (2021) Mental health outcomes, Vaccine 26, 133–", "809", "12"],
        ["Nowak, M. (2020) Does openSAFELY hold?, Journal of Infection 17, 341–578", "13"],
    ]
    assert remove_page_furniture(pages) == [
        ["Nguyen, J. (2021) Mental health outcomes, Vaccine 26, 133–", "809"],
        ["Nowak, M. (2020) Does openSAFELY hold?, Journal of Infection 17, 341–578"],
    ]


def test_a_typed_hyphen_at_a_line_end_is_kept_before_a_digit_or_a_capital() -> None:
    raw = "COVID\ufffe19 and SARS\ufffeCoV-2, Health\ufffeProtective, litera\ufffeture, x\u00adY"
    assert pdf._clean(raw) == "COVID-19 and SARS-CoV-2, Health-Protective, literature, xY"
