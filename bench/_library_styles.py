"""The style matrix of bench-extraction checked with its library: every rendering of the thesis
(every citation style, PDF and DOCX) parsed as a user's rendered thesis, its reference entries
matched to the works' .bib (written here, read by the bibliography upload's own parser) with
`citeproof.retriever.linking.through_library.find_entry` (DOI, title, authors + year), and each
citation followed marker -> printed entry -> library entry.

Scored against the renderer's key (which works each claim cites), independently of
bench-extraction's own scoring:
- references_found: printed entries the library matched (weak matches are not links).
- marker_recall: key citations whose claim sentence holds at least one of our citations;
  marker_precision: our citations that sit in a claim sentence of the key.
- link_accuracy: key citations (claim, work) reached by one of our citations in that claim
  through the library; wrong_links: our citations that reach a work their claim does not cite.
"""

from __future__ import annotations

from rapidfuzz import fuzz

from bench import _extraction_styles as styles
from citeproof.contracts.thesis import Reference, ThesisAnalysis
from citeproof.devkit.pdfgen.citestyles import STYLES, StyledThesis, ThesisContent, styled
from citeproof.parser.libraries import parse_bibliography
from citeproof.retriever.linking.through_library import find_entry
from citeproof.text.normalize import comparison_key

FORMATS = ("pdf", "docx")
# Partial similarity (0-100) of our claim text within a printed claim sentence.
CLAIM_MATCH = 90


def _braced(value: str) -> str:
    """A field value escaped the way Zotero's BibTeX export escapes it."""
    value = value.replace("{", "").replace("}", "")
    for char in "\\&%$#_":
        value = value.replace(char, "\\" + char)
    return "{" + value + "}"


def bibtex_of(content: ThesisContent) -> str:
    """The works as the .bib a reference manager would export (organisations braced whole)."""
    entries = []
    for work in content.works:
        names = " and ".join(
            f"{surname}, {given}" if given else "{" + surname + "}"
            for given, surname in work.authors
        )
        fields = {"title": work.title, "author": names, "year": str(work.year)}
        if work.venue:
            fields["journal"] = work.venue
        if work.doi:
            fields["doi"] = work.doi
        body = ",\n".join(f"  {name} = {_braced(value)}" for name, value in fields.items())
        entries.append(f"@article{{{work.key},\n{body}\n}}\n")
    return "\n".join(entries)


def library_of(content: ThesisContent) -> list[Reference]:
    """The works' .bib read the way a bibliography upload is (`parse_bibliography`)."""
    parsed = parse_bibliography(bibtex_of(content).encode(), "library.bib")
    assert parsed.analysis is not None and not parsed.notes, parsed.notes
    return parsed.analysis.references


def through_library(analysis: ThesisAnalysis, library: list[Reference]) -> dict[str, str]:
    """Our entry label -> the library key it matched (weak matches are left out)."""
    mapping: dict[str, str] = {}
    for reference in analysis.references:
        entry = find_entry(reference, library)[0]
        if entry is not None:
            mapping[reference.label] = entry.label
    return mapping


def _claim_index(claim_text: str, sentences: list[str]) -> int | None:
    ours = comparison_key(claim_text)
    best, best_score = None, 0.0
    for index, sentence in enumerate(sentences):
        similarity = fuzz.partial_ratio(ours, sentence) if ours else 0.0
        if similarity > best_score:
            best, best_score = index, similarity
    return best if best_score >= CLAIM_MATCH else None


def score_with_library(
    thesis: StyledThesis, analysis: ThesisAnalysis, library: list[Reference]
) -> dict[str, object]:
    mapping = through_library(analysis, library)
    sentences = [comparison_key(sentence) for sentence in thesis.sentences]
    works_of_claim: dict[int, set[str]] = {}
    for citation in thesis.citations:
        works_of_claim.setdefault(citation.claim, set()).add(citation.work_key)
    reached: dict[int, set[str]] = {}
    in_claim = wrong = 0
    for citation in analysis.citations:
        claim = _claim_index(citation.claim_text, sentences)
        in_claim += claim is not None
        work = mapping.get(citation.reference_label) if citation.reference_label else None
        if work is None:
            continue
        if claim is None or work not in works_of_claim.get(claim, set()):
            wrong += 1
        else:
            reached.setdefault(claim, set()).add(work)
    claims_with_ours = {
        c
        for c in (_claim_index(x.claim_text, sentences) for x in analysis.citations)
        if c is not None
    }
    key = thesis.citations
    return {
        "references_found": len(mapping),
        "references_expected": len(thesis.entries),
        "marker_precision": round(in_claim / len(analysis.citations), 4)
        if analysis.citations
        else 0.0,
        "marker_recall": round(sum(c.claim in claims_with_ours for c in key) / len(key), 4),
        "link_accuracy": round(
            sum(c.work_key in reached.get(c.claim, set()) for c in key) / len(key), 4
        ),
        "wrong_links": wrong,
        "verdict_agreement": None,
        "citations": len(analysis.citations),
        "citations_expected": len(key),
    }


def run_matrix_with_library() -> dict[str, dict]:
    from citeproof.parser.extract import parse_bytes
    from citeproof.parser.settings import ParserSettings

    content = styles.load_content()
    library = library_of(content)
    records: dict[str, dict] = {}
    for style in STYLES:
        thesis = styled(content, style)
        for fmt in FORMATS:
            data = styles.render(thesis, fmt, styles.layout_for(style, fmt))
            parsed = parse_bytes(data, f"thesis.{fmt}", None, ParserSettings(), kind="thesis")
            records[f"style-matrix {style}/{fmt} + library"] = score_with_library(
                thesis, parsed.analysis, library
            )
    return records
