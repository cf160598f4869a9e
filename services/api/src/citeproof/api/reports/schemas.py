"""Report payload (the JSON format; Markdown and HTML are rendered from the same struct)."""

from __future__ import annotations

import uuid

import msgspec

from citeproof.api.runs.schemas import RunStatus
from citeproof.pipeline import CONTRADICTED, UNSUPPORTED

# Labels counted as problems in the report's headline.
PROBLEM_LABELS = frozenset({UNSUPPORTED, CONTRADICTED})


class ReportThesis(msgspec.Struct, frozen=True):
    id: uuid.UUID
    title: str | None
    filename: str


class ReportSummary(msgspec.Struct, frozen=True):
    total: int
    counts: dict[str, int]


class ReportReference(msgspec.Struct, frozen=True):
    label: str | None
    raw: str | None
    title: str | None


class ReportSource(msgspec.Struct, frozen=True):
    document_id: uuid.UUID
    title: str | None
    filename: str
    # How the reference was linked to this source ("doi", "title", "explicit", or through the
    # user's library: "library:key+attachment", "library:doi+doi", ...) and how sure (0..1).
    link_method: str | None = None
    link_score: float | None = None
    # Labels of the other references of this run linked to the same source. Only explicit
    # links (an override, a library attachment) can share a source; a source that stands for
    # several references deserves a look, so every format shows them.
    shared_with: list[str] = []


class ReportVerdict(msgspec.Struct, frozen=True):
    label: str
    confidence: float
    rationale: str
    quote: str | None
    quote_page: int | None
    backend: str
    model: str
    downgrade_reason: str | None


class ReportCitation(msgspec.Struct, frozen=True):
    citation_id: int
    ordinal: int
    marker: str
    claim: str
    context: str | None
    page: int | None
    reference: ReportReference
    source: ReportSource | None
    # null while the run has not judged this citation yet.
    verdict: ReportVerdict | None
    # reference_missing citations: the entries the marker nearly matched (same first author, or
    # same year with the name among the co-authors), closest first. Never linked to.
    candidates: list[ReportReference] = []
    # LaTeX theses: the project file and 1-based line of the citing command.
    source_file: str | None = None
    source_line: int | None = None


class Report(msgspec.Struct, frozen=True):
    run: RunStatus
    thesis: ReportThesis
    summary: ReportSummary
    citations: list[ReportCitation]
