"""Moved to `citeproof.devkit.library_run`; this name stays only until the last importers (the
library-inputs benchmark) import the new one."""

from citeproof.devkit.library_run import (
    CITATION_LINKS,
    CLAIM_PREFIX,
    DEMO,
    KEYS,
    LIBRARY,
    NUMBERS,
    Case,
    Outcome,
    build_docx,
    cases,
    expected_links,
    latex_zip,
    new_user_headers,
    run_case,
    score,
    services,
)

__all__ = [
    "CITATION_LINKS",
    "CLAIM_PREFIX",
    "DEMO",
    "KEYS",
    "LIBRARY",
    "NUMBERS",
    "Case",
    "Outcome",
    "build_docx",
    "cases",
    "expected_links",
    "latex_zip",
    "new_user_headers",
    "run_case",
    "score",
    "services",
]
