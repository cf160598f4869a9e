"""What a judge is asked and what it answers.

A judge sees one citing claim and the passages the retriever found in the cited source, and returns
one verdict. Each citation is judged in its own request, so nothing one source says can reach the
judgement of another citation.
"""

from __future__ import annotations

from typing import Protocol

import msgspec

# The labels live in the pipeline contract; re-exported here for the judge's callers.
from citeproof.pipeline import (
    CONTRADICTED,
    JUDGE_LABELS,
    LABELS_NEEDING_QUOTE,
    NEEDS_REVIEW,
    PARTIALLY_SUPPORTED,
    SUPPORTED,
    UNSUPPORTED,
)

__all__ = [
    "CONTRADICTED",
    "JUDGE_LABELS",
    "LABELS_NEEDING_QUOTE",
    "NEEDS_REVIEW",
    "PARTIALLY_SUPPORTED",
    "SUPPORTED",
    "UNSUPPORTED",
    "JudgeBackend",
    "JudgeRequest",
    "Passage",
    "Verdict",
]


class Passage(msgspec.Struct, frozen=True, kw_only=True):
    """One retrieved passage of the cited source, as ranked by the retriever."""

    rank: int
    text: str
    page: int | None = None
    chunk_id: int | None = None
    vector_score: float | None = None
    bm25_score: float | None = None
    fused_score: float | None = None


class JudgeRequest(msgspec.Struct, frozen=True, kw_only=True):
    """One citation to judge: the claim, the sentences around it, and the evidence passages."""

    claim: str
    context: str | None
    passages: list[Passage]
    # Opaque identifier, only for logs and metrics; never shown to a model.
    citation_key: str
    # How many works the citation's marker names ("[3-5]" names three): with several, only part
    # of the sentence is this source's, and the judge weighs its reading accordingly.
    marker_works: int = 1
    # Other citation markers in the same sentence (each naming its own works).
    other_markers: int = 0


class Verdict(msgspec.Struct, frozen=True, kw_only=True):
    """A judge's decision about one citation, with everything needed to audit and cache it."""

    label: str
    confidence: float
    rationale: str
    quote: str | None
    quote_page: int | None
    backend: str
    model: str
    prompt_version: str
    latency_ms: float
    prompt_tokens: int
    completion_tokens: int
    # Set by quote verification when the backend's label could not be backed by a verbatim quote.
    downgraded_from: str | None = None
    downgrade_reason: str | None = None
    # The judge's calibrated probability that the citation is not supported as written (any
    # label but `supported`), and the risk band it puts the citation in (pipeline.BANDS); None
    # for a backend or a verdict that gives no probability.
    problem_probability: float | None = None
    band: str | None = None


class JudgeBackend(Protocol):
    """A way of deciding verdicts (an LLM endpoint, the offline classifier, ...)."""

    name: str
    model: str
    prompt_version: str

    async def judge(self, request: JudgeRequest) -> Verdict: ...

    async def aclose(self) -> None: ...
