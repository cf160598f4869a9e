"""The `real_thesis` workload of the end-to-end benchmark: one thesis as people write them, citing
64 works of 10-40 pages each, rendered from real text.

Claims and the passages they were built from (the gold for retrieval recall):
- Check-COVID: every unique SUPPORT/REFUTE (claim, abstract) pair of the split whose abstract is
  one of `CHECKCOVID_SOURCES` drawn at random; the claim was written from the abstract, the gold
  is its PRIMARY evidence sentences (all its evidence sentences when none is PRIMARY);
- Citation-Integrity: `CITINT_SOURCES` real citing sentences of the split (SUPPORT/REFUTE), one
  source each; the gold is the sentences the annotators took from the cited paper.

Each cited work becomes a multi-page source: its abstract (or the cited paper's sentences) sits at
a random place among paragraphs of other real text - Check-COVID abstracts, Citation-Integrity
documents, HealthVer and COVID-Fact evidence passages that this thesis does not cite - chosen by
topic (TF-IDF cosine to the cited text, most similar first), as a real paper surrounds its
findings with related work and discussion. Page counts are drawn uniformly from 10-40; a
paragraph is used at most `MAX_REUSE` times across the sources and once per source. Every
source carries a (test-prefix) DOI on its first page and in its reference entry.

The edit for the re-check (`edited`): five claims reworded (a clause appended) and one citation
added (a sentence of one source's abstract, cited to it), the rest of the thesis unchanged.
Nothing here is tuned on the dev split: the candidate depth was chosen on the train split's
thesis (`--real-split train`) and reported on dev with another seed.
"""

from __future__ import annotations

import csv
import hashlib
import json
import random
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer

from bench.accuracy.documents import (
    GIVEN_NAMES,
    JOURNALS,
    SURNAMES,
    abstract_text,
    clean_title,
)
from citeproof.devkit.checkcovid import load_claims, load_corpus, unique_claim_pairs
from citeproof.devkit.citint import strip_markers
from citeproof.devkit.pdfgen import DocumentSpec, Reference, Section, render_pdf

DATA_DIR: Final = Path(__file__).resolve().parents[3] / "shared" / "data"
CHECKCOVID_SOURCES: Final = 50
CITINT_SOURCES: Final = 14
MIN_PAGES: Final = 10
MAX_PAGES: Final = 40
# Characters of body text per rendered page (citeproof.devkit.pdfgen at its body size: 3,290
# measured on Citation-Integrity paragraphs).
CHARS_PER_PAGE: Final = 3300
MAX_REUSE: Final = 3
PARAGRAPHS_PER_SECTION: Final = 8
SECTION_HEADINGS: Final = (
    "Introduction", "Background", "Related work", "Methods", "Study population",
    "Results", "Further analyses", "Discussion", "Limitations", "Implications",
    "Comparison with other studies", "Conclusions",
)  # fmt: skip
CLAIMS_PER_PARAGRAPH: Final = 4
PARAGRAPHS_PER_THESIS_SECTION: Final = 3
EDITED_CLAIMS: Final = 5
EDIT_CLAUSE: Final = ", as the authors report"
DOI_PREFIX: Final = "10.5555/thesis."
CHECKCOVID: Final = "checkcovid"
CITINT: Final = "citint"
SUPPORT_REFUTE: Final = ("SUPPORT", "REFUTE")


@dataclass(frozen=True)
class RealClaim:
    key: str
    text: str
    source: str  # the cited source's key
    gold: tuple[str, ...]  # the sentences the claim was built from
    origin: str
    paragraph: int = 0  # the thesis paragraph it is printed in


@dataclass(frozen=True)
class RealSource:
    key: str
    title: str
    authors: tuple[str, ...]
    year: int
    journal: str
    doi: str
    cited_text: tuple[str, ...]  # the abstract or the cited paper's sentences
    pages: int  # the page count drawn for it


