"""The cases of the pipeline accuracy benchmark, built from Check-COVID (no rendering, no stack).

Check-COVID labels a claim against an evidence set, and every NOTENOUGHINFO row repeats a
SUPPORT or REFUTE claim with the same abstract. A thesis cites a whole abstract, so the cases are
the unique (claim, abstract) pairs: SUPPORT -> supported, REFUTE -> contradicted. The
``unsupported`` cases are real mis-citations: a fixed-seed share of the claims cite another
abstract instead of their own.

Choice of the wrong abstract: one of the ``MISCITE_NEIGHBOURS`` abstracts most similar in topic to
the claim's own abstract (TF-IDF cosine over title + abstract, whole corpus), picked at random.
Every abstract in the corpus is about COVID-19, so even a random pick shares the broad topic; the
topical neighbours make the case harder (same subject: vaccines, transmission, genetics...) while
still being a different study, which is how a wrong reference looks in a real thesis (the author
cited the related paper next to the right one). We do not pick the abstract closest to the
*claim*: with several studies of the same question in the corpus, that one can genuinely support
the claim and the gold label would be wrong.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Final

import msgspec
import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer

from citeproof.contracts.judging import UNSUPPORTED
from citeproof.devkit.checkcovid import LABEL_OF, Abstract, ClaimRow, unique_claim_pairs

# Share of the claims that cite a wrong abstract (expected verdict: unsupported).
MISCITE_SHARE: Final = 1 / 3
# The wrong abstract is drawn from this many topical neighbours of the claim's own abstract.
MISCITE_NEIGHBOURS: Final = 10
# Claims per generated thesis: ~140 dev claims give three theses of ~47 citations, each a
# realistic chapter-length document rather than one unwieldy 150-citation file.
CLAIMS_PER_THESIS: Final = 50


class BenchClaim(msgspec.Struct, frozen=True, kw_only=True):
    """One citing sentence of a generated thesis and what the pipeline should say about it."""

    key: int
    """Position among the unique (claim, abstract) pairs; stable for a given claims file."""
    claim: str
    own_cord_id: str
    """The abstract the claim was written about (Check-COVID's cord_id)."""
    cited_cord_id: str
    """The abstract the thesis cites for it: the own one, or a topical neighbour if mis-cited."""
    gold: str
    """supported | contradicted | unsupported."""
    evidence_sentences: tuple[int, ...]
    """Gold evidence sentence indices in the own abstract (SUPPORT/REFUTE rows of the pair)."""

    @property
    def miscited(self) -> bool:
        return self.cited_cord_id != self.own_cord_id


class ThesisCase(msgspec.Struct, frozen=True, kw_only=True):
    """One generated thesis: its claims in reading order and its numbered reference list."""

    number: int
    claims: tuple[BenchClaim, ...]
    references: tuple[str, ...]
    """cord_ids in reference-list order; the reference label of entry i is str(i + 1)."""

    def label_of(self, cord_id: str) -> str:
        return str(self.references.index(cord_id) + 1)


def topic_neighbours(corpus: dict[str, Abstract], k: int) -> dict[str, list[str]]:
    """For every abstract, the ``k`` other abstracts most similar in topic, nearest first."""
    ids = sorted(corpus)
    texts = [f"{corpus[c].title} {' '.join(corpus[c].abstract)}" for c in ids]
    matrix = TfidfVectorizer(stop_words="english", sublinear_tf=True).fit_transform(texts)
    similarity = (matrix @ matrix.T).toarray()
    np.fill_diagonal(similarity, -1.0)
    neighbours = {}
    for row, cord_id in enumerate(ids):
        # Stable sort + sorted ids: ties resolve the same way on every machine.
        order = np.argsort(-similarity[row], kind="stable")[:k]
        neighbours[cord_id] = [ids[i] for i in order]
    return neighbours


def build_claims(
    rows: Sequence[ClaimRow], corpus: dict[str, Abstract], *, seed: int
) -> list[BenchClaim]:
    """The unique pairs, a fixed-seed ``MISCITE_SHARE`` of them citing a wrong abstract."""
    pairs = unique_claim_pairs(rows)
    evidence: dict[tuple[str, str], set[int]] = {}
    for row in rows:
        if row.label != "NOTENOUGHINFO":
            indices = evidence.setdefault((row.claim.strip(), row.cord_id), set())
            indices.update(e["sent_index"] for e in row.evidence_set)
    rng = random.Random(seed)
    miscited = set(rng.sample(range(len(pairs)), round(len(pairs) * MISCITE_SHARE)))
    neighbours = topic_neighbours(corpus, MISCITE_NEIGHBOURS)
    claims = []
    for key, row in enumerate(pairs):
        claim = row.claim.strip()
        cited, gold = row.cord_id, LABEL_OF[row.label]
        if key in miscited:
            cited, gold = rng.choice(neighbours[row.cord_id]), UNSUPPORTED
        claims.append(
            BenchClaim(
                key=key,
                claim=claim,
                own_cord_id=row.cord_id,
                cited_cord_id=cited,
                gold=gold,
                evidence_sentences=tuple(sorted(evidence[(claim, row.cord_id)])),
            )
        )
    return claims


def split_into_theses(
    claims: Sequence[BenchClaim], *, seed: int, per_thesis: int = CLAIMS_PER_THESIS
) -> list[ThesisCase]:
    """Shuffle (so a REFUTE variant never sits next to its SUPPORT twin) and cut into theses of
    near-equal size; references are numbered in order of first citation (Vancouver style)."""
    order = list(claims)
    random.Random(seed).shuffle(order)
    count = max(1, -(-len(order) // per_thesis))
    theses = []
    for number in range(count):
        part = tuple(order[number::count])
        references: list[str] = []
        for claim in part:
            if claim.cited_cord_id not in references:
                references.append(claim.cited_cord_id)
        theses.append(ThesisCase(number=number + 1, claims=part, references=tuple(references)))
    return theses
