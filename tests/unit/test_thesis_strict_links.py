"""A marker links to an entry only when first author, year, suffix and author count agree;
otherwise the citation is left unlinked (reported `reference_missing`) with the entries it almost
matched as candidates."""

from citeproof.parser.thesis import analyze_thesis

REFERENCES = """
García, M., Ruiz, A., and Torres, L. 2020a. Ventilation in schools. Indoor Air, 30(2):1-9.
Lindqvist, S. and Hofer, M. 2021. Heat and cities. Urban Climate, 4:22-31.
O’Neil, C. 2016. Weapons of math destruction. Crown.
Smith, J. 2019. Working alone. In Proceedings of Stuff.
Smith, J., Jones, K., and Lee, M. 2019. Team work. In Proceedings of Stuff.
Smith, J. and Jones, K. 2018. Joint work. In Proceedings of Stuff.
Tanaka, H., Weber, R., and Novak, P. 2022. Aerosols indoors. Journal of Air, 7:5-9.
van Dijk, P. 2019. Dykes and floods. Water Policy, 2:1-2.
"""


def author_year_doc(body: str) -> str:
    return f"1 Introduction\n\n{body}\n\nReferences\n{REFERENCES}"


def rows(body: str) -> list[tuple[str, str | None, list[str]]]:
    analysis = analyze_thesis(author_year_doc(body), [0])
    return [(c.marker_text, c.reference_label, c.candidates) for c in analysis.citations]


def test_a_third_author_is_not_a_first_author():
    # Novak is the third author of Tanaka 2022; there is no Novak 2022 entry.
    assert rows("Aerosols linger in classrooms (Novak, 2022).") == [
        ("(Novak, 2022)", None, ["Tanaka2022"])
    ]


def test_year_suffix_must_agree():
    # Only García 2020a is listed: 2020b is another work, missing from the list.
    assert rows("Opening windows halves the risk (García et al., 2020b).") == [
        ("(García et al., 2020b)", None, ["Garcia2020a"])
    ]
    assert rows("Opening windows halves the risk (García et al., 2020a).") == [
        ("(García et al., 2020a)", "Garcia2020a", [])
    ]


def test_author_count_implied_by_the_marker_must_agree():
    assert rows("Teams outperform (Smith et al., 2019). Alone is slower (Smith, 2019).") == [
        ("(Smith et al., 2019)", "Smith2019-2", []),
        ("(Smith, 2019)", "Smith2019", []),
    ]
    # "X and Y" is two authors: the three-author entry of 2019 is not it.
    assert rows("Pairs do well (Smith and Jones, 2019).") == [
        ("(Smith and Jones, 2019)", None, ["Smith2019-2", "Smith2019", "Smith2018"])
    ]
    # "X et al." is three or more: the two-author entry of 2018 is not it.
    assert rows("Pairs do well (Smith et al., 2018).") == [
        ("(Smith et al., 2018)", None, ["Smith2018", "Smith2019-2", "Smith2019"])
    ]


def test_second_author_of_a_two_name_marker_must_agree():
    assert rows("Cities heat up (Lindqvist and Weber, 2021).") == [
        ("(Lindqvist and Weber, 2021)", None, ["Lindqvist2021"])
    ]
    assert rows("Cities heat up (Lindqvist and Hofer, 2021).") == [
        ("(Lindqvist and Hofer, 2021)", "Lindqvist2021", [])
    ]


def test_names_match_across_diacritics_particles_and_apostrophes():
    assert rows(
        "Windows help (Garcia et al., 2020a). Floods recur (van Dijk, 2019). "
        "Models harm (O'Neil, 2016)."
    ) == [
        ("(Garcia et al., 2020a)", "Garcia2020a", []),
        ("(van Dijk, 2019)", "Vandijk2019", []),
        ("(O'Neil, 2016)", "Oneil2016", []),
    ]


def test_narrative_marker_with_a_near_miss_is_reported_not_dropped():
    assert rows("As Novak (2022) showed, aerosols linger in classrooms.") == [
        ("Novak (2022)", None, ["Tanaka2022"])
    ]


def test_numeric_marker_beyond_the_list_is_reported_missing():
    references = "\n".join(
        f"[{n}] A. Author{n} and B. Writer. Title number {n}. Journal, 20{10 + n}."
        for n in range(1, 13)
    )
    body = "Parsing is solved [3]. Tagging too [14]."
    text = f"1 Introduction\n\n{body}\n\nReferences\n{references}\n"
    analysis = analyze_thesis(text, [0])
    assert [(c.marker_text, c.reference_label) for c in analysis.citations] == [
        ("[3]", "3"),
        ("[14]", None),
    ]


def test_numeric_pinpoints_after_a_colon_are_kept():
    references = "\n".join(
        f"[{n}] A. Author{n} and B. Writer. Title number {n}. Journal, 20{10 + n}."
        for n in range(1, 13)
    )
    body = "Masks work [12: 5–7]. Hands too [5:12]. Also [6: p. 4]. A slice x[0:3] is no citation."
    text = f"1 Introduction\n\n{body}\n\nReferences\n{references}\n"
    analysis = analyze_thesis(text, [0])
    assert [(c.reference_label, c.pinpoint) for c in analysis.citations] == [
        ("12", "5–7"),
        ("5", "12"),
        ("6", "p. 4"),
    ]
