"""Rule CP201 (number-conflict) offline: the seeded generator's citations checked against their
sources' text directly, without the stack (issue 25; `make bench-findings` takes ten minutes
and mixes in the parser and the retriever).

For each seed, the theses of `citeproof.devkit.seeded` are composed as the findings benchmark
composes them, except that the source PDFs are not rendered (a stand-in puts a dozen sentences
on a page; the draws that depend on where a sentence landed differ from the benchmark's, so a
seed gives similar cases, not the same ones). Each citation is checked by the content rules
(`check_citation`) against its source's sentences in their printed order (headings between
paragraphs), with the retriever's evidence emulated:
- ``oracle``: the data set's evidence sentences of the claim ranked first (what the retriever
  ranks first for most claims);
- ``lexical``: the five sentences holding most of the claim's words;
- ``none``: no evidence.
Counted: number-changed citations flagged CP201 (detected / injected) and untouched citations
flagged CP201 (false alarms; citations of a wrongly attached work are left out). With
``--citint``, Citation-Integrity train's SUPPORT citations against their documents' text: any
CP201 is a false alarm.

    python -m bench.findings.number_offline --seeds 3,11,13,97,7019,424242 [--theses 60]
        [--evidence oracle] [--citint] [--show missed,false]

Build seeds only: never the seeds 5000-5999 the benchmark reports on, never Citation-Integrity
dev.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import numpy as np

from bench import common
from citeproof.devkit.seeded import compose
from citeproof.devkit.seeded import key as k
from citeproof.devkit.seeded.compose import Composer, GeneratorConfig
from citeproof.devkit.seeded.material import (
    Document,
    filler_sentences,
    load_checkcovid,
    load_citint,
)
from citeproof.devkit.seeded.sources import RenderedSource, SourceSpec
from citeproof.pipeline import NUMBER_CONFLICT
from citeproof.retriever.content_rules.check import CitationInput, check_citation
from citeproof.retriever.content_rules.evidence import RankedPassage
from citeproof.retriever.content_rules.folding import folded_words
from citeproof.retriever.content_rules.source import SourceText, content_stems

REPORTED_SEEDS: Final = range(5000, 6000)
SENTENCES_PER_PAGE: Final = 12
LEXICAL_PASSAGES: Final = 5
EVIDENCE_MODES: Final = ("oracle", "lexical", "none")


def _stand_in_render(spec: SourceSpec) -> RenderedSource:
    """Where each sentence would land, without a PDF: a dozen sentences a page."""
    order = [index for block in spec.blocks for index in block.sentences]
    pages = {index: at // SENTENCES_PER_PAGE for at, index in enumerate(order)}
    count = max(pages.values(), default=0) + 1
    first = spec.work.first_page or 1
    return RenderedSource(
        pdf=b"",
        sentence_pages=tuple(
            (pages[i], pages[i]) if i in pages else None for i in range(len(spec.sentences))
        ),
        page_labels=tuple(str(first + page) for page in range(count)),
    )


def source_text(spec: SourceSpec) -> SourceText:
    """The source's body as the parser gives it: headings and paragraphs, page by page."""
    pages: list[list[str]] = [[]]
    placed = 0
    for block in spec.blocks:
        if block.heading is not None:
            pages[-1].append(block.heading)
            continue
        pages[-1].append(" ".join(spec.sentences[i] for i in block.sentences))
        placed += len(block.sentences)
        if placed >= SENTENCES_PER_PAGE * len(pages):
            pages.append([])
    return SourceText.from_pages(["\n\n".join(page) for page in pages if page])


def evidence_for(
    source: SourceText, spec_sentences: Sequence[str], claim: str, ids: Sequence[int], mode: str
) -> list[RankedPassage]:
    if mode == "oracle":
        texts = [spec_sentences[i] for i in ids if i < len(spec_sentences)]
        return [RankedPassage(text=t, rank=r) for r, t in enumerate(texts, 1)]
    if mode == "lexical":
        coverage = source.coverage(content_stems(folded_words(claim)))
        best = np.argsort(-coverage, kind="stable")[:LEXICAL_PASSAGES]
        return [
            RankedPassage(text=source.sentence_text(int(i)), rank=r)
            for r, i in enumerate(best, 1)
            if coverage[i] > 0
        ]
    return []


def flagged(
    source: SourceText, claim: str, evidence: Sequence[RankedPassage]
) -> list[tuple[str, str]]:
    findings = check_citation(source, CitationInput(claim=claim, evidence=evidence))
    return [(f.expected or "", f.found or "") for f in findings if f.rule == NUMBER_CONFLICT.code]


