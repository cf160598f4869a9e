"""How the report words an entry's reference verification (ADR 0024): where it was looked up
and what answered, or plainly why not - the HTML report and the Markdown use these sentences."""

from __future__ import annotations

from collections import Counter

from citeproof.api.reports.schemas import ReportEntry
from citeproof.contracts.verification import (
    NOT_FOUND_STATUS,
    NOT_LOOKED_UP,
    PENDING,
    STATUS_NAMES,
    VERIFIED,
    EntryVerification,
)

# How the indexes are named for people (the origins findings' evidence carries).
INDEX_NAMES = {
    "crossref": "Crossref",
    "openalex": "OpenAlex",
    "retraction-watch": "Retraction Watch",
}


def index_name(index: str) -> str:
    return INDEX_NAMES.get(index, index)


def verification_text(verification: EntryVerification | None) -> str:
    """One sentence: "Looked up in Crossref by DOI: found (…)", "Not looked up: …"."""
    if verification is None:
        return ""
    if verification.status == VERIFIED and verification.work is not None:
        work = verification.work
        where = f"{index_name(work.index)} (by {work.matched_by or 'search'})"
        doi = f", doi:{work.doi}" if work.doi else ""
        return f"Looked up: found in {where}: “{work.title}” ({work.year or 'n.d.'}{doi})."
    asked = "; ".join(
        f"{index_name(q.index)} by {q.by}: {q.outcome}{' (cached)' if q.cached else ''}"
        for q in verification.looked_up
    )
    detail = verification.detail
    if not detail.startswith(("doi:", "arXiv:")):
        detail = detail[:1].upper() + detail[1:]
    if verification.status == NOT_FOUND_STATUS:
        return f"{STATUS_NAMES[NOT_FOUND_STATUS]} ({asked})."
    return f"{detail}{f' ({asked})' if asked else ''}."


def verification_summary(entries: list[ReportEntry]) -> str:
    """The reference list's verification in one line ("" when no entry carries one)."""
    statuses = Counter(e.verification.status for e in entries if e.verification is not None)
    if not statuses:
        return ""
    details = {e.verification.detail for e in entries if e.verification is not None}
    if statuses[NOT_LOOKED_UP] == len(entries) and len(details) == 1:
        return f"Reference verification: {next(iter(details))}."
    parts = [
        f"{statuses[status]} {STATUS_NAMES[status].lower()}"
        for status in (VERIFIED, NOT_FOUND_STATUS, NOT_LOOKED_UP, PENDING)
        if statuses[status]
    ]
    return f"Reference verification: {', '.join(parts)}."
