"""Report payload (the JSON format; Markdown and HTML are rendered from the same struct).

Version 2 (notes/REPORT_SHAPE.md is the contract with the CLI): findings per citation and per
reference-list entry, the judge's problem probability and band, a risk rank per citation, and a
summary that counts severities, rules and bands and says in one sentence what was found, what is
uncertain and what could not be checked.
"""

from __future__ import annotations

import uuid

import msgspec

from citeproof.api.runs.schemas import RunStatus
from citeproof.contracts.findings import Difference, Evidence
from citeproof.contracts.verification import EntryVerification


class ReportThesis(msgspec.Struct, frozen=True):
    id: uuid.UUID
    title: str | None
    filename: str


class ReportSummary(msgspec.Struct, frozen=True, kw_only=True):
    total: int
    # Verdicts by label, every label of the contract (the pipeline's own labels included, so the
    # counts add up to the verdicts stored).
    counts: dict[str, int]
    # Findings by resolved severity (every severity present, worst first), and by rule code.
    findings: dict[str, int] = {}
    by_rule: dict[str, int] = {}
    # Citations per risk band (pipeline.BANDS) plus pipeline.UNJUDGED.
    bands: dict[str, int] = {}
    # One sentence: what was found, what is uncertain, what could not be checked.
    headline: str = ""


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
    # The judge's calibrated probability that the citation is not supported as written, and its
    # band (pipeline.BANDS); null when the backend gives no probability.
    problem_probability: float | None = None
    band: str | None = None


class ReportFinding(msgspec.Struct, frozen=True, kw_only=True):
    """A stored finding (citeproof.contracts.findings.Finding) with its rule's names and the
    severity this report resolved (the rule's default unless the request re-levelled it)."""

    rule: str  # the code, "CP101"
    slug: str
    name: str
    severity: str
    message: str
    expected: str | None = None
    found: str | None = None
    differences: list[Difference] = []
    evidence: list[Evidence] = []
    claim_span: tuple[int, int] | None = None
    key: str = ""
    # Identity across runs (baselines): rule, subject and key, normalised.
    fingerprint: str


class ReportRisk(msgspec.Struct, frozen=True):
    """Where the citation stands among the run's: rank 1 is the most doubtful (error findings
    first, then warnings, then by band and the judge's problem probability, then ordinal)."""

    rank: int
    # The verdict's band, or for a verdict without one the band its label implies; null when
    # no judge placed the citation (no source, not checkable, judge error, not judged yet).
    band: str | None
    problem_probability: float | None


class ReportCitation(msgspec.Struct, frozen=True):
    citation_id: int
    ordinal: int
    marker: str
    claim: str
    context: str | None
    page: int | None
    reference: ReportReference
    source: ReportSource | None
    # null while the run has not judged this citation yet, and for the pipeline's labels that
    # are findings (reference_missing, source_missing, source_unreadable): those are reported
    # once, as a finding of their rule in `findings`.
    verdict: ReportVerdict | None
    # reference_missing citations: the entries the marker nearly matched (same first author, or
    # same year with the name among the co-authors), closest first. Never linked to.
    candidates: list[ReportReference] = []
    # LaTeX theses: the project file and 1-based line of the citing command.
    source_file: str | None = None
    source_line: int | None = None
    # The reference-list entry the marker names (`entries[].reference_id`), null when none.
    reference_id: int | None = None
    # True when the run's retrieve task for this citation succeeded: the quotation, number and
    # page rules ran on it (the CLI's --min-coverage counts it as examined).
    content_checked: bool = False
    # Worst severity first.
    findings: list[ReportFinding] = []
    risk: ReportRisk | None = None


class ReportEntry(msgspec.Struct, frozen=True, kw_only=True):
    """One reference-list entry of the thesis and the findings about it."""

    reference_id: int
    label: str | None
    raw: str | None
    title: str | None
    # The document this run linked to the entry, if any.
    source: ReportSource | None = None
    # The citations that name this entry (their citation_id).
    cited_by: list[int] = []
    # Worst severity first.
    findings: list[ReportFinding] = []
    # Reference verification (ADR 0024): where the entry was looked up and what answered, or
    # plainly why it was not looked up (verification off, an index unreachable, the time limit).
    verification: EntryVerification | None = None


class Report(msgspec.Struct, frozen=True):
    run: RunStatus
    thesis: ReportThesis
    summary: ReportSummary
    # In the thesis's order (ordinal); `risk.rank` gives the order to read them in.
    citations: list[ReportCitation]
    # Every reference-list entry, in the list's order.
    entries: list[ReportEntry] = []