@dataclass(frozen=True)
class RealThesis:
    split: str
    seed: int
    claims: tuple[RealClaim, ...]  # in the order the thesis cites them
    sources: tuple[RealSource, ...]
    specs: dict[str, DocumentSpec]  # source key -> rendered document
    # Source keys in the order of the reference list (first citation first); the edited thesis
    # keeps it, as a writer's reference manager keeps the numbers of works already cited.
    reference_order: tuple[str, ...]

    def edited(self) -> RealThesis:
        """Five claims reworded and one citation added (see the module docstring)."""
        rng = random.Random(self.seed + 1)
        claims = list(self.claims)
        for index in rng.sample(range(len(claims)), EDITED_CLAIMS):
            claim = claims[index]
            claims[index] = replace(
                claim, key=f"{claim.key}-edited", text=claim.text.rstrip(".") + EDIT_CLAUSE + "."
            )
        donor = next(s for s in self.sources if len(s.cited_text) >= 2)
        # Added to a paragraph in the middle: the other paragraphs stay as they were.
        at = len(claims) // 2
        added = RealClaim(
            key=f"{donor.key}-added",
            text=donor.cited_text[-1].strip(),
            source=donor.key,
            gold=(donor.cited_text[-1],),
            origin=CHECKCOVID if donor.key.startswith(CHECKCOVID) else CITINT,
            paragraph=claims[at - 1].paragraph,
        )
        claims.insert(at, added)
        return replace(self, claims=tuple(claims))


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def _checkcovid_claims(split: str, rng: random.Random, data_dir: Path):
    directory = data_dir / CHECKCOVID
    corpus = load_corpus(directory / "corpus.json")
    rows = load_claims(directory / f"covidCheck_{split}_composed+extracted.json")
    by_abstract: dict[str, list] = {}
    for row in unique_claim_pairs(rows):
        by_abstract.setdefault(row.cord_id, []).append(row)
    chosen = sorted(by_abstract)
    rng.shuffle(chosen)
    chosen = sorted(chosen[:CHECKCOVID_SOURCES])
    claims, cited = [], {}
    for cord_id in chosen:
        sentences = corpus[cord_id].abstract
        for number, row in enumerate(by_abstract[cord_id]):
            # The claim's evidence over every row of the pair (SUPPORT/REFUTE rows only).
            evidence = [
                e for r in rows if r.cord_id == cord_id and r.claim.strip() == row.claim.strip()
                and r.label in SUPPORT_REFUTE for e in r.evidence_set
            ]  # fmt: skip
            primary = [e["sent_index"] for e in evidence if e.get("type") == "PRIMARY"]
            indices = sorted(set(primary or [e["sent_index"] for e in evidence]))
            if not indices:
                continue
            claims.append(
                RealClaim(
                    key=f"{CHECKCOVID}-{cord_id}-{number}",
                    text=row.claim.strip(),
                    source=f"{CHECKCOVID}-{cord_id}",
                    gold=tuple(sentences[i] for i in indices),
                    origin=CHECKCOVID,
                )
            )
        abstract = corpus[cord_id]
        cited[f"{CHECKCOVID}-{cord_id}"] = (clean_title(abstract.title), abstract_text(abstract))
    return claims, cited, set(chosen)


def _citint_claims(split: str, rng: random.Random, data_dir: Path):
    directory = data_dir / CITINT
    documents: dict[int, list[str]] = {}
    with (directory / "corpus_train_dev.jsonl").open() as lines:
        for line in lines:
            row = json.loads(line)
            documents[int(row["doc_id"])] = list(row["abstract"])
    candidates = []
    with (directory / f"claims_{split}.jsonl").open() as lines:
        for line in lines:
            row = json.loads(line)
            (doc_id,) = row["cited_doc_ids"]
            labelled = row["evidence"].get(str(doc_id)) or []
            if not labelled or labelled[0]["label"] not in SUPPORT_REFUTE:
                continue
            sentences = documents.get(int(doc_id), [])
            gold = sorted({i for e in labelled for i in e["sentences"] if i < len(sentences)})
            claim = strip_markers(row["claim"])
            if gold and len(_words(claim)) >= 8:
                candidates.append((int(row["id"]), int(doc_id), claim, gold, sentences))
    rng.shuffle(candidates)
    claims, cited = [], {}
    for claim_id, doc_id, claim, gold, sentences in sorted(candidates[:CITINT_SOURCES]):
        key = f"{CITINT}-{doc_id}"
        claims.append(
            RealClaim(
                key=f"{CITINT}-{claim_id}",
                text=claim if claim.endswith(".") else claim + ".",
                source=key,
                gold=tuple(sentences[i] for i in gold),
                origin=CITINT,
            )
        )
        # Citation-Integrity documents have no titles: the first words of the cited paper.
        title = " ".join(sentences[0].split()[:12]).rstrip(".,;:")
        cited[key] = (title, " ".join(sentences))
    used_docs = {int(c.source.split("-")[1]) for c in claims}
    return claims, cited, used_docs, documents


