"""Reference verification settings (ADR 0024). Off unless enabled here AND switched on by the
user (`PATCH /v1/me/preferences {"verify_references": true}`, `citeproof check
--verify-references`). The defaults follow the indexes' published etiquette, noted where they
are defined."""

from __future__ import annotations

from typing import Annotated, ClassVar, Final

from citeproof.settings import Settings, SettingsError, doc

OPENALEX: Final = "openalex"
CROSSREF: Final = "crossref"
# The indexes this code speaks to, by dialect.
INDEX_NAMES: Final = (CROSSREF, OPENALEX)

DEFAULT_OPENALEX_URL = "https://api.openalex.org"
DEFAULT_CROSSREF_URL = "https://api.crossref.org"
# Asked in this order: Crossref registers most DOIs and carries the retraction, correction and
# expression-of-concern notices (Retraction Watch's among them); OpenAlex knows works without a
# DOI (arXiv-only, many proceedings) and PubMed ids.
DEFAULT_INDEXES = f"{CROSSREF},{OPENALEX}"
# Crossref's polite pool allows 10 requests/s and OpenAlex's 10/s; half of it leaves room for
# other clients behind the same address. Per index, per retriever process.
DEFAULT_REQUESTS_PER_S = 5.0
# Requests in flight per index at once (Crossref's polite pool: at most 3 concurrent).
DEFAULT_IN_FLIGHT = 3
DEFAULT_TIMEOUT_S = 15.0
# The bound: a run waits for its lookups at most this long; what is unanswered by then
# is reported "not looked up".
DEFAULT_MAX_WAIT_S = 300.0
# Bibliographic records change rarely, notices (retractions) do: two weeks.
DEFAULT_CACHE_TTL_S = 14 * 24 * 3600.0
# A work record is a few kB, a five-item search answer tens of kB; anything far beyond is not an
# answer to our question (or a hostile server) and is refused unread.
DEFAULT_MAX_RESPONSE_BYTES = 2 * 1024 * 1024
# Server errors and timeouts are retried this many times (a 429 is retried until the deadline:
# the server asked us to wait, it did not fail).
DEFAULT_MAX_RETRIES = 3
DEFAULT_BACKOFF_BASE_S = 1.0
DEFAULT_BACKOFF_MAX_S = 30.0
# After this many requests in a row that could not get an answer (connection refused, timeouts,
# 5xx after retries), an index is treated as unreachable for `host_down_s`: its remaining lookups
# are "not looked up" at once instead of each waiting for its own timeouts.
DEFAULT_HOST_FAILURES = 3
DEFAULT_HOST_DOWN_S = 60.0
# Search answers considered per query (Crossref `rows`, OpenAlex `per_page`).
DEFAULT_SEARCH_ROWS = 5
# A thesis has tens to a few hundred entries; a run never looks up more than this.
DEFAULT_MAX_ENTRIES = 1000