@dataclass
class Tally:
    injected: int = 0
    detected: int = 0
    untouched: int = 0
    false_alarms: int = 0
    missed: list[str] = field(default_factory=list)
    false: list[str] = field(default_factory=list)


def run_seed(
    seed: int, theses: int, mode: str, documents: Sequence[Document], filler: Sequence[str]
) -> Tally:
    if seed in REPORTED_SEEDS:
        raise SystemExit(f"seed {seed} is a reported seed: build seeds only")
    composer = Composer(documents, filler, seed, GeneratorConfig(theses=theses))
    captured: list[Any] = []
    kinds = Composer._citation_kinds

    def capture(self: Composer, cites: list[Any], rng: random.Random, style: str) -> None:
        kinds(self, cites, rng, style)
        captured.extend(cites)

    tally = Tally()
    original_render = getattr(compose, "render_source")  # noqa: B009 - put back below
    setattr(compose, "render_source", _stand_in_render)  # noqa: B010 - no PDF needed
    setattr(Composer, "_citation_kinds", capture)  # noqa: B010 - keeps the thesis's cites
    try:
        for index in range(theses):
            captured.clear()
            composer.thesis(index)
            sources: dict[int, SourceText] = {}
            for cite in captured:
                if cite.work.kind == k.SWAPPED or cite.kind not in (None, k.NUMBER_CHANGED):
                    continue
                spec = cite.work.source
                source = sources.get(id(spec))
                if source is None:
                    source = sources[id(spec)] = source_text(spec)
                evidence = evidence_for(source, spec.sentences, cite.text, cite.evidence, mode)
                found = flagged(source, cite.text, evidence)
                where = f"s{seed}-t{index:03d}"
                if cite.kind == k.NUMBER_CHANGED:
                    tally.injected += 1
                    if found:
                        tally.detected += 1
                    else:
                        ev = " | ".join(
                            spec.sentences[i] for i in cite.evidence if i < len(spec.sentences)
                        )
                        tally.missed.append(
                            f"{where} [{cite.detail}] {cite.text}\n    EVIDENCE: {ev}"
                        )
                else:
                    tally.untouched += 1
                    if found:
                        tally.false_alarms += 1
                        tally.false.append(f"{where} {found} {cite.text}")
    finally:
        setattr(compose, "render_source", original_render)  # noqa: B010
        setattr(Composer, "_citation_kinds", kinds)  # noqa: B010
    return tally


def run_citint(mode: str) -> Tally:
    """Citation-Integrity train SUPPORT citations against their document's sentences."""
    tally = Tally()
    for document in load_citint(common.DATA_DIR / "citint"):
        source = SourceText.from_pages([" ".join(document.sentences)])
        for claim in document.claims:
            evidence = evidence_for(source, document.sentences, claim.text, claim.evidence, mode)
            found = flagged(source, claim.text, evidence)
            tally.untouched += 1
            if found:
                tally.false_alarms += 1
                tally.false.append(f"{document.key} {found} {claim.text}")
    return tally


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", default="3,11,13,97,7019,424242")
    parser.add_argument("--theses", type=int, default=60)
    parser.add_argument("--evidence", choices=EVIDENCE_MODES, default="oracle")
    parser.add_argument("--citint", action="store_true")
    parser.add_argument("--show", default="", help="missed,false: print those cases")
    args = parser.parse_args(argv)
    show = set(filter(None, args.show.split(",")))
    seeds = [int(s) for s in args.seeds.split(",") if s]
    data = common.DATA_DIR
    documents = load_checkcovid(data / "checkcovid") + load_citint(data / "citint")
    filler = filler_sentences(data / "citint", {d.key for d in documents})
    random.seed(0)
    totals = Tally()
    rows = [(f"seed {seed}", run_seed(seed, args.theses, args.evidence, documents, filler))
            for seed in seeds]  # fmt: skip
    if args.citint:
        rows.append(("citint train", run_citint(args.evidence)))
    for name, tally in rows:
        if name != "citint train":
            for count in ("injected", "detected", "untouched", "false_alarms"):
                setattr(totals, count, getattr(totals, count) + getattr(tally, count))
        recall = tally.detected / tally.injected if tally.injected else float("nan")
        print(
            f"{name:>14}: detected {tally.detected}/{tally.injected} ({recall:.3f}), "
            f"false alarms {tally.false_alarms}/{tally.untouched}",
            flush=True,
        )
        if "missed" in show:
            for line in tally.missed:
                print(f"  MISSED {line}")
        if "false" in show:
            for line in tally.false:
                print(f"  FALSE {line}")
    if totals.injected:
        print(
            f"{'seeds total':>14}: detected {totals.detected}/{totals.injected} "
            f"({totals.detected / totals.injected:.3f}), "
            f"false alarms {totals.false_alarms}/{totals.untouched}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
