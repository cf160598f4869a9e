"""Sentence-level claim/evidence pairs for the cross-encoder, from training data only.

Label ids follow ``LABELS``: 0 supported, 1 unsupported (the text does not settle the claim),
2 contradicted. Sources (all train-side; Check-COVID dev is never read here):

* Check-COVID train rows: a claim against its gold evidence sentences (SUPPORT / REFUTE /
  NOTENOUGHINFO), restricted to the abstracts of the training part (``split_abstracts``).
* Mined ``unsupported`` pairs: the claim against a sentence of its own abstract outside every
  evidence set of that claim, against the title line of its abstract, and against the most similar
  sentence of another abstract (a topically close mis-citation).
* Counterfactuals: supported pairs with the claim edited by ``counterfactual`` -> contradicted.
* HealthVer dev and COVID-Fact train (see ../shared/data/SOURCES.md).
"""

from __future__ import annotations

import csv
import json
import random
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Final

import msgspec
import numpy as np

from bench.train_judge.counterfactual import counterfactual

LABELS: Final = ("supported", "unsupported", "contradicted")
SUPPORTED_ID, UNSUPPORTED_ID, CONTRADICTED_ID = 0, 1, 2
_CHECKCOVID: Final = {"SUPPORT": 0, "REFUTE": 2, "NOTENOUGHINFO": 1}
_HEALTHVER: Final = {"Supports": 0, "Refutes": 2, "Neutral": 1}
_COVIDFACT: Final = {"entailment": 0, "not_entailment": 2}


class Pair(msgspec.Struct, frozen=True):
    claim: str
    evidence: str
    label: int
    origin: str


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def split_abstracts(cord_ids: Sequence[str], held_out_share: float, seed: int) -> set[str]:
    """The abstracts held out for calibration (their claims never reach the cross-encoder)."""
    ids = sorted(set(cord_ids))
    rng = random.Random(seed)
    return set(rng.sample(ids, round(len(ids) * held_out_share)))


def checkcovid_pairs(
    rows: Sequence[dict],
    corpus: dict[str, dict],
    embed: Callable[[list[str]], np.ndarray],
    rng: random.Random,
) -> list[Pair]:
    pairs: list[Pair] = []
    evidence_of: dict[tuple[str, str], set[int]] = defaultdict(set)
    for row in rows:
        evidence_of[(row["claim"].strip(), row["cord_id"])] |= {
            e["sent_index"] for e in row["evidence_set"]
        }
    for row in rows:
        sentences = corpus[row["cord_id"]]["abstract"]
        indices = sorted({e["sent_index"] for e in row["evidence_set"]})
        evidence = " ".join(sentences[i] for i in indices)
        pairs.append(Pair(row["claim"].strip(), evidence, _CHECKCOVID[row["label"]], "checkcovid"))
    # One mined negative of each kind per unique (claim, abstract) pair.
    unique = sorted(evidence_of)
    other_ids = sorted(corpus)
    all_sentences = [(cid, s) for cid in other_ids for s in corpus[cid]["abstract"]]
    sentence_vecs = embed([s for _, s in all_sentences])
    claim_vecs = embed([claim for claim, _ in unique])
    for (claim, cord_id), claim_vec in zip(unique, claim_vecs, strict=True):
        sentences = corpus[cord_id]["abstract"]
        outside = [s for i, s in enumerate(sentences) if i not in evidence_of[(claim, cord_id)]]
        if outside:
            pairs.append(Pair(claim, rng.choice(outside), UNSUPPORTED_ID, "own-other-sentence"))
        pairs.append(Pair(claim, corpus[cord_id]["title"], UNSUPPORTED_ID, "title-line"))
        scores = sentence_vecs @ claim_vec
        for index in np.argsort(-scores):
            other, sentence = all_sentences[int(index)]
            if other != cord_id:
                pairs.append(Pair(claim, sentence, UNSUPPORTED_ID, "miscited-nearest"))
                break
    return pairs


def counterfactual_pairs(pairs: Sequence[Pair], rng: random.Random) -> list[Pair]:
    edited = []
    for pair in pairs:
        if pair.label != SUPPORTED_ID:
            continue
        claim = counterfactual(pair.claim, rng)
        if claim is not None:
            edited.append(Pair(claim, pair.evidence, CONTRADICTED_ID, f"cf-{pair.origin}"))
    return edited


def healthver_pairs(path: Path) -> list[Pair]:
    with path.open(newline="") as handle:
        return [
            Pair(
                row["claim"].strip(), row["evidence"].strip(), _HEALTHVER[row["label"]], "healthver"
            )
            for row in csv.DictReader(handle)
            if row["label"] in _HEALTHVER
        ]


def covidfact_pairs(path: Path) -> list[Pair]:
    pairs = []
    with path.open(newline="") as handle:
        reader = csv.reader(handle, delimiter="\t")
        next(reader)
        for row in reader:
            if len(row) >= 4 and row[3] in _COVIDFACT:
                evidence = row[1].replace(" > ", " ").strip()
                pairs.append(Pair(row[2].strip(), evidence, _COVIDFACT[row[3]], "covidfact"))
    return pairs
