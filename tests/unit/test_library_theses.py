"""LaTeX theses and Word theses with Zotero/Mendeley citation fields: exact markers and keys."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest

from citeproof.devkit.library_run import KEYS, build_docx, latex_zip
from citeproof.parser.errors import ARCHIVE_BOMB, ParseFailure
from citeproof.parser.extract import parse_bytes
from citeproof.parser.latex import is_latex, parse_latex_thesis
from citeproof.parser.settings import ParserSettings

REPO = Path(__file__).resolve().parents[2]
LIBRARY_SAMPLES = REPO / "samples" / "library"
DEMO_EXPECTED = REPO / "samples" / "demo" / "expected.json"


def expected_pairs() -> list[tuple[str, str]]:
    """(first 40 characters of the citing sentence, citation key) the author wrote."""
    expected = json.loads(DEMO_EXPECTED.read_text())
    return sorted(
        (sentence["sentence"][:40], KEYS[citation["reference"]])
        for sentence in expected["sentences"]
        for citation in sentence["citations"]
    )


def test_latex_project_cites_by_key_with_pinpoints_and_lines() -> None:
    data = latex_zip(with_bib=True)
    assert is_latex(data, "thesis.zip")
    parsed = parse_latex_thesis(data, "thesis.zip", ParserSettings())
    analysis = parsed.analysis
    assert [r.label for r in analysis.references] == list(KEYS.values())
    assert analysis.references[0].attachments == ["files/1/1-street-trees.pdf"]
    pairs = sorted((c.claim_text[:40], c.reference_label) for c in analysis.citations)
    assert pairs == expected_pairs()
    for citation in analysis.citations:
        # Markers and claims are exact slices of the stored text, with no LaTeX left in them.
        assert parsed.text[citation.claim_start : citation.claim_end] == citation.claim_text
        assert parsed.text[citation.marker_start : citation.marker_end] == citation.marker_text
        assert "\\" not in citation.claim_text and "~" not in citation.claim_text
        assert citation.source_file.startswith("chapters/") and citation.source_line >= 1
        assert citation.page is None  # no pages in a source file: file and line instead
    by_pinpoint = {c.pinpoint for c in analysis.citations}
    assert {"p. 5", "ch. 2"} <= by_pinpoint  # \cite[p.~5]{k} and \citep[see][ch.~2]{k}
    # The line is the line of the \cite command in its own file.
    first = analysis.citations[0]
    source = (LIBRARY_SAMPLES / "latex" / first.source_file).read_text().splitlines()
    assert f"{{{first.reference_label}}}" in source[first.source_line - 1]
    assert parsed.meta.title.startswith("Cooling the Compact City")
    assert "30 °C" in parsed.text


def test_cite_variants_multiple_keys_and_notes() -> None:
    tex = rb"""\documentclass{article}\begin{document}
\section{Intro}
Heat kills \citep[see][p.~12]{a2020, b2021}. \textcite{c2019} disagrees. % \cite{commented}
Trees cool streets\footcite[ch.~3]{d2018}. \autocite{e2017} and \parencite*{f2016} too.
Shown in Figure~\ref{fig:x}. $x^2$ is \emph{not} a claim \cite{g2015}.
\begin{figure}\caption{A figure \cite{hidden}}\end{figure}
\end{document}"""
    parsed = parse_bytes(tex, "thesis.tex", None, ParserSettings(), kind="thesis")
    cites = [(c.reference_label, c.pinpoint) for c in parsed.analysis.citations]
    assert cites == [("a2020", "p. 12"), ("b2021", "p. 12"), ("c2019", None), ("d2018", "ch. 3"),
                     ("e2017", None), ("f2016", None), ("g2015", None)]  # fmt: skip
    assert "commented" not in parsed.text and "hidden" not in parsed.text
    # Keys without a .bib are kept as references known by their key alone.
    assert [r.label for r in parsed.analysis.references][:2] == ["a2020", "b2021"]
    assert any("no entry in the uploaded .bib" in note for note in parsed.analysis.notes)
    assert parsed.analysis.citations[0].source_line == 3


def test_include_cycles_and_escaping_paths_are_ignored(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("main.tex", "\\documentclass{x}\\begin{document}\n\\input{a}\n"
                                     "\\input{../../etc/passwd}\n\\end{document}")  # fmt: skip
        archive.writestr("a.tex", "A claim about heat \\cite{k1}.\n\\input{main}\n")
        archive.writestr("../evil.tex", "\\cite{evil}")
    parsed = parse_bytes(buffer.getvalue(), "p.zip", None, ParserSettings(), kind="thesis")
    assert [c.reference_label for c in parsed.analysis.citations] == ["k1"]


def test_zip_bomb_of_a_latex_project_is_refused() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("main.tex", "\\begin{document}" + " " * 2_000_000 + "\\end{document}")
    with pytest.raises(ParseFailure) as caught:
        parse_latex_thesis(buffer.getvalue(), "p.zip", ParserSettings(max_unzipped_bytes=1_000_000))
    assert caught.value.code == ARCHIVE_BOMB


@pytest.mark.parametrize("plugin", ["zotero", "mendeley"])
def test_word_citation_fields_link_exactly(plugin: str, tmp_path: Path) -> None:
    data = build_docx(plugin, tmp_path / f"{plugin}.docx")
    parsed = parse_bytes(data, f"{plugin}.docx", None, ParserSettings(), kind="thesis")
    analysis = parsed.analysis
    assert analysis.notes[0] == f"14 citations read from {plugin} citation fields."
    assert sorted(r.label for r in analysis.references) == sorted(KEYS.values())
    pairs = sorted((c.claim_text[:40], c.reference_label) for c in analysis.citations)
    assert pairs == expected_pairs()
    assert any(c.pinpoint == "p. 14" for c in analysis.citations)
    for citation in analysis.citations:
        assert parsed.text[citation.marker_start : citation.marker_end] == citation.marker_text
    trees = next(r for r in analysis.references if r.label == "kowalczyk2021")
    assert trees.doi == "10.5555/ucl.2021.0142" and trees.authors[0] == "Kowalczyk"


def test_thebibliography_and_bbl_items_become_references_with_fields() -> None:
    tex = r"""\documentclass{article}\begin{document}
