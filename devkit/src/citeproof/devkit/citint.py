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
import re
from pathlib import Path
from typing import Final

import msgspec

from citeproof.contracts.judging import JudgeRequest, Passage

SUPPORT: Final = "SUPPORT"
REFUTE: Final = "REFUTE"
# The annotators' IRRELEVANT: the row has no evidence label for its cited document.
NO_EVIDENCE: Final = "NO_EVIDENCE"
SPLITS: Final = ("train", "dev")
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

    def request(self) -> JudgeRequest:
        """The judge protocol: markers removed, the whole document as one passage."""
        return JudgeRequest(
            claim=strip_markers(self.claim),
            context=None,
            passages=[Passage(rank=1, page=None, text=" ".join(self.document))],
            citation_key=f"citint-{self.split}-{self.id}",
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