class VerifySettings(Settings, frozen=True, kw_only=True):
    ENV_PREFIX: ClassVar[str] = "CITEPROOF_VERIFY_"

    enabled: Annotated[
        bool,
        doc(
            "Verify reference entries against scholarly indexes for users who switched it on "
            "(`PATCH /v1/me/preferences`); only entry fields (identifiers, title, first author, "
            "year) leave the server."
        ),
    ] = False
    indexes: Annotated[
        str,
        doc(
            "Indexes asked, in order, comma-separated (`crossref`, `openalex`); empty: only the "
            "imported Retraction Watch data (no network at all)."
        ),
    ] = DEFAULT_INDEXES
    openalex_url: Annotated[str, doc("Base URL of the OpenAlex-compatible API.")] = (
        DEFAULT_OPENALEX_URL
    )
    crossref_url: Annotated[str, doc("Base URL of the Crossref-compatible REST API.")] = (
        DEFAULT_CROSSREF_URL
    )
    email: Annotated[
        str,
        doc("Contact e-mail sent with every request (`mailto`: the indexes' polite pools)."),
    ] = ""
    requests_per_s: Annotated[
        float, doc("Most requests per second to one index, per retriever process.", gt=0)
    ] = DEFAULT_REQUESTS_PER_S
    in_flight: Annotated[int, doc("Most requests in flight to one index at once.", ge=1)] = (
        DEFAULT_IN_FLIGHT
    )
    timeout_s: Annotated[float, doc("Timeout of one request.", gt=0)] = DEFAULT_TIMEOUT_S
    max_wait_s: Annotated[
        float,
        doc(
            "A run waits for its lookups at most this long after planning; entries still "
            "unanswered are reported `not looked up`.",
            gt=0,
        ),
    ] = DEFAULT_MAX_WAIT_S
    cache_ttl_s: Annotated[
        float,
        doc("An index's cached answer (shared by all users) is asked again after this.", gt=0),
    ] = DEFAULT_CACHE_TTL_S
    max_response_bytes: Annotated[
        int, doc("Larger answers are refused unread (a hostile or broken server).", ge=1024)
    ] = DEFAULT_MAX_RESPONSE_BYTES
    max_retries: Annotated[
        int, doc("Retries of a request that met a server error or a timeout.", ge=0)
    ] = DEFAULT_MAX_RETRIES
    backoff_base_s: Annotated[
        float, doc("First retry delay (doubles per retry, jittered).", ge=0)
    ] = DEFAULT_BACKOFF_BASE_S
    backoff_max_s: Annotated[
        float, doc("Longest retry delay, and longest `Retry-After` honoured per wait.", ge=0)
    ] = DEFAULT_BACKOFF_MAX_S
    host_failures: Annotated[
        int, doc("Failed requests in a row after which an index counts as unreachable.", ge=1)
    ] = DEFAULT_HOST_FAILURES
    host_down_s: Annotated[
        float, doc("How long an unreachable index is not asked before it is tried again.", ge=0)
    ] = DEFAULT_HOST_DOWN_S
    search_rows: Annotated[int, doc("Candidates asked for per title search.", ge=1, le=20)] = (
        DEFAULT_SEARCH_ROWS
    )
    max_entries: Annotated[int, doc("Most reference entries one run verifies.", ge=1)] = (
        DEFAULT_MAX_ENTRIES
    )
    allow_private_hosts: Annotated[
        bool,
        doc(
            "Follow an index's redirects to loopback and private addresses too (tests and "
            "intranet mirrors; off, a redirect may not point into the server's network)."
        ),
    ] = False

    @property
    def index_order(self) -> tuple[str, ...]:
        return tuple(name.strip() for name in self.indexes.split(",") if name.strip())

    def base_url(self, index: str) -> str:
        return (self.openalex_url if index == OPENALEX else self.crossref_url).rstrip("/")

    def validate(self) -> VerifySettings:
        """Refuse settings that cannot work together (called at start-up)."""
        unknown = [name for name in self.index_order if name not in INDEX_NAMES]
        if unknown:
            raise SettingsError(
                f"CITEPROOF_VERIFY_INDEXES names unknown indexes {unknown}: use "
                f"{', '.join(INDEX_NAMES)} (or leave it empty for the offline retraction data)"
            )
        if len(set(self.index_order)) != len(self.index_order):
            raise SettingsError("CITEPROOF_VERIFY_INDEXES names an index twice")
        for index in self.index_order:
            url = self.base_url(index)
            if not url.startswith(("http://", "https://")):
                raise SettingsError(
                    f"CITEPROOF_VERIFY_{index.upper()}_URL must be an http(s) URL, not {url!r}"
                )
        if self.backoff_max_s < self.backoff_base_s:
            raise SettingsError(
                "CITEPROOF_VERIFY_BACKOFF_MAX_S must not be below CITEPROOF_VERIFY_BACKOFF_BASE_S"
            )
        if self.timeout_s >= self.max_wait_s:
            raise SettingsError(
                "CITEPROOF_VERIFY_TIMEOUT_S must be below CITEPROOF_VERIFY_MAX_WAIT_S: one "
                "request may not take the whole wait"
            )
        return self
