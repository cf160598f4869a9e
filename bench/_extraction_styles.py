"""The style matrix of bench-extraction: one thesis in every citation style, as PDF and DOCX.

The thesis is built from Check-COVID train claims (`citeproof.devkit.pdfgen.citestyles`), rendered
under a layout drawn per style and format (`citeproof.devkit.pdfgen.thesis_layout`), parsed by the
parser's own path (`parse_bytes(kind="thesis")`) and scored against the key the renderer wrote:

- references_found: expected entries matched one to one by one of ours (same text once
  normalised, or nearly: a ratio of at least ENTRY_MATCH) - entry by entry, not by count.
- marker_precision / marker_recall: our distinct markers against the printed ones, by the claim
  sentence they sit in and their normalised text.
- link_accuracy: of the key's citations (claim, work), those where one of our citations in that
  claim links to the entry printed for that work. wrong_links: our citations linked to an entry
  that is not one of the claim's works (must be 0).
- verdict_agreement: the offline judge (the project's default backend) decides each correctly
  linked citation from its claim as checked and the cited abstract's best passages for it
  (`citeproof.devkit.checkcovid.retrieved_passages`, dense similarity: the retrieval stage
  simulated); a rendering agrees with the numeric PDF one when the label is the same, over citations
  with a definite label in both (definite_in_both: their share of all citations). Same claim,
  same source, so any disagreement comes from extraction. label_agreement compares every label,
  abstentions included, over citations judged in both (judged_in_both).

Each style and format is rendered under LAYOUTS_PER_RENDERING random layouts; counts are summed
over them, so one lucky layout cannot hide a failing one.

Where LibreOffice is installed (`make libreoffice-deps`; `soffice` on the PATH), each DOCX
rendering is also converted to PDF by it (`soffice --headless --convert-to pdf`) and parsed as a
PDF: the rows "<style>/docx-libreoffice". Without it those rows are skipped with a printed note.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import msgspec
from rapidfuzz import fuzz

from bench import common
from citeproof.contracts.thesis import ThesisAnalysis
from citeproof.devkit.pdfgen.citestyles import (
    STYLE_AUTHOR_YEAR_BARE,
    STYLE_AUTHOR_YEAR_RANDOM,
    STYLES,
    StyledThesis,
    ThesisContent,
    content_from_checkcovid,
    styled,
)
from citeproof.devkit.pdfgen.reference_formats import random_entry_format
from citeproof.devkit.pdfgen.thesis_layout import (
    Layout,
    random_layout,
    render_thesis_docx,
    render_thesis_pdf,
)

CHECKCOVID = common.CHECKCOVID_DIR
TRAIN_CLAIMS = "covidCheck_train_composed+extracted.json"
CORPUS = "corpus.json"
FORMATS = ("pdf", "docx")
# The DOCX rendering converted to PDF by LibreOffice, parsed as that PDF.
LIBREOFFICE = "docx-libreoffice"
# Seconds one conversion may take (a first start sets up the profile).
SOFFICE_TIMEOUT = 300
# Random layouts rendered per style and format (the judge sees the first one's claims).
LAYOUTS_PER_RENDERING = 3
# fuzz.ratio (0-100) between normalised entry texts that still counts as the same entry.
ENTRY_MATCH = 92
# Normalised characters of a sentence used to find it in the parsed text.
SENTENCE_PROBE = 60


def load_content(folder: Path = CHECKCOVID) -> ThesisContent:
    claims = [json.loads(line) for line in (folder / TRAIN_CLAIMS).read_text().splitlines()]
    corpus = {
        row["cord_id"]: row
        for row in (json.loads(line) for line in (folder / CORPUS).read_text().splitlines())
    }
    return content_from_checkcovid(claims, corpus)


# --- randomly drawn author-year lists ---------------------------------------------------------
# Theses per run of the random lists (each in every format): works, format, titles and layout
# drawn from "<seed>/<n>".
RANDOM_LISTS = 24
# Share of titles that get a date, a date range, a count or a dash.
VARIED_TITLES_SHARE = 0.45
# Works per random thesis: drawn between these.
RANDOM_WORKS = (36, 64)


def random_list_thesis(seed: str, folder: Path = CHECKCOVID) -> tuple[StyledThesis, Layout]:
    """One thesis whose author-year list is printed in a randomly drawn format and layout: no
    gap between entries half the time, hanging, flush or first-line indents, titles with dates,
    ranges and dashes, titles broken onto their own line."""
    import random

    claims = [json.loads(line) for line in (folder / TRAIN_CLAIMS).read_text().splitlines()]
    rng = random.Random(f"random-list/{seed}")
    content = content_from_checkcovid(
        claims,
        load_corpus(folder),
        works=rng.randint(*RANDOM_WORKS),
        seed=seed,
        varied_titles_share=VARIED_TITLES_SHARE,
    )
    thesis = styled(content, STYLE_AUTHOR_YEAR_RANDOM, random_entry_format(seed))
    layout = random_layout(
        f"random-list/{seed}",
        entry_gap=rng.choice((False, False, None)),
        hanging=rng.choice((True, False, False, None)),
        first_line_indent=True,
    )
    return thesis, layout


def run_random_lists(
    base_seed: str, count: int = RANDOM_LISTS, list_formats: tuple[str, ...] | None = None
) -> dict[str, object]:
    """``count`` random-list theses from ``base_seed`` in every format, scored like the matrix;
    per format the summed record and the theses that fell short (seed, link accuracy, wrong
    links, entries found)."""
    from citeproof.parser.extract import parse_bytes
    from citeproof.parser.settings import ParserSettings

    settings = ParserSettings()
    chosen = list_formats or formats()
    per_format: dict[str, dict[str, int]] = {fmt: {} for fmt in chosen}
    short: dict[str, list[dict[str, object]]] = {fmt: [] for fmt in chosen}
    started = time.perf_counter()
    for number in range(count):
        seed = f"{base_seed}/{number}"
        thesis, layout = random_list_thesis(seed)
        for fmt in chosen:
            # One layout per thesis: the PDF, the DOCX and LibreOffice's PDF of that DOCX.
            data = render(thesis, fmt, layout)
            name = "thesis.docx" if fmt == "docx" else "thesis.pdf"
            parsed = parse_bytes(data, name, None, settings, kind="thesis")
            assert parsed.analysis is not None
            counts = score(thesis, parsed.analysis, parsed.text).counts
            for key, value in counts.items():
                per_format[fmt][key] = per_format[fmt].get(key, 0) + value
            record = _record(counts)
            if record["link_accuracy"] != 1.0 or record["wrong_links"]:
                short[fmt].append({"seed": seed, **record})
    return {
        "base_seed": base_seed,
        "theses": count,
        "seconds": round(time.perf_counter() - started, 2),
        "formats": {
            fmt: {**_record(per_format[fmt]), "short_theses": short[fmt]} for fmt in chosen
        },
    }


def layout_for(style: str, fmt: str, number: int = 0) -> Layout:
    seed = f"{style}/{fmt}/{number}"
    # The case reported from real theses: one entry per line, a gap after each, no indent.
    if style == STYLE_AUTHOR_YEAR_BARE:
        return random_layout(seed, entry_gap=True, hanging=False)
    return random_layout(seed)


def render(thesis: StyledThesis, fmt: str, layout: Layout) -> bytes:
    if fmt == LIBREOFFICE:
        return libreoffice_pdf(render_thesis_docx(thesis, layout))
    return render_thesis_pdf(thesis, layout) if fmt == "pdf" else render_thesis_docx(thesis, layout)


def soffice() -> str | None:
    return shutil.which("soffice")


def libreoffice_pdf(docx: bytes) -> bytes:
    """``docx`` converted to PDF by headless LibreOffice (a throwaway profile, so that a user's
    own LibreOffice settings do not change the layout)."""
    program = soffice()
    if program is None:
        raise RuntimeError("soffice not found: run `make libreoffice-deps`")
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "thesis.docx"
        source.write_bytes(docx)
        subprocess.run(
            [
                program,
                f"-env:UserInstallation=file://{folder}/profile",
                "--headless",
                "--convert-to",
                "pdf",
                "--outdir",
                folder,
                str(source),
            ],
            check=True,
            capture_output=True,
            timeout=SOFFICE_TIMEOUT,
        )
        return (Path(folder) / "thesis.pdf").read_bytes()


def formats() -> tuple[str, ...]:
    """The formats of the matrix: LibreOffice's PDF of the DOCX only where it is installed."""
    if soffice() is None:
        print(
            "soffice not found: the style matrix's docx-libreoffice rows are skipped "
            "(`make libreoffice-deps` installs LibreOffice)"
        )
        return FORMATS
    return (*FORMATS, LIBREOFFICE)