Street trees cool cities by about half a degree \cite{kow21}. Roofs help too \cite{hof20}.
\begin{thebibliography}{9}
\bibitem{kow21} M.~Kowalczyk, D.~Brandt and L.~Ferrer (2021). Street-tree canopy cover and
  summer afternoon air temperature in twelve European cities. \emph{Urban Climate Letters}
  14(2), 101--118. doi:10.5555/ucl.2021.0142
\end{thebibliography}
\end{document}"""
    bbl = r"""\begin{thebibliography}{1}
\bibitem[Hofer and Lindqvist(2020)]{hof20}
K.~Hofer and J.~Lindqvist.
\newblock Roof-level and street-level cooling by extensive green roofs.
\newblock \emph{Building and Environment Reports}, 9:\penalty0 377--392, 2020.
\end{thebibliography}"""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("main.tex", tex)
        archive.writestr("main.bbl", bbl)
    parsed = parse_latex_thesis(buffer.getvalue(), "p.zip", ParserSettings())
    references = {r.label: r for r in parsed.analysis.references}
    trees, roofs = references["kow21"], references["hof20"]
    assert trees.doi == "10.5555/ucl.2021.0142" and trees.year == 2021
    assert trees.authors[0] == "Kowalczyk" and trees.title.startswith("Street-tree canopy")
    assert roofs.authors == ["Hofer", "Lindqvist"] and roofs.year == 2020
    assert roofs.title.startswith("Roof-level and street-level cooling")
    # The list is not body text: no claims from it.
    assert [c.reference_label for c in parsed.analysis.citations] == ["kow21", "hof20"]


def test_simple_fields_and_broken_codes(tmp_path: Path) -> None:
    """`w:fldSimple` citation fields are read too; a field whose JSON is broken is skipped."""
    from citeproof.parser.wordfields import read_citation_fields

    data = {"type": "article", "title": "Heat", "author": [{"family": "Aalto"}]}
    item = {"itemData": data, "uris": ["http://zotero.org/x/1"]}
    code = "ADDIN ZOTERO_ITEM CSL_CITATION " + json.dumps({"citationItems": [item]})
    escaped = code.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
    body = (
        '<w:p><w:r><w:t xml:space="preserve">Heat kills </w:t></w:r>'
        f'<w:fldSimple w:instr="{escaped}"><w:r><w:t>(Aalto, 2023)</w:t></w:r></w:fldSimple>'
        "<w:r><w:t>.</w:t></w:r></w:p>"
        '<w:p><w:fldSimple w:instr="ADDIN ZOTERO_ITEM CSL_CITATION {broken"><w:r><w:t>[9]</w:t>'
        "</w:r></w:fldSimple></w:p>"
    )
    xml = (
        '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
        f"<w:body>{body}</w:body></w:document>"
    )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("word/document.xml", xml)
    (field,) = read_citation_fields(buffer.getvalue())
    assert field.result == "(Aalto, 2023)" and field.before == "Heat kills "
    assert field.citation["citationItems"][0]["itemData"]["title"] == "Heat"


def test_biblatex_multicite_commands() -> None:
    tex = rb"""\begin{document}
Masks reduce transmission \parencites(see)()[p.~4]{a2020}[ch.~2]{b2021}{c2022}. Next.
Also \textcites{d2019}{e2018} argued so. Plain \cites{f2017}.
\end{document}"""
    parsed = parse_bytes(tex, "t.tex", None, ParserSettings(), kind="thesis")
    cites = [(c.reference_label, c.pinpoint) for c in parsed.analysis.citations]
    assert cites == [("a2020", "p. 4"), ("b2021", "ch. 2"), ("c2022", None), ("d2019", None),
                     ("e2018", None), ("f2017", None)]  # fmt: skip
    first = parsed.analysis.citations[0]
    assert first.marker_text == "[a2020; b2021; c2022]"
    assert first.claim_text.startswith("Masks reduce transmission")
