"""Real text for the content rules (issue 25, "real_text" of bench/results/findings.json).

1. Quotations from the real papers of ../shared/data/papers/ must verify. Each quotation is
   copied the way a writer copies from a PDF viewer: from three lines in a row of one column of
   a page's raw text layer (pdfium's text and character boxes, independent of our parser's line
   joining, hyphen repair and header removal), a span of 8-30 words of prose (not a list of
   names, a title, a formula or a table row), a word broken at a line end made whole. Seeded,
   some get a writer's convention: an ellipsis for left-out words, a changed first letter,
   "[sic]"; quotation marks inside become single ones. Each is cited with the page number
   printed on its page (the PDF's when none is printed), and checked against the paper as the
   parser stores it (`parse_bytes`, the real parser): verified means quote-verified and nothing
   else. For N18-3011, quotations are also taken from s2orc-doc2json's parse of the same PDF
   (another extractor altogether; no page cited).
2. False alarms on Citation-Integrity SUPPORT citations (expert-judged accurate): the claim with
   its markers stripped, against its cited document's evidence sentences rendered into a source
   PDF and parsed by the real parser. A citation counts as flagged when the quotation or number
   rules report anything but quote-verified (quote-not-found, quote-wrong-page,
   number-conflict, and number-not-in-source when `--number-not-in-source` switches it on).
   The bar is at most 1% of dev's SUPPORT citations. Tuned on train, reported on dev.

    python -m bench.findings.real_text [--seed N] [--split dev] [--number-not-in-source]
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import re
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pypdfium2 as pdfium

from bench import common
from citeproof.contracts.chunks import EVIDENCE_ROLES
from citeproof.contracts.findings import Finding
from citeproof.devkit.citint import SUPPORT, load_citations, strip_markers
from citeproof.devkit.pdfgen.render import render_pdf
from citeproof.devkit.pdfgen.spec import DocumentSpec, Section
from citeproof.parser.extract import parse_bytes
from citeproof.parser.parsed import ParsedDocument
from citeproof.parser.settings import ParserSettings
from citeproof.pipeline import (
    NUMBER_CONFLICT,
    NUMBER_NOT_IN_SOURCE,
    QUOTE_NOT_FOUND,
    QUOTE_VERIFIED,
    QUOTE_WRONG_PAGE,
)
from citeproof.retriever.content_rules import (
    CitationInput,
    ContentRulesConfig,
    SourceText,
    check_citation,
)

RESULTS_NAME = "findings"
SECTION = "real_text"
DEFAULT_SEED = 2
QUOTES_PER_PAPER = 15
QUOTES_FROM_S2ORC = 10
MIN_QUOTE_WORDS, MAX_QUOTE_WORDS = 8, 30
# Lines of a page's raw text skipped at its top and bottom (running headers, page numbers,
# footnotes); a quotation comes from this many lines in a row, each of prose length, of one
# column (starting within a paragraph indent of each other), each right below the last.
EDGE_LINES = 3
LINES_PER_QUOTE = 3
MIN_PROSE_LINE_CHARS = 45
MAX_LEFT_SHIFT_PT = 15.0
MAX_PITCH_HEIGHTS = 2.0
MAX_ATTEMPTS = 5000
# Quotation marks inside a quotation become single ones, as writers nest them.
_NESTED_QUOTES = str.maketrans({"“": "‘", "”": "’", '"': "'"})
# Share of a quotation's words that must be plain words: not a table row or a formula.
MIN_WORD_SHARE = 0.8
MIN_LOWER_SHARE = 0.6
# Shares of the quotations given each convention.
ELLIPSIS_SHARE = 0.25
FIRST_LETTER_SHARE = 0.25
SIC_SHARE = 0.1
FLAGGED_RULES = (QUOTE_NOT_FOUND.code, QUOTE_WRONG_PAGE.code, NUMBER_CONFLICT.code,
                 NUMBER_NOT_IN_SOURCE.code)  # fmt: skip
# A plain word: a letter, then lower-case letters (a formula's "h", "k", "D" are no words).
_WORD = re.compile(r"^\(?[A-Za-z][a-z'’\-]+[.,;:)]?$")


@dataclass(frozen=True)
class Quote:
    paper: str
    text: str
    page: int | None  # PDF page it was copied from
    label: str | None  # the pinpoint cited: the printed number of that page


def source_of(parsed: ParsedDocument, document_id: str) -> SourceText:
    """What the retrieve stage builds from the stored document: its text, pages and printed
    page numbers, with its body chunks as the evidence."""
    body = [(c.char_start, c.char_end) for c in parsed.chunks if c.role in EVIDENCE_ROLES]
    return SourceText.from_stored(
        text=parsed.text,
        page_starts=parsed.page_starts,
        page_labels=parsed.page_labels,
        page_label_offset=parsed.page_label_offset,
        evidence_spans=body,
        document_id=document_id,
    )


@dataclass(frozen=True)
class _Line:
    text: str
    left: float
    bottom: float
    height: float
    hyphen: bool  # ends in a hyphen pdfium marked as a line-end break


def _raw_pages(data: bytes) -> list[list[_Line]]:
    """Each page's lines as the PDF's text layer holds them, with where each starts."""
    document = pdfium.PdfDocument(data)
    try:
        pages = []
        for index in range(len(document)):
            textpage = document[index].get_textpage()
            count = textpage.count_chars()
            raw = textpage.get_text_range(0, count)
            lines: list[_Line] = []
            position = 0
            for match in re.finditer(r"\r\n|\n|\r|$", raw):
                piece = raw[position : match.start()]
                visible = next((k for k, ch in enumerate(piece) if not ch.isspace()), None)
                if visible is not None and position + visible < count:
                    left, bottom, _, top = textpage.get_charbox(position + visible)
                    hyphen = piece.rstrip().endswith(("\ufffe", "\u0002"))
                    text = re.sub("[\ufffe\u0002]", "", piece).strip()
                    lines.append(_Line(text, left, bottom, top - bottom, hyphen))
                position = match.end()
                if match.start() == len(raw):
                    break
            pages.append(lines)
        return pages
    finally:
        document.close()


def _contiguous(lines: list[_Line]) -> bool:
    """Lines a reader selects in one sweep: prose of one column, each right below the last."""
    for above, below in itertools.pairwise(lines):
        pitch = above.bottom - below.bottom
        if abs(above.left - below.left) > MAX_LEFT_SHIFT_PT or not (
            0 < pitch <= MAX_PITCH_HEIGHTS * max(above.height, 1.0)
        ):
            return False
    return all(len(line.text) >= MIN_PROSE_LINE_CHARS for line in lines)


def _joined(lines: list[_Line]) -> str:
    """The lines as a writer pastes them: a word broken at a line end made whole again (the
    hyphen pdfium marked as a break goes, a typed one stays: "COVID-" + "19")."""
    text = ""
    for previous, line in zip([None, *lines], lines, strict=False):
        if previous is not None and (previous.hyphen or text.endswith("-")):
            text += line.text
        else:
            text = f"{text} {line.text}".strip()
    return text


def _is_prose(words: list[str]) -> bool:
    """Running text: plain words, most of them lower-case (not a list of names, a title, a
    formula or a table row), no footnote mark set as a bare digit ("library 3 to")."""
    plain = sum(1 for word in words if _WORD.match(word))
    lower = sum(1 for word in words if word[:1].islower())
    bare_digits = any(len(word) == 1 and word.isdigit() for word in words)
    return (
        plain >= MIN_WORD_SHARE * len(words)
        and lower >= MIN_LOWER_SHARE * len(words)
        and not bare_digits
    )


def _with_convention(words: list[str], rng: random.Random) -> str:
    roll = rng.random()
    if roll < ELLIPSIS_SHARE and len(words) >= 14:
        cut = rng.randrange(4, len(words) - 8)
        leave = rng.randrange(2, 5)
        return " ".join([*words[:cut], "[…]", *words[cut + leave :]])
    if roll < ELLIPSIS_SHARE + FIRST_LETTER_SHARE and words[0][:1].isalpha():
        first = words[0]
        changed = first[0].lower() if first[0].isupper() else first[0].upper()
        return " ".join([changed + first[1:], *words[1:]])
    if roll < ELLIPSIS_SHARE + FIRST_LETTER_SHARE + SIC_SHARE:
        at = rng.randrange(2, len(words) - 1)
        return " ".join([*words[:at], "[sic]", *words[at:]])
    return " ".join(words)


def pdf_quotes(name: str, data: bytes, labels: list[str | None], rng: random.Random) -> list[Quote]:
    pages = _raw_pages(data)
    quotes: list[Quote] = []
    attempts = 0
    while len(quotes) < QUOTES_PER_PAPER and attempts < MAX_ATTEMPTS:
        attempts += 1
        page = rng.randrange(len(pages))
        lines = pages[page][EDGE_LINES:-EDGE_LINES]
        if len(lines) < LINES_PER_QUOTE:
            continue
        start = rng.randrange(len(lines) - LINES_PER_QUOTE + 1)
        chosen_lines = lines[start : start + LINES_PER_QUOTE]
        if not _contiguous(chosen_lines):
            continue
        words = _joined(chosen_lines).split()
        length = rng.randint(MIN_QUOTE_WORDS, MAX_QUOTE_WORDS)
        offset = rng.randrange(max(1, len(words) - length))
        chosen = words[offset : offset + length]
        if len(chosen) < MIN_QUOTE_WORDS or not _is_prose(chosen):
            continue
        chosen[-1] = chosen[-1].rstrip(".,;:")
        label = labels[page] if page < len(labels) and labels[page] else str(page + 1)
        text = _with_convention(chosen, rng).translate(_NESTED_QUOTES)
        quotes.append(Quote(name, text, page + 1, label))
    return quotes


def s2orc_quotes(path: Path, rng: random.Random) -> list[Quote]:
    """Quotations from another extractor's text of the same paper (no page numbers)."""
    parse = json.loads(path.read_text())["pdf_parse"]
    paragraphs = [p["text"] for p in parse["body_text"] if len(p["text"].split()) >= 40]
    quotes: list[Quote] = []
    while paragraphs and len(quotes) < QUOTES_FROM_S2ORC:
        words = rng.choice(paragraphs).split()
        length = rng.randint(MIN_QUOTE_WORDS, MAX_QUOTE_WORDS)
        offset = rng.randrange(len(words) - length)
        chosen = words[offset : offset + length]
        if not _is_prose(chosen):
            continue
        chosen[-1] = chosen[-1].rstrip(".,;:")
        text = _with_convention(chosen, rng).translate(_NESTED_QUOTES)
        quotes.append(Quote(path.name, text, None, None))
    return quotes