def _normalised_with_map(text: str) -> tuple[str, list[int]]:
    from citeproof.text.normalize import fold_diacritics

    chars: list[str] = []
    offsets: list[int] = []
    for index, char in enumerate(text):
        for piece in fold_diacritics(char).lower():
            if piece.isascii() and piece.isalnum():
                chars.append(piece)
                offsets.append(index)
    return "".join(chars), offsets


def _normalise(text: str) -> str:
    return _normalised_with_map(text)[0]


def _claim_starts(text: str, thesis: StyledThesis) -> list[int | None]:
    """Where each claim's printed sentence starts in the parsed text (None: not found)."""
    haystack, offsets = _normalised_with_map(text)
    starts: list[int | None] = []
    cursor = 0
    for sentence in thesis.sentences:
        probe = _normalise(sentence)
        found = haystack.find(probe, cursor)
        if found < 0:
            # Extraction changed the sentence (a float, a page break): its first words will do.
            found = haystack.find(probe[:SENTENCE_PROBE], cursor)
        if found < 0:
            starts.append(None)
            continue
        cursor = found + 1
        starts.append(offsets[found])
    return starts


def _claim_of(position: int, starts: list[int | None]) -> int | None:
    """The claim whose sentence holds ``position``: the last one starting at or before it."""
    best: int | None = None
    for index, start in enumerate(starts):
        if start is not None and start <= position:
            if best is None or start >= (starts[best] or 0):
                best = index
    return best


