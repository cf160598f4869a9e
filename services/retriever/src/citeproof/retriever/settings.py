"""Retriever settings. The fusion defaults were chosen on Check-COVID dev (bench/retrieval.py,
docs/adr/0008-retrieval.md); the others are reasoned defaults, noted where they are defined."""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

from citeproof.settings import Settings, SettingsError, doc

# Chunk candidates from each method before fusion: a source has tens to hundreds of chunks,
# and the evidence comes from the top few, so deeper lists only add noise to the fusion.
DEFAULT_VECTOR_TOP_K = 10
DEFAULT_BM25_TOP_K = 10
# Chunks whose sentences compete to become evidence.
DEFAULT_EVIDENCE_CHUNKS = 4
# With on-demand chunk embeddings (ADR 0022): the chunks of a source a claim's vector search
# ranks, the best of its BM25 ranking; a source with at most this many evidence chunks is
# ranked (and embedded) whole, as with embeddings at parse time. Chosen on the train split's
# real thesis (bench/e2e/real_thesis.py, three seeds of 171-172 claims over 64 sources of 10-40
# pages): depths 4-12 all retrieve better than ranking every chunk (recall@5 +0.03 to +0.11),
# 6 was best or tied in two seeds of three, and the embedding grows with the depth (6: about
# a ninth of the chunks embedded). ADR 0022 has the table.
DEFAULT_CANDIDATE_CHUNKS = 6
# Evidence passages handed to the judge per citation.
DEFAULT_EVIDENCE_PASSAGES = 5
# The constant of reciprocal rank fusion (Cormack et al. 2009 use 60).
DEFAULT_RRF_K = 60
# Trust in the vector signal relative to BM25; 0.8 with `weighted` fusion measured best on
# Check-COVID dev (docs/adr/0008-retrieval.md).
DEFAULT_VECTOR_WEIGHT = 0.8
# Retrieval embeds one query and a few sentences at a time: one intra-op thread is fastest for
# such small batches and, on a busy host, avoids torch's threads spinning against each other.
DEFAULT_EMBED_THREADS = 1
# Sentences shorter than this are glued to the next one: a bare "Results:" is no evidence.
DEFAULT_MIN_PASSAGE_CHARS = 40
# Passages are capped so one run-on "sentence" (a table row dump) cannot flood the judge.
DEFAULT_MAX_PASSAGE_CHARS = 1200
# A claim needs this many word tokens (markers removed) to be checkable at all.
DEFAULT_MIN_CLAIM_WORDS = 3
# A run waiting for documents looks again after this long even without the parser's nudge.
DEFAULT_PLAN_SNOOZE_S = 30.0
# Approximate memory the per-process document-index LRU may use.
DEFAULT_CACHE_BUDGET_MB = 512
DEFAULT_CACHE_TTL_S = 24 * 3600
# Open-access lookup (off unless enabled here AND switched on by the user; ADR 0020).
DEFAULT_OPEN_ACCESS_BASE_URL = "https://api.openalex.org"
# OpenAlex asks polite-pool clients for at most 10 requests/s; half of it leaves room for others
# sharing the address. Per retriever process.
DEFAULT_OPEN_ACCESS_REQUESTS_PER_S = 5.0
DEFAULT_OPEN_ACCESS_TIMEOUT_S = 20.0
# A thesis cites tens of works; a run never starts more lookups than this.
DEFAULT_OPEN_ACCESS_MAX_PER_RUN = 100
# Open-access status changes slowly (embargoes end): answers are re-asked after 30 days.
DEFAULT_OPEN_ACCESS_CACHE_TTL_S = 30 * 24 * 3600.0


