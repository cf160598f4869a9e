"""Citation-Integrity training data for the reader, and the split that keeps a calibration part.

Citation-Integrity train (2,138 real citing sentences, each judged by experts against the cited
paper) is split by *citing paper* (``group_of``: the thousands of a document id number the
paper the citation comes from, so one paper's citations never sit on both sides): a seeded
``CALIBRATION_SHARE`` of the papers is kept away from the reader and used only to fit the
aggregator, its temperature, the abstention rule and the band limits out of fold. Dev is never
read here.

The reader sees what the judge protocol hands over: the citing sentence without its markers
against every sentence of the cited document, joined as one text.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from bench.train_judge.data import CONTRADICTED_ID, SUPPORTED_ID, UNSUPPORTED_ID, Pair
from citeproof.devkit.citint import NO_EVIDENCE, REFUTE, SUPPORT, Citation, load_citations

# The reader's Citation-Integrity head, in the cross-encoder's label order (supported,
# unsupported, contradicted): REFUTE ("not accurate as written") is the judge's problem label.
CITINT_ID: Final = {SUPPORT: SUPPORTED_ID, NO_EVIDENCE: UNSUPPORTED_ID, REFUTE: CONTRADICTED_ID}
CALIBRATION_SHARE: Final = 0.3


def group_of(citation: Citation) -> int:
    """The citing paper: Citation-Integrity numbers a paper's cited documents NNN000, NNN001..."""
    return citation.doc_id // 1000


def train_citations(data: Path) -> list[Citation]:
    return [c for c in load_citations(data / "citint", ("train",)) if c.document]


def calibration_groups(citations: Sequence[Citation], seed: int) -> set[int]:
    groups = sorted({group_of(c) for c in citations})
    return set(random.Random(seed).sample(groups, round(len(groups) * CALIBRATION_SHARE)))


def citint_pairs(citations: Sequence[Citation]) -> list[Pair]:
    pairs = []
    for citation in citations:
        request = citation.request()
        pairs.append(
            Pair(
                request.claim,
                request.passages[0].text,
                CITINT_ID[citation.label],
                "citint-multi" if citation.multi else "citint",
            )
        )
    return pairs
