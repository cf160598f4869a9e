"""Distinct work for the end-to-end benchmark: theses composed from Check-COVID claims.

Every unique (claim, abstract) pair of the train and dev splits is used at most once. Pairs are
grouped by abstract and whole groups are dealt to theses, so no two theses cite the same
abstract: each thesis comes with its own sources, uploaded by its own user, and nothing a
previous thesis parsed, embedded or judged can be reused (no cache helps). Each claim cites its
own abstract (the benchmark measures throughput, not accuracy). Theses and sources are rendered
with the accuracy benchmark's documents (`bench/accuracy/documents.py`), i.e. with
`citeproof.devkit.pdfgen`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from bench.accuracy.dataset import BenchClaim, ThesisCase
from bench.accuracy.documents import source_spec, thesis_spec
from citeproof.devkit.checkcovid import LABEL_OF, load_claims, load_corpus, unique_claim_pairs
from citeproof.devkit.pdfgen import render_pdf

BENCH_DIR: Final = Path(__file__).resolve().parents[1]

CHECKCOVID: Final = BENCH_DIR.parents[1] / "shared" / "data" / "checkcovid"
SPLIT_FILES: Final = (
    "covidCheck_train_composed+extracted.json",
    "covidCheck_dev_composed+extracted.json",
)
CORPUS_FILE: Final = "corpus.json"
SEED: Final = 18


@dataclass(frozen=True)
class ThesisWork:
    """One user's work: a thesis PDF and the source PDFs only it cites."""

    number: int
    citations: int
    thesis: Path
    sources: tuple[Path, ...]


def compose(theses: int, citations: int, data_dir: Path = CHECKCOVID) -> list[ThesisCase]:
    """`theses` theses of at least `citations` claims each, sharing no abstract."""
    rows = [row for name in SPLIT_FILES for row in load_claims(data_dir / name)]
    by_abstract: dict[str, list[BenchClaim]] = {}
    for key, row in enumerate(unique_claim_pairs(rows)):
        by_abstract.setdefault(row.cord_id, []).append(
            BenchClaim(
                key=key,
                claim=row.claim.strip(),
                own_cord_id=row.cord_id,
                cited_cord_id=row.cord_id,
                gold=LABEL_OF[row.label],
                evidence_sentences=(),
            )
        )
    groups = list(by_abstract.values())
    random.Random(SEED).shuffle(groups)
    cases: list[list[BenchClaim]] = [[] for _ in range(theses)]
    for group in groups:
        open_cases = [c for c in cases if len(c) < citations]
        if not open_cases:
            break
        min(open_cases, key=len).extend(group)
    short = [len(c) for c in cases if len(c) < citations]
    if short:
        available = sum(len(g) for g in groups)
        raise ValueError(
            f"{theses} theses of {citations} citations need {theses * citations} claim-abstract "
            f"pairs; the data has {available}"
        )
    result = []
    for number, claims in enumerate(cases, start=1):
        # Claims of one abstract spread through the chapter, not in one paragraph.
        random.Random(SEED + number).shuffle(claims)
        references: list[str] = []
        for claim in claims:
            if claim.cited_cord_id not in references:
                references.append(claim.cited_cord_id)
        result.append(ThesisCase(number=number, claims=tuple(claims), references=tuple(references)))
    return result


def render(cases: list[ThesisCase], out_dir: Path, data_dir: Path = CHECKCOVID) -> list[ThesisWork]:
    corpus = load_corpus(data_dir / CORPUS_FILE)
    work = []
    for case in cases:
        folder = out_dir / f"thesis-{case.number}"
        (folder / "sources").mkdir(parents=True, exist_ok=True)
        thesis = folder / f"thesis-{case.number}.pdf"
        thesis.write_bytes(render_pdf(thesis_spec(case, corpus)))
        sources = []
        for cord_id in case.references:
            path = folder / "sources" / f"{cord_id}.pdf"
            path.write_bytes(render_pdf(source_spec(corpus[cord_id])))
            sources.append(path)
        work.append(ThesisWork(case.number, len(case.claims), thesis, tuple(sources)))
    return work