def match_entries(thesis: StyledThesis, analysis: ThesisAnalysis) -> dict[str, str]:
    """Our reference label -> work key, entries matched one to one by their text."""
    expected = [
        (_normalise(text), key)
        for (_, text), key in zip(thesis.entries, thesis.entry_work_keys, strict=True)
    ]
    taken: set[str] = set()
    mapping: dict[str, str] = {}
    for reference in analysis.references:
        ours = _normalise(reference.raw)
        best, best_score = None, 0.0
        for text, key in expected:
            if key in taken:
                continue
            score = 100.0 if ours == text else fuzz.ratio(ours, text)
            if score > best_score:
                best, best_score = key, score
        if best is not None and best_score >= ENTRY_MATCH:
            mapping[reference.label] = best
            taken.add(best)
    return mapping


class Scored(msgspec.Struct, frozen=True):
    """One rendering's counts (summed over layouts by the caller) and what the judge needs."""

    counts: dict[str, int]
    # (claim index, work key) -> the claim as checked, for correctly linked citations.
    checked: dict[tuple[int, str], str]


def score(thesis: StyledThesis, analysis: ThesisAnalysis, text: str) -> Scored:
    label_to_work = match_entries(thesis, analysis)
    starts = _claim_starts(text, thesis)
    expected_markers = {(c.claim, _normalise(c.marker)) for c in thesis.citations}
    works_of_claim: dict[int, set[str]] = {}
    for citation in thesis.citations:
        works_of_claim.setdefault(citation.claim, set()).add(citation.work_key)
    our_markers: dict[tuple[int, int], tuple[int | None, str]] = {}
    checked: dict[tuple[int, str], str] = {}
    wrong = 0
    unlinked = 0
    for citation in analysis.citations:
        claim = _claim_of(citation.marker_start, starts)
        our_markers[(citation.marker_start, citation.marker_end)] = (
            claim,
            _normalise(citation.marker_text),
        )
        if citation.reference_label is None:
            unlinked += 1
            continue
        work = label_to_work.get(citation.reference_label)
        if claim is None or work is None or work not in works_of_claim.get(claim, set()):
            wrong += 1
            continue
        checked[(claim, work)] = citation.claim_checked
    matched_ours = sum(
        1
        for claim, marker in our_markers.values()
        if any(
            claim == key_claim and (marker == key_marker or key_marker in marker)
            for key_claim, key_marker in expected_markers
        )
    )
    matched_expected = sum(
        1
        for key_claim, key_marker in expected_markers
        if any(
            claim == key_claim and (marker == key_marker or key_marker in marker)
            for claim, marker in our_markers.values()
        )
    )
    counts = {
        "references_found": len(label_to_work),
        "references_expected": len(thesis.entries),
        "references_parsed": len(analysis.references),
        "markers_ours": len(our_markers),
        "markers_ours_matched": matched_ours,
        "markers_expected": len(expected_markers),
        "markers_expected_matched": matched_expected,
        "citations_expected": len(thesis.citations),
        "citations_linked_right": len(checked),
        "wrong_links": wrong,
        "unlinked_citations": unlinked,
    }
    return Scored(counts=counts, checked=checked)


def _ratio(part: int, whole: int) -> float:
    return round(part / whole, 3) if whole else 0.0


def _record(counts: dict[str, int]) -> dict[str, object]:
    """The issue's record fields (plus the counts they come from)."""
    return {
        "references_found": counts["references_found"],
        "references_expected": counts["references_expected"],
        "marker_precision": _ratio(counts["markers_ours_matched"], counts["markers_ours"]),
        "marker_recall": _ratio(counts["markers_expected_matched"], counts["markers_expected"]),
        "link_accuracy": _ratio(counts["citations_linked_right"], counts["citations_expected"]),
        "wrong_links": counts["wrong_links"],
        "unlinked_citations": counts["unlinked_citations"],
        "citations_expected": counts["citations_expected"],
    }


