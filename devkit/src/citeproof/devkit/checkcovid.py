"""Judge examples from the Check-COVID data set, for training and measuring the local judge.

Two situations, because the pipeline creates the second and the data set labels the first:

* evidence level: a claim against the gold evidence sentences of its row. SUPPORT -> supported,
  REFUTE -> contradicted, NOTENOUGHINFO -> unsupported (the row points at other sentences of the
  same abstract, which do not settle the claim).
* document level: a claim against the best passages of a whole cited abstract, as the retriever
  would hand them over. Only the unique (claim, abstract) pairs count (SUPPORT or REFUTE: every
  NOTENOUGHINFO row repeats one of them); ``unsupported`` examples are real mis-citations, the claim
  paired with an abstract that is not its own.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Final

import msgspec
import numpy as np

from citeproof.contracts.judging import CONTRADICTED, SUPPORTED, UNSUPPORTED, Passage

Embed = Callable[[list[str]], np.ndarray]

LABEL_OF: Final = {"SUPPORT": SUPPORTED, "REFUTE": CONTRADICTED, "NOTENOUGHINFO": UNSUPPORTED}
# Passages of a simulated source document: consecutive abstract sentences up to this many chars,
# close to what the parser's chunker produces for an abstract-sized PDF.
CHUNK_CHARS: Final = 700
# How many passages the retriever hands the judge for one citation in the simulation.
TOP_PASSAGES: Final = 4


class ClaimRow(msgspec.Struct, frozen=True):
    id: str
    claim: str
    cord_id: str
    label: str
    evidence_set: list[dict]


class Abstract(msgspec.Struct, frozen=True):
    cord_id: str
    title: str
    abstract: list[str]


class Example(msgspec.Struct, frozen=True, kw_only=True):
    """One judge input with its gold label; ``group`` is the claim's own abstract (for CV folds)."""

    claim: str
    passages: list[Passage]
    label: str
    level: str  # "evidence" | "document"
    group: str
    cited: str  # the abstract whose passages are shown


def read_jsonl(path: Path, type_: type) -> list:
    return [
        msgspec.convert(json.loads(line), type_) for line in path.read_text().splitlines() if line
    ]


def load_claims(path: Path) -> list[ClaimRow]:
    return read_jsonl(path, ClaimRow)


def load_corpus(path: Path) -> dict[str, Abstract]:
    return {a.cord_id: a for a in read_jsonl(path, Abstract)}


def files_sha256(*paths: Path) -> str:
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.read_bytes())
    return digest.hexdigest()


def evidence_examples(rows: Sequence[ClaimRow], corpus: dict[str, Abstract]) -> list[Example]:
    examples = []
    for row in rows:
        sentences = corpus[row.cord_id].abstract
        indices = sorted({e["sent_index"] for e in row.evidence_set})
        passages = [
            Passage(rank=rank, text=sentences[i], page=1) for rank, i in enumerate(indices, start=1)
        ]
        examples.append(
            Example(
                claim=row.claim.strip(),
                passages=passages,
                label=LABEL_OF[row.label],
                level="evidence",
                group=row.cord_id,
                cited=row.cord_id,
            )
        )
    return examples


def abstract_chunks(abstract: Abstract) -> list[str]:
    """The abstract as the parser would chunk its PDF: title first, then sentence-packed chunks."""
    chunks: list[str] = []
    current = abstract.title.strip()
    for sentence in abstract.abstract:
        if current and len(current) + 1 + len(sentence) > CHUNK_CHARS:
            chunks.append(current)
            current = sentence
        else:
            current = f"{current} {sentence}".strip()
    if current:
        chunks.append(current)
    return chunks


def retrieved_passages(claim: str, abstract: Abstract, embed: Embed) -> list[Passage]:
    """The top passages of ``abstract`` for ``claim`` by embedding similarity (dense retrieval)."""
    chunks = abstract_chunks(abstract)
    vectors = embed([claim, *chunks])
    scores = vectors[1:] @ vectors[0]
    order = np.argsort(-scores)[:TOP_PASSAGES]
    return [
        Passage(rank=rank, text=chunks[i], page=1, vector_score=float(scores[i]))
        for rank, i in enumerate(order, start=1)
    ]


def unique_claim_pairs(rows: Sequence[ClaimRow]) -> list[ClaimRow]:
    """One row per (claim, abstract), SUPPORT/REFUTE only, in first-seen order."""
    seen: set[tuple[str, str]] = set()
    unique = []
    for row in rows:
        key = (row.claim.strip(), row.cord_id)
        if row.label != "NOTENOUGHINFO" and key not in seen:
            seen.add(key)
            unique.append(row)
    return unique


def document_examples(
    rows: Sequence[ClaimRow],
    corpus: dict[str, Abstract],
    embed: Embed,
    *,
    seed: int,
    miscite_share: float,
    keep_true_pairs: bool,
    nearest_share: float,
) -> list[Example]:
    """Document-level examples; a ``miscite_share`` of the pairs (fixed seed) cite a wrong abstract.

    With ``keep_true_pairs`` the mis-cited claims also keep their true pair (more training data);
    without it they are replaced, as in the pipeline benchmark where a thesis cites one abstract.
    A mis-cited abstract is the other abstract closest to the claim with probability
    ``nearest_share`` (topically near mis-citations are the hard ones), else a random other one.
    """
    rng = random.Random(seed)
    pairs = unique_claim_pairs(rows)
    cord_ids = sorted(corpus)
    miscited = set(rng.sample(range(len(pairs)), round(len(pairs) * miscite_share)))
    abstract_vecs = None
    examples: list[Example] = []
    for index, row in enumerate(pairs):
        claim = row.claim.strip()
        if index not in miscited or keep_true_pairs:
            examples.append(
                Example(
                    claim=claim,
                    passages=retrieved_passages(claim, corpus[row.cord_id], embed),
                    label=LABEL_OF[row.label],
                    level="document",
                    group=row.cord_id,
                    cited=row.cord_id,
                )
            )
        if index in miscited:
            if rng.random() >= nearest_share:
                other = rng.choice([c for c in cord_ids if c != row.cord_id])
            else:
                if abstract_vecs is None:
                    abstract_vecs = embed([" ".join(corpus[c].abstract) for c in cord_ids])
                scores = abstract_vecs @ embed([claim])[0]
                ranked = [cord_ids[i] for i in np.argsort(-scores)]
                other = next(c for c in ranked if c != row.cord_id)
            examples.append(
                Example(
                    claim=claim,
                    passages=retrieved_passages(claim, corpus[other], embed),
                    label=UNSUPPORTED,
                    level="document",
                    group=row.cord_id,
                    cited=other,
                )
            )
    return examples
