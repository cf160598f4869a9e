"""Benchmark thesis analysis on real papers: references, markers, and (with a key) accuracy.

    .venv/bin/python -m bench.extraction [FOLDER]     # default ../shared/data/papers

For every PDF in FOLDER it extracts the text the way the parser does
(``citeproof.parser.extract`` when installed, otherwise raw pypdfium2 page text), runs
``analyze_thesis`` and counts references and markers. Where an S2ORC parse of the same PDF lies
beside it (``<name>.s2orc.json``), it scores marker detection and marker -> reference linking
against the key's ``cite_spans``/``bib_entries``.

Scoring against the key:
- Key markers are the ``cite_spans`` with a ``ref_id``; each is located in our text by its
  surrounding words (normalised: ASCII letters and digits only).
- recall: key markers overlapped by one of our markers.
- link accuracy: of the recalled key markers, those where one of our citations at that marker
  links to the reference entry that maps to the key's ``ref_id`` (entries are mapped by first
  author + year, or title similarity).
- precision: our markers that overlap a key span (with or without ``ref_id``), or whose every
  linked entry maps to a key bibliography entry - S2ORC misses real markers (e.g. across a page
  break), and a marker resolving to a listed work by surname and year is a citation. The strict
  variant (key overlap only) is reported too.

Then the style matrix (`bench/_extraction_styles.py`): one thesis built from Check-COVID train
claims rendered in every citation style, as PDF and DOCX, under random layouts, scored against
the renderer's key.

Then randomly drawn author-year lists (`bench/_extraction_styles.run_random_lists`): theses whose
list is printed in an `EntryFormat` and layout drawn from a seed - no gaps between entries,
hanging, flush and first-line indents, titles without full stops, with dates, ranges and dashes,
titles broken onto their own line, reports ending in their title - each as PDF, DOCX and (with
LibreOffice) the DOCX converted to PDF, scored like the matrix. `--lists-seed` picks the draw
(`--lists` how many theses); the committed results are from a seed nobody looked at while
building.

Writes bench/results/extraction.json as {"papers": {per paper}, "styles": {per style/format},
"random_lists": {seed, theses, per format}, "library_inputs": {kept as bench/library_inputs.py
wrote it}} and prints the tables.
"""

from __future__ import annotations

import json
import os
import sys
import time
import uuid
from pathlib import Path

os.environ.setdefault("DO_NOT_TRACK", "1")

import msgspec
from rapidfuzz import fuzz

from bench import _extraction_styles, common
from citeproof.contracts.thesis import Reference, SourceMeta, ThesisAnalysis
from citeproof.parser.thesis import analyze_thesis
from citeproof.retriever.linking import link_references
from citeproof.text.names import name_key, surname_keys
from citeproof.text.normalize import fold_diacritics

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_FOLDER = common.PAPERS_DIR
RESULTS = ROOT / "bench" / "results" / "extraction.json"
# Normalised characters of context used to locate a key marker in our text, longest first.
CONTEXT_LENGTHS = (40, 25, 12)
# Result row of all papers of the folder read as one thesis with a reference list per chapter.
COMBINED = "all-papers-as-chapters"
# First-page text handed to linking, as the parser stores it.
FIRST_PAGE_CHARS = 3000
# Title similarity (token set ratio, 0-100) that maps one of our entries to a key entry.
TITLE_MATCH = 85


class Extracted(msgspec.Struct, frozen=True):
    text: str
    page_starts: list[int]
    source: str
    # What linking knows about the paper when it is uploaded as a source.
    meta: SourceMeta


