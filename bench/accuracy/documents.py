"""The PDFs of the pipeline accuracy benchmark: one thesis per `ThesisCase`, one source per cited
abstract, rendered with `citeproof.devkit.pdfgen`.

Check-COVID gives each abstract a title and its sentences, nothing else. A real reference list
and a real paper also carry authors, a year and a venue, and the reference parser and the linker
have to cope with them, so each abstract gets deterministic *synthetic* bibliographic metadata
(drawn from its cord_id): fictional authors, a 2020/2021 year, a generic journal. About half of the
entries carry a DOI under the 10.5555 test prefix (printed in the entry and on the source's first
page); the rest are DOI-less, so linking has to go by title, as it must for many real entries.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Final

import msgspec

from bench.accuracy.dataset import BenchClaim, ThesisCase
from citeproof.devkit.checkcovid import Abstract
from citeproof.devkit.pdfgen import DocumentSpec, Reference, Section, render_pdf

# Share of the references that print a (synthetic, test-prefix) DOI.
DOI_SHARE: Final = 0.5
DOI_PREFIX: Final = "10.5555/ccov."
# Citing sentences per body paragraph and paragraphs per section of the review chapter.
CLAIMS_PER_PARAGRAPH: Final = 4
PARAGRAPHS_PER_SECTION: Final = 3
# Vancouver lists the first six authors, then "et al.".
VANCOUVER_MAX_AUTHORS: Final = 6

GIVEN_NAMES: Final = (
    "Aisha", "Bruno", "Chen", "Dana", "Emeka", "Fatima", "Giulia", "Hiroshi", "Ingrid", "Jonas",
    "Katarzyna", "Luis", "Mei", "Nikolai", "Olga", "Priya", "Rafael", "Sara", "Tomasz", "Ulla",
    "Victor", "Wen", "Yusuf", "Zeynep",
)  # fmt: skip
SURNAMES: Final = (
    "Abebe", "Bauer", "Castillo", "Dimitrov", "Eriksson", "Fontaine", "Gupta", "Haddad",
    "Ivanova", "Jansen", "Kowalski", "Lindqvist", "Moreno", "Nakamura", "Okafor", "Petrov",
    "Quinn", "Rossi", "Schneider", "Tanaka", "Urbina", "Varga", "Wang", "Yilmaz", "Zhang",
    "Almeida", "Brennan", "Costa", "Duarte", "Engel", "Ferreira", "Gallo", "Horvath", "Iqbal",
)  # fmt: skip
JOURNALS: Final = (
    "Journal of Respiratory Virology",
    "Clinical Infectious Disease Reports",
    "Epidemiology and Public Health Letters",
    "Vaccine Research Communications",
    "Journal of Pandemic Medicine",
    "Viral Immunology Reviews",
    "International Journal of Clinical Epidemiology",
    "Genomic Medicine Reports",
)
INTRODUCTION: Final = (
    "The COVID-19 pandemic produced an unprecedented volume of research in a very short time. "
    "Much of it appeared first as preprints and rapid communications, and its findings were "
    "taken up by clinicians, public health agencies and the press before the usual cycle of "
    "replication had run its course. This chapter reviews that literature as it bears on the "
    "questions addressed in the later chapters of this thesis.",
    "The review is organised thematically. Each section summarises what individual studies "
    "reported, in the words of their findings, and the final section draws the threads together. "
    "Where studies disagree, both positions are reported.",
)
CONCLUSION: Final = (
    "Taken together, the studies reviewed here paint a picture that is still changing. Findings "
    "obtained early in the pandemic were often revised as larger cohorts and better designs "
    "became available, and the following chapters take this uncertainty into account when they "
    "build on the evidence summarised above.",
)
SECTION_TITLES: Final = (
    "Virology and host response",
    "Transmission and prevention",
    "Clinical course and risk factors",
    "Diagnosis and treatment",
    "Vaccines and immunity",
    "Epidemiology and public health",
)


class Bibliographic(msgspec.Struct, frozen=True):
    """The synthetic publication details of one abstract."""

    authors: tuple[tuple[str, str], ...]  # (given name, surname)
    year: int
    journal: str
    volume: int
    issue: int
    first_page: int
    last_page: int
    doi: str | None


def clean_title(title: str) -> str:
    return re.sub(r"\s+", " ", title).strip().rstrip(".")


def abstract_text(abstract: Abstract) -> str:
    """The abstract's sentences as one paragraph, without CORD-19's leading "Abstract" word."""
    text = " ".join(s.strip() for s in abstract.abstract if s.strip())
    return re.sub(r"^(?:abstract)\s*:?\s+", "", text, flags=re.IGNORECASE)


def bibliographic(cord_id: str) -> Bibliographic:
    rng = random.Random(int.from_bytes(hashlib.sha256(cord_id.encode()).digest()[:8], "big"))
    authors = tuple(
        (rng.choice(GIVEN_NAMES), surname)
        for surname in rng.sample(SURNAMES, rng.choice((1, 2, 3, 3, 4, 5, 7)))
    )
    first_page = rng.randint(1, 900)
    return Bibliographic(
        authors=authors,
        year=rng.choice((2020, 2020, 2021)),
        journal=rng.choice(JOURNALS),
        volume=rng.randint(3, 60),
        issue=rng.randint(1, 12),
        first_page=first_page,
        last_page=first_page + rng.randint(4, 14),
        doi=f"{DOI_PREFIX}{cord_id}" if rng.random() < DOI_SHARE else None,
    )


def vancouver_entry(title: str, bib: Bibliographic) -> str:
    """``Surname AB, Surname C. Title. Journal. 2020;12(3):45-52. doi:...``"""
    names = [f"{surname} {given[0]}" for given, surname in bib.authors]
    if len(names) > VANCOUVER_MAX_AUTHORS:
        names = [*names[:VANCOUVER_MAX_AUTHORS], "et al"]
    entry = (
        f"{', '.join(names)}. {clean_title(title)}. {bib.journal}. "
        f"{bib.year};{bib.volume}({bib.issue}):{bib.first_page}-{bib.last_page}."
    )
    if bib.doi:
        entry += f" doi:{bib.doi}"
    return entry


def citing_sentence(claim: BenchClaim, label: str) -> str:
    """The claim with its numeric marker before the final full stop."""
    text = claim.claim
    if text.endswith("."):
        text = text[:-1]
    return f"{text} [{label}]."


def _chunks(items: list, size: int) -> Iterable[list]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def thesis_spec(case: ThesisCase, corpus: dict[str, Abstract]) -> DocumentSpec:
    sentences = [citing_sentence(c, case.label_of(c.cited_cord_id)) for c in case.claims]
    paragraphs = [" ".join(group) for group in _chunks(sentences, CLAIMS_PER_PARAGRAPH)]
    sections = [Section(heading="2.1 Introduction", paragraphs=INTRODUCTION)]
    for index, group in enumerate(_chunks(paragraphs, PARAGRAPHS_PER_SECTION), start=2):
        title = SECTION_TITLES[(index - 2 + case.number) % len(SECTION_TITLES)]
        sections.append(Section(heading=f"2.{index} {title}", paragraphs=tuple(group)))
    sections.append(Section(heading=f"2.{len(sections) + 1} Synthesis", paragraphs=CONCLUSION))
    references = tuple(
        Reference(
            label=str(number),
            text=vancouver_entry(corpus[cord_id].title, bibliographic(cord_id)),
        )
        for number, cord_id in enumerate(case.references, start=1)
    )
    return DocumentSpec(
        title=f"What the Early COVID-19 Literature Established: A Review (Part {case.number})",
        authors=(f"Student {case.number}",),
        year=2022,
        venue="Master's thesis, MSc Public Health — Chapter 2: Literature review",
        abstract=(
            "This chapter reviews published evidence on SARS-CoV-2 and COVID-19 that informs the "
            "analyses of the following chapters."
        ),
        sections=tuple(sections),
        references=references,
        running_header=f"Literature review (Part {case.number})",
    )


def source_spec(abstract: Abstract) -> DocumentSpec:
    bib = bibliographic(abstract.cord_id)
    return DocumentSpec(
        title=clean_title(abstract.title),
        authors=tuple(f"{given} {surname}" for given, surname in bib.authors),
        year=bib.year,
        doi=bib.doi,
        venue=f"{bib.journal} {bib.volume}({bib.issue}), {bib.first_page}–{bib.last_page}",
        abstract=abstract_text(abstract),
    )


class RenderedBenchmark(msgspec.Struct, frozen=True):
    theses: tuple[Path, ...]
    sources: tuple[Path, ...]


def source_filename(cord_id: str) -> str:
    """Named by cord_id, so a report's source filename tells which abstract was linked."""
    return f"{cord_id}.pdf"


def render_benchmark(
    theses: list[ThesisCase], corpus: dict[str, Abstract], out_dir: Path
) -> RenderedBenchmark:
    thesis_paths = []
    for case in theses:
        path = out_dir / f"thesis-{case.number}.pdf"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(render_pdf(thesis_spec(case, corpus)))
        thesis_paths.append(path)
    cited = sorted({cord_id for case in theses for cord_id in case.references})
    source_paths = []
    for cord_id in cited:
        path = out_dir / "sources" / source_filename(cord_id)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(render_pdf(source_spec(corpus[cord_id])))
        source_paths.append(path)
    return RenderedBenchmark(theses=tuple(thesis_paths), sources=tuple(source_paths))
