"""Prometheus metrics of judge backends (one process per container, default registry)."""

from __future__ import annotations

from prometheus_client import Counter, Histogram

REQUESTS = Counter(
    "citeproof_judge_requests_total",
    "Requests to a judge backend (for `llm`: each HTTP request, retries included), by outcome.",
    ["backend", "outcome"],
)
REQUEST_SECONDS = Histogram(
    "citeproof_judge_request_seconds",
    "Duration of one judge backend request.",
    ["backend"],
    buckets=(0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 40, 80, 160),
)
TOKENS = Counter(
    "citeproof_judge_tokens_total",
    "Tokens used by a judge backend, as reported by the API's `usage`.",
    ["backend", "kind"],
)
VERDICTS = Counter(
    "citeproof_judge_verdicts_total",
    "Verdicts recorded by the judge stage, by label (needs_review: the judge could not decide) "
    "and backend; cached verdicts included.",
    ["label", "backend"],
)