def extract(data: bytes, filename: str) -> Extracted:
    """The parser's own extraction and metadata when it is installed, else pypdfium2 text."""
    document_id = uuid.uuid5(uuid.NAMESPACE_URL, filename)
    try:
        from citeproof.parser.extract import parse_bytes
        from citeproof.parser.settings import ParserSettings
    except ImportError:
        parse_bytes = None
    if parse_bytes is not None:
        parsed = parse_bytes(data, filename, None, ParserSettings())
        meta = SourceMeta(
            document_id=document_id,
            title=parsed.meta.title,
            authors=list(parsed.meta.authors),
            year=parsed.meta.year,
            doi=parsed.meta.doi,
            first_page_text=parsed.text[:FIRST_PAGE_CHARS],
        )
        return Extracted(parsed.text, list(parsed.page_starts), "citeproof.parser.extract", meta)
    import pypdfium2

    pdf = pypdfium2.PdfDocument(data)
    pages: list[str] = []
    starts: list[int] = []
    position = 0
    for page in pdf:
        page_text = page.get_textpage().get_text_range()
        starts.append(position)
        pages.append(page_text)
        position += len(page_text) + 2
    text = "\n\n".join(pages)
    meta = SourceMeta(document_id=document_id, first_page_text=text[:FIRST_PAGE_CHARS])
    return Extracted(text, starts, "pypdfium2", meta)


def normalised_with_map(text: str) -> tuple[str, list[int]]:
    """Lower-case ASCII letters/digits of ``text`` and the original offset of each."""
    chars: list[str] = []
    offsets: list[int] = []
    for index, char in enumerate(text):
        folded = fold_diacritics(char).lower()
        for piece in folded:
            if piece.isascii() and piece.isalnum():
                chars.append(piece)
                offsets.append(index)
    return "".join(chars), offsets


def _normalise(text: str) -> str:
    return normalised_with_map(text)[0]


def locate_key_spans(text: str, key: dict) -> list[dict]:
    """Key cite spans with their position in ``text`` (None when they cannot be located)."""
    haystack, offsets = normalised_with_map(text)
    located: list[dict] = []
    cursor = 0
    for paragraph in key["pdf_parse"]["body_text"]:
        for span in paragraph["cite_spans"]:
            marker = _normalise(span["text"])
            before = _normalise(paragraph["text"][: span["start"]])
            position = -1
            for length in CONTEXT_LENGTHS:
                needle = before[-length:] + marker
                found = haystack.find(needle, cursor)
                if found < 0:
                    found = haystack.find(needle)
                if found >= 0 and marker:
                    position = found + len(needle) - len(marker)
                    break
            entry = {"ref_id": span.get("ref_id"), "text": span["text"], "start": None, "end": None}
            if position >= 0:
                entry["start"] = offsets[position]
                entry["end"] = offsets[position + len(marker) - 1] + 1
                cursor = position
            located.append(entry)
    return located


def map_references(references: list[Reference], bib: dict) -> dict[str, str]:
    """Our reference label -> key bib id, by first author + year, then title similarity."""
    mapping: dict[str, str] = {}
    for reference in references:
        best_id, best_score = None, 0.0
        for bib_id, entry in bib.items():
            score = 0.0
            surnames = [author["last"] for author in entry.get("authors", []) if author["last"]]
            if reference.authors and surnames and entry.get("year") == reference.year:
                if name_key(surnames[0]) in surname_keys(reference.authors[0]):
                    score = 100.0
            if reference.title and entry.get("title"):
                title_score = fuzz.token_set_ratio(
                    _normalise_title(reference.title), _normalise_title(entry["title"])
                )
                if title_score >= TITLE_MATCH:
                    score = max(score, title_score)
            if score > best_score:
                best_id, best_score = bib_id, score
        if best_id is not None:
            mapping[reference.label] = best_id
    return mapping


def _title_ratio(left: str | None, right: str | None) -> float:
    if not left or not right:
        return 0.0
    return fuzz.ratio(_normalise_title(left), _normalise_title(right))


def _normalise_title(title: str) -> str:
    return " ".join(fold_diacritics(title).lower().split())


