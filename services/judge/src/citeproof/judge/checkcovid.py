"""Moved to `citeproof.devkit.checkcovid`; this name stays only until the last benchmarks import
the new one."""

from citeproof.devkit.checkcovid import (
    LABEL_OF,
    Abstract,
    load_claims,
    load_corpus,
    retrieved_passages,
    unique_claim_pairs,
)

__all__ = [
    "LABEL_OF",
    "Abstract",
    "load_claims",
    "load_corpus",
    "retrieved_passages",
    "unique_claim_pairs",
]