def _cited(quote: Quote) -> CitationInput:
    marker = f"(Author et al., 2020{', p. ' + quote.label if quote.label else ''})"
    claim = f"As the authors put it, “{quote.text}” {marker}."
    start = claim.index(marker)
    return CitationInput(
        claim=claim,
        marker=(start, start + len(marker)),
        markers=[(start, start + len(marker))],
        pinpoint_pages=[quote.label] if quote.label else [],
    )


def measure_quotes(papers: Path, seed: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    settings = ParserSettings()
    rng = random.Random(seed)
    verified = 0
    total = 0
    misses: list[dict[str, Any]] = []
    per_paper: dict[str, dict[str, int]] = {}
    for path in sorted(papers.glob("*.pdf")):
        data = path.read_bytes()
        parsed = parse_bytes(data, path.name, None, settings)
        source = source_of(parsed, path.name)
        quotes = pdf_quotes(path.name, data, parsed.page_labels, rng)
        s2orc = path.with_suffix(".s2orc.json")
        if s2orc.exists():
            quotes += s2orc_quotes(s2orc, rng)
        counts = per_paper.setdefault(path.name, {"quotes": 0, "verified": 0})
        for quote in quotes:
            findings = check_citation(source, _cited(quote))
            ok = [f.rule for f in findings] == [QUOTE_VERIFIED.code]
            total += 1
            counts["quotes"] += 1
            verified += ok
            counts["verified"] += ok
            if not ok:
                misses.append({"paper": quote.paper, "page": quote.page, "quote": quote.text,
                               "findings": [_brief(f) for f in findings]})  # fmt: skip
    return {"quotes": total, "quotes_verified": verified, "papers": per_paper}, misses


def _source_pdf(doc_id: int, sentences: list[str]) -> bytes:
    """The cited document's evidence sentences as a source PDF: paragraphs of three."""
    paragraphs = tuple(" ".join(sentences[i : i + 3]) for i in range(0, len(sentences), 3))
    return render_pdf(
        DocumentSpec(
            title=f"Cited document {doc_id}",
            authors=("A. Author",),
            year=2020,
            sections=(Section(heading="Results", paragraphs=paragraphs),),
        )
    )


def measure_citint(
    data: Path, split: str, config: ContentRulesConfig
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    settings = ParserSettings()
    citations = [c for c in load_citations(data, (split,)) if c.label == SUPPORT and c.document]
    sources: dict[int, SourceText] = {}
    flagged = 0
    rules: Counter[str] = Counter()
    alarms: list[dict[str, Any]] = []
    for citation in citations:
        source = sources.get(citation.doc_id)
        if source is None:
            pdf = _source_pdf(citation.doc_id, citation.document)
            parsed = parse_bytes(pdf, f"{citation.doc_id}.pdf", None, settings)
            source = sources[citation.doc_id] = source_of(parsed, str(citation.doc_id))
        claim = strip_markers(citation.claim)
        findings = check_citation(source, CitationInput(claim=claim), config)
        raised = [f for f in findings if f.rule in FLAGGED_RULES]
        rules.update(f.rule for f in findings)
        if raised:
            flagged += 1
            alarms.append({"id": citation.id, "doc_id": citation.doc_id, "claim": claim,
                           "findings": [_brief(f) for f in raised]})  # fmt: skip
    result = {"citint_support": len(citations), "citint_support_flagged": flagged,
              "citint_split": split, "citint_rules": dict(rules)}  # fmt: skip
    return result, alarms


def _brief(finding: Finding) -> dict[str, Any]:
    return {"rule": finding.rule, "message": finding.message}


def merge_section(section: dict[str, Any]) -> Path:
    """Write the real_text section into bench/results/findings.json, keeping the others."""
    path = common.RESULTS_DIR / f"{RESULTS_NAME}.json"
    data = json.loads(path.read_text()) if path.exists() else {}
    data[SECTION] = section
    return common.write_results(RESULTS_NAME, data)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--split", default="dev", choices=("train", "dev"))
    parser.add_argument("--papers", default=str(common.PAPERS_DIR))
    parser.add_argument("--citint", default=str(common.DATA_DIR / "citint"))
    parser.add_argument("--number-not-in-source", action="store_true",
                        help="also run CP202 (off in production)")  # fmt: skip
    parser.add_argument("--no-write", action="store_true", help="print only")
    parser.add_argument("--show", type=int, default=0, help="print this many misses/alarms")
    args = parser.parse_args()
    config = ContentRulesConfig(number_not_in_source=args.number_not_in_source)

    started = time.perf_counter()
    quotes, misses = measure_quotes(Path(args.papers), args.seed)
    citint, alarms = measure_citint(Path(args.citint), args.split, config)
    elapsed = time.perf_counter() - started

    verified_share = quotes["quotes_verified"] / max(quotes["quotes"], 1)
    flagged_share = citint["citint_support_flagged"] / max(citint["citint_support"], 1)
    section = {
        "quotes": quotes["quotes"],
        "quotes_verified": quotes["quotes_verified"],
        "citint_support": citint["citint_support"],
        "citint_support_flagged": citint["citint_support_flagged"],
        "details": {
            "seed": args.seed,
            "split": args.split,
            "number_not_in_source": args.number_not_in_source,
            "papers": quotes["papers"],
            "citint_rules": citint["citint_rules"],
            "quote_misses": misses[:20],
            "citint_alarms": alarms[:20],
            "seconds": round(elapsed, 1),
        },
    }
    rows = {
        "quotes verified (real papers)": {"n": quotes["quotes"], "hits": quotes["quotes_verified"],
                                           "share": verified_share, "bar": 1.0},
        f"citint {args.split} SUPPORT flagged": {"n": citint["citint_support"],
                                                  "hits": citint["citint_support_flagged"],
                                                  "share": flagged_share, "bar": 0.01},
    }  # fmt: skip
    common.print_table(
        rows,
        [
            common.Column("n", "cases", 0),
            common.Column("hits", "count", 0),
            common.Column("share", "share", 4),
            common.Column("bar", "bar", 2),
        ],
        baseline="quotes verified (real papers)",
        title=f"Content rules on real text (seed {args.seed}, {elapsed:.0f} s)",
    )
    for item in (misses + alarms)[: args.show]:
        print(json.dumps(item, ensure_ascii=False)[:600])
    if not args.no_write:
        print(f"wrote {merge_section(section)}")


if __name__ == "__main__":
    main()