def score_against_key(analysis: ThesisAnalysis, text: str, key: dict) -> dict[str, float | int]:
    bib = key["pdf_parse"]["bib_entries"]
    label_to_bib = map_references(analysis.references, bib)
    spans = locate_key_spans(text, key)
    markers: dict[tuple[int, int], list[str | None]] = {}
    for citation in analysis.citations:
        markers.setdefault((citation.marker_start, citation.marker_end), []).append(
            citation.reference_label
        )

    def overlapping(start: int, end: int) -> list[tuple[int, int]]:
        return [span for span in markers if span[0] < end + 2 and start < span[1] + 2]

    linked_spans = [span for span in spans if span["ref_id"]]
    located = [span for span in linked_spans if span["start"] is not None]
    recalled = 0
    correct_links = 0
    for span in located:
        hits = overlapping(span["start"], span["end"])
        if not hits:
            continue
        recalled += 1
        labels = [label for hit in hits for label in markers[hit]]
        if any(label is not None and label_to_bib.get(label) == span["ref_id"] for label in labels):
            correct_links += 1
    key_hits = 0
    confirmed = 0
    for marker_span, labels in markers.items():
        if any(
            span["start"] is not None
            and span["start"] < marker_span[1] + 2
            and marker_span[0] < span["end"] + 2
            for span in spans
        ):
            key_hits += 1
        elif labels and all(label is not None and label in label_to_bib for label in labels):
            confirmed += 1
    total = len(markers)
    mapped = set(label_to_bib.values())
    titled = [
        reference
        for reference in analysis.references
        if reference.label in label_to_bib
        and _title_ratio(reference.title, bib[label_to_bib[reference.label]].get("title")) >= 90
    ]
    return {
        # Key bibliography entries that one of our entries maps to, and of our mapped entries
        # those whose parsed title matches the key's (ratio >= 90).
        "reference_recall": round(len(mapped) / len(bib), 3) if bib else 0.0,
        "reference_title_accuracy": round(len(titled) / len(label_to_bib), 3)
        if label_to_bib
        else 0.0,
        "key_markers": len(linked_spans),
        "key_markers_located": len(located),
        "marker_precision": round((key_hits + confirmed) / total, 3) if total else 0.0,
        "marker_precision_strict": round(key_hits / total, 3) if total else 0.0,
        "marker_recall": round(recalled / len(linked_spans), 3) if linked_spans else 0.0,
        "link_accuracy": round(correct_links / recalled, 3) if recalled else 0.0,
    }


def run(folder: Path) -> dict[str, dict]:
    results: dict[str, dict] = {}
    extracted: dict[str, Extracted] = {}
    analyses: dict[str, ThesisAnalysis] = {}
    for pdf_path in sorted(folder.glob("*.pdf")):
        started = time.perf_counter()
        document = extract(pdf_path.read_bytes(), pdf_path.name)
        analysis = analyze_thesis(document.text, document.page_starts)
        extracted[pdf_path.stem], analyses[pdf_path.stem] = document, analysis
        row: dict[str, object] = {
            "references": len(analysis.references),
            "markers": analysis.markers_found,
            "citations": len(analysis.citations),
            "unlinked_citations": sum(1 for c in analysis.citations if c.reference_label is None),
            "style": analysis.style,
            "text_source": document.source,
        }
        key_path = pdf_path.with_name(pdf_path.stem + ".s2orc.json")
        if key_path.exists():
            row.update(score_against_key(analysis, document.text, json.loads(key_path.read_text())))
        row["seconds"] = round(time.perf_counter() - started, 2)
        results[pdf_path.stem] = row
    if len(extracted) >= 2:
        results[COMBINED] = _as_chapters(extracted, analyses)
    # Every paper's references linked against the other papers of the folder as uploads: shows
    # real links (the S2ORC paper cites N18-3011) and that nothing else links by accident.
    for name, analysis in analyses.items():
        sources = {other.meta.document_id: other_name for other_name, other in extracted.items()}
        links = link_references(
            analysis.references,
            [extracted[other].meta for other in extracted if other != name],
        )
        results[name]["links_to_folder"] = {
            label: f"{sources[link.document_id]} ({link.method}, {link.score})"
            for label, link in links.items()
            if link.document_id is not None
        }
    return results


def _as_chapters(extracted: dict[str, Extracted], analyses: dict[str, ThesisAnalysis]) -> dict:
    """All papers joined as the chapters of one article-based thesis, each with its own list:
    every chapter's entries and markers must be found as when the paper stands alone."""
    text = "\n\n".join(document.text for document in extracted.values())
    analysis = analyze_thesis(text, [0])
    per_list: dict[str, int] = {}
    for reference in analysis.references:
        list_number = reference.label.split("/", 1)[0]
        per_list[list_number] = per_list.get(list_number, 0) + 1
    return {
        "references": len(analysis.references),
        "markers": analysis.markers_found,
        "citations": len(analysis.citations),
        "unlinked_citations": sum(1 for c in analysis.citations if c.reference_label is None),
        "style": analysis.style,
        "reference_lists": len(per_list),
        "entries_per_list": list(per_list.values()),
        "entries_when_alone": [len(a.references) for a in analyses.values()],
    }