class RetrieverSettings(Settings, frozen=True, kw_only=True):
    ENV_PREFIX: ClassVar[str] = "CITEPROOF_RETRIEVER_"

    vector_top_k: Annotated[
        int, doc("Chunks taken from the pgvector ranking of the source before fusion.", ge=1)
    ] = DEFAULT_VECTOR_TOP_K
    bm25_top_k: Annotated[
        int, doc("Chunks taken from the BM25 ranking of the source before fusion.", ge=1)
    ] = DEFAULT_BM25_TOP_K
    evidence_chunks: Annotated[
        int, doc("Top fused chunks whose sentences compete to become evidence.", ge=1)
    ] = DEFAULT_EVIDENCE_CHUNKS
    candidate_chunks: Annotated[
        int,
        doc("With on-demand chunk embeddings (CITEPROOF_EMBEDDINGS_CHUNKS=on_demand): the "
            "chunks of the cited source a claim's vector search ranks, the best of its BM25 "
            "ranking, embedded the first time any claim needs them; a source with at most "
            "this many evidence chunks is ranked whole.", ge=1),
    ] = DEFAULT_CANDIDATE_CHUNKS  # fmt: skip
    evidence_passages: Annotated[
        int, doc("Evidence passages (sentences) stored per citation for the judge.", ge=1)
    ] = DEFAULT_EVIDENCE_PASSAGES
    fusion: Annotated[
        Literal["rrf", "weighted"],
        doc(
            "How vector and BM25 rankings are combined: reciprocal rank fusion, or a weighted "
            "sum of min-max normalised scores."
        ),
    ] = "weighted"
    rrf_k: Annotated[int, doc("Constant k of reciprocal rank fusion (1/(k+rank)).", ge=1)] = (
        DEFAULT_RRF_K
    )
    vector_weight: Annotated[
        float,
        doc(
            "Weight of the vector signal in fusion (BM25 gets the rest; 0.5 with `rrf` is the "
            "classic unweighted RRF).",
            ge=0,
            le=1,
        ),
    ] = DEFAULT_VECTOR_WEIGHT
    use_context: Annotated[
        bool, doc("Add the sentence before the claim to the retrieval query.")
    ] = False
    min_passage_chars: Annotated[
        int, doc("Sentences shorter than this are merged with the next one.", ge=0)
    ] = DEFAULT_MIN_PASSAGE_CHARS
    max_passage_chars: Annotated[
        int, doc("Longest evidence passage; longer sentences are cut.", ge=80)
    ] = DEFAULT_MAX_PASSAGE_CHARS
    min_claim_words: Annotated[
        int, doc("Claims with fewer words (markers removed) are `not_checkable`.", ge=1)
    ] = DEFAULT_MIN_CLAIM_WORDS
    plan_snooze_s: Annotated[
        float,
        doc("A run waiting for documents re-checks after this long (the parser wakes it sooner).",
            gt=0),
    ] = DEFAULT_PLAN_SNOOZE_S  # fmt: skip
    embed_threads: Annotated[
        int,
        doc("torch intra-op threads of the local embedding model in a retriever process (0: "
            "torch's default).", ge=0),
    ] = DEFAULT_EMBED_THREADS  # fmt: skip
    cache_budget_mb: Annotated[
        int, doc("Approximate memory budget of the per-process document-index LRU.", ge=1)
    ] = DEFAULT_CACHE_BUDGET_MB
    cache_ttl_s: Annotated[
        float, doc("A cached document index is rebuilt after this long.", gt=0)
    ] = DEFAULT_CACHE_TTL_S
    open_access_enabled: Annotated[
        bool,
        doc("Look up open-access PDFs for cited references with a DOI and no uploaded PDF, "
            "for users who switched it on (`PATCH /v1/me/preferences`); a fetched PDF is "
            "parsed like an upload."),
    ] = False  # fmt: skip
    open_access_api: Annotated[
        Literal["openalex", "unpaywall"],
        doc("The lookup API's dialect: OpenAlex `GET {base}/works/doi:{doi}?mailto=` or "
            "Unpaywall `GET {base}/v2/{doi}?email=`."),
    ] = "openalex"  # fmt: skip
    open_access_base_url: Annotated[
        str, doc("Base URL of the OpenAlex- or Unpaywall-compatible API.")
    ] = DEFAULT_OPEN_ACCESS_BASE_URL
    open_access_email: Annotated[
        str,
        doc("Contact e-mail sent with every lookup (OpenAlex's polite pool; Unpaywall "
            "requires it)."),
    ] = ""  # fmt: skip
    open_access_requests_per_s: Annotated[
        float, doc("Most lookup and download requests per second, per retriever process.", gt=0)
    ] = DEFAULT_OPEN_ACCESS_REQUESTS_PER_S
    open_access_timeout_s: Annotated[float, doc("Timeout of one lookup or PDF download.", gt=0)] = (
        DEFAULT_OPEN_ACCESS_TIMEOUT_S
    )
    open_access_max_per_run: Annotated[int, doc("Most DOIs one run looks up.", ge=1)] = (
        DEFAULT_OPEN_ACCESS_MAX_PER_RUN
    )
    open_access_cache_ttl_s: Annotated[
        float, doc("A DOI's cached answer (PDF URL or none) is asked again after this long.", gt=0)
    ] = DEFAULT_OPEN_ACCESS_CACHE_TTL_S
    open_access_allow_private_hosts: Annotated[
        bool,
        doc("Download PDFs from loopback and private addresses too (tests and intranet "
            "mirrors; off, a PDF URL from the API may not point into the server's network)."),
    ] = False  # fmt: skip

    def __post_init__(self) -> None:
        if self.candidate_chunks < self.evidence_chunks:
            raise ValueError(
                f"candidate_chunks ({self.candidate_chunks}) must be at least evidence_chunks "
                f"({self.evidence_chunks}): the evidence comes from the best candidates"
            )

    number_not_in_source: Annotated[
        bool,
        doc("Report rule CP202 (a specific number of the claim stated nowhere in the source). "
            "Off: its false alarms on supported citations exceed 1% (docs/architecture.md)."),
    ] = False  # fmt: skip

    def validate(self) -> RetrieverSettings:
        """Refuse settings that cannot work together (called at start-up)."""
        if (
            self.open_access_enabled
            and self.open_access_api == "unpaywall"
            and not (self.open_access_email)
        ):
            raise SettingsError(
                "CITEPROOF_RETRIEVER_OPEN_ACCESS_EMAIL must be set: Unpaywall requires an e-mail "
                "with every request"
            )
        return self