class _Judge:
    """The offline judge on a claim and its cited abstract, once per distinct (claim, work)."""

    def __init__(self, corpus: dict[str, dict]) -> None:
        from citeproof.devkit.minilm import CachedEmbedder, embed_texts
        from citeproof.judge.backend import build_backend
        from citeproof.judge.settings import load_judge_settings

        self.backend = build_backend(load_judge_settings())
        self.corpus = corpus
        self.embed = CachedEmbedder(embed_texts)
        self.cache: dict[tuple[str, str], str] = {}

    def label(self, claim: str, work_key: str) -> str:
        from citeproof.contracts.judging import JudgeRequest
        from citeproof.devkit.checkcovid import Abstract, retrieved_passages

        key = (claim, work_key)
        if key not in self.cache:
            row = self.corpus[work_key]
            abstract = Abstract(cord_id=work_key, title=row["title"], abstract=row["abstract"])
            request = JudgeRequest(
                claim=claim,
                context=None,
                # The judge engineer's simulation of retrieval over the cited abstract.
                passages=retrieved_passages(claim, abstract, self.embed),
                citation_key=f"bench:{work_key}",
            )
            self.cache[key] = self.backend.judge_sync(request).label
        return self.cache[key]


def _agreement(
    labels: dict[tuple[int, str], str], baseline: dict[tuple[int, str], str], total: int
) -> dict[str, object]:
    """Same label as the baseline rendering, over citations definite in both; and how many of
    all expected citations were definite in both."""
    from citeproof.pipeline import DEFINITE_LABELS

    both = [
        key
        for key in labels
        if labels[key] in DEFINITE_LABELS and baseline.get(key) in DEFINITE_LABELS
    ]
    same = sum(1 for key in both if labels[key] == baseline[key])
    # Every label, abstentions (needs_review) included: what extraction alone changes, whatever
    # share of verdicts the judge of the day leaves undecided.
    judged = [key for key in labels if key in baseline]
    same_label = sum(1 for key in judged if labels[key] == baseline[key])
    return {
        "verdict_agreement": _ratio(same, len(both)) if both else None,
        "definite_in_both": _ratio(len(both), total),
        "label_agreement": _ratio(same_label, len(judged)) if judged else None,
        "judged_in_both": _ratio(len(judged), total),
    }


def load_corpus(folder: Path = CHECKCOVID) -> dict[str, dict]:
    return {
        row["cord_id"]: row
        for row in (json.loads(line) for line in (folder / CORPUS).read_text().splitlines())
    }


def run_matrix(layouts: int = LAYOUTS_PER_RENDERING, judge: bool = True) -> dict[str, dict]:
    """Every style x format x ``layouts`` random layouts, scored; verdict agreement with the
    numeric PDF rendering when ``judge``."""
    from citeproof.parser.extract import parse_bytes
    from citeproof.parser.settings import ParserSettings

    content = load_content()
    settings = ParserSettings()
    judged = _Judge(load_corpus()) if judge else None
    results: dict[str, dict] = {}
    labels_of: dict[str, dict[tuple[int, str], str]] = {}
    matrix_formats = formats()
    for style in STYLES:
        thesis = styled(content, style)
        for fmt in matrix_formats:
            started = time.perf_counter()
            totals: dict[str, int] = {}
            labels: dict[tuple[int, str], str] = {}
            used: list[dict] = []
            for number in range(layouts):
                # LibreOffice converts the DOCX renderings: the same layouts as theirs.
                layout = layout_for(style, "docx" if fmt == LIBREOFFICE else fmt, number)
                used.append(msgspec.to_builtins(layout))
                data = render(thesis, fmt, layout)
                name = "thesis.docx" if fmt == "docx" else "thesis.pdf"
                parsed = parse_bytes(data, name, None, settings, kind="thesis")
                assert parsed.analysis is not None
                scored = score(thesis, parsed.analysis, parsed.text)
                for key, value in scored.counts.items():
                    totals[key] = totals.get(key, 0) + value
                if judged is not None and number == 0:
                    labels = {
                        key: judged.label(claim, key[1]) for key, claim in scored.checked.items()
                    }
            name = f"{style}/{fmt}"
            labels_of[name] = labels
            row = _record(totals)
            row["layouts"] = used
            row["seconds"] = round(time.perf_counter() - started, 2)
            results[name] = row
    baseline = labels_of.get(f"{STYLES[0]}/pdf", {})
    total = len(styled(content, STYLES[0]).citations)
    for name, row in results.items():
        if judged is None:
            row["verdict_agreement"] = None
            continue
        row.update(_agreement(labels_of[name], baseline, total))
    return results
