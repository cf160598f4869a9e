"""Citation-Integrity (Sarol et al., Bioinformatics 2024): real citing sentences from biomedical
papers, each judged by experts against the paper it cites, in the SciFact layout of
`../shared/data/citint/` (SOURCES.md).

A claim is the citing sentence with this citation's marker written `<|cit|>` (or
`<|multi_cit|>` when the marker names several works) and other citations `<|other_cit|>`; its
cited document is the list of sentences the annotators took from the cited paper. Labels:
SUPPORT = ACCURATE, REFUTE = NOT_ACCURATE (the source does not back the claim as written), no
evidence label = IRRELEVANT (nothing in the source bears on it).

The judge protocol (issue 27): the claim with its markers removed, against all sentences of its
cited document as one passage.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Final

import msgspec
import numpy as np

from citeproof.contracts.judging import JudgeRequest, Passage

SUPPORT: Final = "SUPPORT"
REFUTE: Final = "REFUTE"
# The annotators' IRRELEVANT: the row has no evidence label for its cited document.
NO_EVIDENCE: Final = "NO_EVIDENCE"
SPLITS: Final = ("train", "dev")
# What a `<|multi_cit|>` marker says about how many works it names: several (at least two).
MULTI_WORKS: Final = 2
# Document level: the cited document's sentences spread through a longer source made of other
# documents' sentences (the same citing paper's other sources first: topical neighbours, the
# hard distractors), cut into passages the way the parser chunks a paper, and the passages
# closest to the claim handed over, as the retriever would.
SOURCE_SENTENCES: Final = 60
CHUNK_CHARS: Final = 700
TOP_PASSAGES: Final = 8
# The three markers, with the bracket or parenthesis around a marker and the space before it.
_MARKER: Final = re.compile(r"\s*[\[(]?\s*<\|(?:multi_cit|other_cit|cit)\|>\s*[\])]?")
_SPACE_BEFORE_PUNCT: Final = re.compile(r"\s+([.,;:])")


class Citation(msgspec.Struct, frozen=True):
    id: int
    split: str
    claim: str  # as in the data, markers included
    doc_id: int
    label: str  # SUPPORT, REFUTE or NO_EVIDENCE
    document: list[str]  # every sentence of the cited document

    @property
    def multi(self) -> bool:
        """The marker names several works: only part of the sentence is this source's."""
        return "<|multi_cit|>" in self.claim

    @property
    def other_markers(self) -> int:
        return self.claim.count("<|other_cit|>")

    def request(self, passages: list[Passage] | None = None) -> JudgeRequest:
        """The judge protocol: markers removed, the whole document as one passage (or the
        given passages), with what the parser knows about the marker: whether it names several
        works (the data says "several", not how many: 2) and the other markers in the sentence."""
        return JudgeRequest(
            claim=strip_markers(self.claim),
            context=None,
            passages=passages or [Passage(rank=1, page=None, text=" ".join(self.document))],
            citation_key=f"citint-{self.split}-{self.id}",
            marker_works=MULTI_WORKS if self.multi else 1,
            other_markers=self.other_markers,
        )


def strip_markers(claim: str) -> str:
    """The citing sentence as a reader sees it without the citation markers."""
    return _SPACE_BEFORE_PUNCT.sub(r"\1", _MARKER.sub("", claim)).strip()


def _corpus(directory: Path) -> dict[int, list[str]]:
    documents: dict[int, list[str]] = {}
    with (directory / "corpus_train_dev.jsonl").open() as lines:
        for line in lines:
            row = json.loads(line)
            documents[int(row["doc_id"])] = list(row["abstract"])
    return documents


def load_citations(directory: Path, splits: tuple[str, ...] = SPLITS) -> list[Citation]:
    """Every citation of the splits, one per (claim, cited document)."""
    documents = _corpus(directory)
    citations: list[Citation] = []
    for split in splits:
        with (directory / f"claims_{split}.jsonl").open() as lines:
            for line in lines:
                row = json.loads(line)
                for doc_id in row["cited_doc_ids"]:
                    labels = row["evidence"].get(str(doc_id)) or []
                    label = labels[0]["label"] if labels else NO_EVIDENCE
                    citations.append(
                        Citation(
                            id=int(row["id"]),
                            split=split,
                            claim=row["claim"],
                            doc_id=int(doc_id),
                            label=label,
                            document=documents.get(int(doc_id), []),
                        )
                    )
    return citations


def _chunks(sentences: Sequence[str]) -> list[str]:
    chunks: list[str] = []
    current = ""
    for sentence in sentences:
        if current and len(current) + 1 + len(sentence) > CHUNK_CHARS:
            chunks.append(current)
            current = sentence
        else:
            current = f"{current} {sentence}".strip()
    if current:
        chunks.append(current)
    return chunks


def rendered_source(
    citation: Citation, others: Sequence[Citation], rng: random.Random
) -> list[str]:
    """The cited document's sentences, in their order, spread at seeded positions through
    ``SOURCE_SENTENCES`` sentences: first those of the same citing paper's other cited documents
    (``others``, nearest papers first), then any other document's."""
    own_paper = citation.doc_id // 1000
    same = [s for o in others if o.doc_id // 1000 == own_paper and o.doc_id != citation.doc_id
            for s in o.document]  # fmt: skip
    rest = [s for o in others if o.doc_id // 1000 != own_paper for s in o.document]
    rng.shuffle(same)
    filler_count = max(SOURCE_SENTENCES - len(citation.document), 0)
    filler = same[:filler_count]
    if len(filler) < filler_count:
        filler += rng.sample(rest, filler_count - len(filler))
    positions = sorted(
        rng.sample(range(len(filler) + len(citation.document)), len(citation.document))
    )
    source: list[str] = []
    own = iter(citation.document)
    fill = iter(filler)
    for index in range(len(filler) + len(citation.document)):
        source.append(next(own) if positions and index == positions[0] else next(fill))
        if positions and index == positions[0]:
            positions.pop(0)
    return source


def document_requests(
    citations: Sequence[Citation],
    everyone: Sequence[Citation],
    embed: Callable[[list[str]], np.ndarray],
    seed: int,
) -> list[JudgeRequest]:
    """Each citation at document level: its document rendered into a longer source
    (``rendered_source``), chunked, and the ``TOP_PASSAGES`` passages closest to the claim
    (embedding similarity, the retriever's dense ranking) handed over as the judge's passages."""
    sources = []
    for citation in citations:
        rng = random.Random(f"{seed}-{citation.split}-{citation.id}-{citation.doc_id}")
        sources.append(
            (strip_markers(citation.claim), _chunks(rendered_source(citation, everyone, rng)))
        )
    warm = getattr(embed, "warm", None)
    if warm is not None:  # one pass in large batches instead of one small batch per citation
        warm([text for claim, chunks in sources for text in (claim, *chunks)])
    requests = []
    for citation, (claim, chunks) in zip(citations, sources, strict=True):
        vectors = embed([claim, *chunks])
        scores = vectors[1:] @ vectors[0]
        order = np.argsort(-scores)[:TOP_PASSAGES]
        passages = [
            Passage(rank=rank, text=chunks[i], page=1 + int(i) // 3, vector_score=float(scores[i]))
            for rank, i in enumerate(order, start=1)
        ]
        requests.append(citation.request(passages))
    return requests