def print_table(results: dict[str, dict]) -> None:
    columns = ["references", "markers", "citations", "unlinked_citations", "style"]
    scored = [
        "marker_precision",
        "marker_precision_strict",
        "marker_recall",
        "link_accuracy",
        "reference_recall",
    ]
    header = ["paper", *columns, *scored]
    rows = [
        [name, *(str(row.get(column, "")) for column in columns + scored)]
        for name, row in results.items()
    ]
    widths = [max(len(header[i]), *(len(r[i]) for r in rows)) for i in range(len(header))]
    print(" | ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)))
    print("-+-".join("-" * w for w in widths))
    for row in rows:
        print(" | ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)))


STYLE_COLUMNS = (
    "references_found",
    "references_expected",
    "marker_precision",
    "marker_recall",
    "link_accuracy",
    "wrong_links",
    "verdict_agreement",
    "definite_in_both",
    "label_agreement",
)


def print_styles(styles: dict[str, dict]) -> None:
    header = ["style/format", *STYLE_COLUMNS]
    rows = [
        [name, *(str(row.get(column)) for column in STYLE_COLUMNS)] for name, row in styles.items()
    ]
    widths = [max(len(header[i]), *(len(r[i]) for r in rows)) for i in range(len(header))]
    print(" | ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)))
    print("-+-".join("-" * w for w in widths))
    for row in rows:
        print(" | ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)))


# The draw of random lists the committed results come from (looked at only to report; the
# first draw, "report-2026-12-02", found one more list defect, fixed before this one ran).
REPORT_LISTS_SEED = "report-2026-12-02b"


def _arguments(argv: list[str]):
    import argparse

    parser = argparse.ArgumentParser(prog="python -m bench.extraction", description=__doc__)
    parser.add_argument("folder", nargs="?", type=Path, default=DEFAULT_FOLDER)
    parser.add_argument("--lists-seed", default=REPORT_LISTS_SEED)
    parser.add_argument("--lists", type=int, default=_extraction_styles.RANDOM_LISTS)
    return parser.parse_args(argv[1:])


def print_random_lists(lists: dict) -> None:
    print(f"random author-year lists: seed {lists['base_seed']!r}, {lists['theses']} theses")
    columns = ("references_found", "references_expected", "link_accuracy", "wrong_links",
               "unlinked_citations", "citations_expected")  # fmt: skip
    header = ["format", *columns, "short_theses"]
    rows = [
        [fmt, *(str(row[c]) for c in columns), str(len(row["short_theses"]))]
        for fmt, row in lists["formats"].items()
    ]
    widths = [max(len(header[i]), *(len(r[i]) for r in rows)) for i in range(len(header))]
    print(" | ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)))
    print("-+-".join("-" * w for w in widths))
    for row in rows:
        print(" | ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)))


def main(argv: list[str]) -> int:
    arguments = _arguments(argv)
    folder = arguments.folder
    if not folder.is_dir():
        print(f"no such folder: {folder} (the shared data is not available here)")
        return 1
    papers = run(folder)
    styles: dict[str, dict] = {}
    lists: dict = {}
    if _extraction_styles.CHECKCOVID.is_dir():
        styles = _extraction_styles.run_matrix()
        lists = _extraction_styles.run_random_lists(arguments.lists_seed, arguments.lists)
    else:
        print(f"no Check-COVID data in {_extraction_styles.CHECKCOVID}: style matrix skipped")
    # Sections written by other benchmarks (library_inputs: bench/library_inputs.py) are kept.
    previous = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    results = {
        "papers": papers,
        "styles": styles,
        "random_lists": lists,
        "library_inputs": previous.get("library_inputs", {}),
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2, sort_keys=True) + "\n")
    print_table(papers)
    print()
    print_styles(styles)
    if lists:
        print()
        print_random_lists(lists)
    print(f"\nwritten {RESULTS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