def filler_pool(
    data_dir: Path, cited_abstracts: set[str], cited_docs: set[int], citint_docs: dict
) -> list[str]:
    """Paragraphs of real text the thesis does not cite."""
    pool: list[str] = []
    corpus = load_corpus(data_dir / CHECKCOVID / "corpus.json")
    pool += [abstract_text(a) for k, a in sorted(corpus.items()) if k not in cited_abstracts]
    pool += [" ".join(s) for d, s in sorted(citint_docs.items()) if d not in cited_docs and s]
    with (data_dir / "nli" / "healthver_dev.csv").open(newline="") as handle:
        pool += sorted({row["evidence"].strip() for row in csv.DictReader(handle)})
    for name in ("covidfact_rte_train.tsv", "covidfact_rte_dev.tsv"):
        with (data_dir / "nli" / name).open(newline="") as handle:
            rows = list(csv.reader(handle, delimiter="\t"))[1:]
        pool += sorted({row[1].strip() for row in rows if len(row) > 2})
    seen: set[str] = set()
    unique = []
    for paragraph in pool:
        paragraph = " ".join(paragraph.split())
        if len(paragraph) >= 200 and paragraph not in seen:
            seen.add(paragraph)
            unique.append(paragraph)
    return unique


def _bibliographic(key: str) -> tuple[tuple[str, ...], int, str, str]:
    rng = random.Random(int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big"))
    authors = tuple(
        f"{rng.choice(GIVEN_NAMES)} {surname}"
        for surname in rng.sample(SURNAMES, rng.choice((1, 2, 3, 3, 4, 5)))
    )
    return authors, rng.choice((2019, 2020, 2021)), rng.choice(JOURNALS), f"{DOI_PREFIX}{key}"


def _source_spec(source: RealSource, body: list[str]) -> DocumentSpec:
    sections = []
    for number, start in enumerate(range(0, len(body), PARAGRAPHS_PER_SECTION), start=1):
        heading = SECTION_HEADINGS[(number - 1) % len(SECTION_HEADINGS)]
        sections.append(
            Section(
                heading=f"{number} {heading}",
                paragraphs=tuple(body[start : start + PARAGRAPHS_PER_SECTION]),
            )
        )
    return DocumentSpec(
        title=source.title,
        authors=source.authors,
        year=source.year,
        doi=source.doi,
        venue=source.journal,
        sections=tuple(sections),
    )


def compose(split: str = "dev", seed: int = 28, data_dir: Path = DATA_DIR) -> RealThesis:
    rng = random.Random(f"{split}-{seed}")
    cc_claims, cc_cited, cited_abstracts = _checkcovid_claims(split, rng, data_dir)
    ci_claims, ci_cited, cited_docs, citint_docs = _citint_claims(split, rng, data_dir)
    cited = {**cc_cited, **ci_cited}
    pool = filler_pool(data_dir, cited_abstracts, cited_docs, citint_docs)
    vectorizer = TfidfVectorizer(stop_words="english", sublinear_tf=True, min_df=2)
    pool_matrix = vectorizer.fit_transform(pool)
    uses = np.zeros(len(pool), dtype=int)
    sources, specs = [], {}
    for key in sorted(cited):
        title, text = cited[key]
        authors, year, journal, doi = _bibliographic(key)
        pages = rng.randint(MIN_PAGES, MAX_PAGES)
        source = RealSource(key, title, authors, year, journal, doi,
                            tuple(s for c in cc_claims + ci_claims if c.source == key
                                  for s in c.gold) or (text,), pages)  # fmt: skip
        similarity = (pool_matrix @ vectorizer.transform([f"{title} {text}"]).T).toarray().ravel()
        budget = pages * CHARS_PER_PAGE - len(text)
        body: list[str] = []
        for index in np.argsort(-similarity, kind="stable"):
            if budget <= 0:
                break
            if uses[index] >= MAX_REUSE:
                continue
            uses[index] += 1
            body.append(pool[index])
            budget -= len(pool[index])
        # The cited passage sits at a random place of the paper, not always first.
        body.insert(rng.randint(0, len(body)), text)
        sources.append(source)
        specs[key] = _source_spec(source, body)
    claims = cc_claims + ci_claims
    # Claims of one source spread through the chapter, as in bench/e2e/work.py.
    rng.shuffle(claims)
    claims = [replace(c, paragraph=i // CLAIMS_PER_PARAGRAPH) for i, c in enumerate(claims)]
    order = tuple(dict.fromkeys(c.source for c in claims))
    return RealThesis(split, seed, tuple(claims), tuple(sources), specs, order)


def _vancouver(source: RealSource) -> str:
    names = [f"{a.split()[-1]} {a.split()[0][0]}" for a in source.authors]
    return f"{', '.join(names)}. {source.title}. {source.journal}. {source.year}. doi:{source.doi}"


def thesis_spec(thesis: RealThesis, *, version: str = "") -> DocumentSpec:
    order = thesis.reference_order
    label = {key: str(number) for number, key in enumerate(order, start=1)}
    by_key = {s.key: s for s in thesis.sources}
    # Some Check-COVID claims start in lower case; a thesis sentence does not.
    sentences = [
        f"{c.text[:1].upper()}{c.text[1:].rstrip('.')} [{label[c.source]}]." for c in thesis.claims
    ]
    grouped: dict[int, list[str]] = {}
    for claim, sentence in zip(thesis.claims, sentences, strict=True):
        grouped.setdefault(claim.paragraph, []).append(sentence)
    paragraphs = [" ".join(group) for _, group in sorted(grouped.items())]
    sections = [
        Section(
            heading="2.1 Introduction",
            paragraphs=(
                "This chapter reviews the published evidence that the later chapters of this "
                "thesis build on, study by study, in the words of their findings.",
            ),
        )
    ]
    for number, start in enumerate(range(0, len(paragraphs), PARAGRAPHS_PER_THESIS_SECTION), 2):
        heading = SECTION_HEADINGS[(number - 2) % len(SECTION_HEADINGS)]
        chunk = paragraphs[start : start + PARAGRAPHS_PER_THESIS_SECTION]
        sections.append(Section(heading=f"2.{number} {heading}", paragraphs=tuple(chunk)))
    references = tuple(Reference(label=label[key], text=_vancouver(by_key[key])) for key in order)
    return DocumentSpec(
        title=f"Evidence for Clinical Practice: A Review of the Literature{version}",
        authors=("A. Student",),
        year=2023,
        venue="Doctoral thesis, Faculty of Medicine - Chapter 2: Literature review",
        abstract="This chapter reviews the studies cited in the rest of this thesis.",
        sections=tuple(sections),
        references=references,
        running_header="Literature review",
    )


@dataclass(frozen=True)
class RenderedThesis:
    thesis: Path
    edited: Path
    sources: tuple[Path, ...]


def render(thesis: RealThesis, out_dir: Path) -> RenderedThesis:
    """The thesis, its edited version and its sources as PDFs (rendered once, then reused)."""
    (out_dir / "sources").mkdir(parents=True, exist_ok=True)
    paths = []
    for source in thesis.sources:
        path = out_dir / "sources" / f"{source.key}.pdf"
        if not path.exists():
            path.write_bytes(render_pdf(thesis.specs[source.key]))
        paths.append(path)
    first = out_dir / "thesis.pdf"
    first.write_bytes(render_pdf(thesis_spec(thesis)))
    edited = out_dir / "thesis-edited.pdf"
    edited.write_bytes(render_pdf(thesis_spec(thesis.edited())))
    return RenderedThesis(first, edited, tuple(paths))
