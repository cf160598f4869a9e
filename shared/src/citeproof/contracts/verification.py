"""What reference verification says about one entry (ADR 0024): where it was looked up, what
answered, which work it was matched to. The verify stage writes it (`reference_checks.body`),
the report shows it beside the entry's findings.

The statuses say plainly what happened: `verified` (an index knows the work; the findings say
where the entry differs), `not_found` (every index asked answered, none knows a matching work -
finding CP502), `not_looked_up` (verification was off, an index could not be asked or did not
answer in time, or the entry is a book, report or web page the indexes do not know: never "not
found"), `pending` (the run's verification has not finished yet).
"""

from __future__ import annotations

from typing import Final

import msgspec

VERIFIED: Final = "verified"
NOT_FOUND_STATUS: Final = "not_found"
NOT_LOOKED_UP: Final = "not_looked_up"
PENDING: Final = "pending"
STATUSES: Final = (VERIFIED, NOT_FOUND_STATUS, NOT_LOOKED_UP, PENDING)
STATUS_NAMES: Final = {
    VERIFIED: "Looked up",
    NOT_FOUND_STATUS: "Not found in any index",
    NOT_LOOKED_UP: "Not looked up",
    PENDING: "Being looked up",
}
OFF_DETAIL: Final = (
    "not looked up: reference verification was off for this run (it needs the server's "
    "CITEPROOF_VERIFY_ENABLED and the account's preference, e.g. citeproof check "
    "--verify-references)"
)


class LookedUp(msgspec.Struct, frozen=True, kw_only=True):
    """One question: which index, by what (DOI, arXiv id, PMID, ISBN, title), what came of it."""

    index: str
    by: str
    outcome: str  # "found", "none", "not looked up: <why>"
    cached: bool = False


class MatchedWork(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """The work an entry was matched to, as the index describes it."""

    index: str
    title: str
    authors: list[str] = []
    year: int | None = None
    venue: str | None = None
    doi: str | None = None
    url: str | None = None
    matched_by: str = ""  # "doi", "arxiv", "pmid", "isbn", "search"


class EntryVerification(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    status: str
    detail: str = ""
    looked_up: list[LookedUp] = []
    work: MatchedWork | None = None
