"""Where the library-inputs records live: the section `library_inputs` of
bench/results/extraction.json, written by `bench.library_inputs` (the API path) and
`bench._library_cli` (the `citeproof check` path), each leaving the rest of the file alone."""

from __future__ import annotations

import json
from pathlib import Path

from bench.common import RESULTS_DIR

RESULTS = RESULTS_DIR / "extraction.json"
SECTION = "library_inputs"


def merge_section(records: dict[str, dict], path: Path = RESULTS) -> Path:
    """Replace only `library_inputs` in extraction.json; other sections are not touched."""
    data = json.loads(path.read_text()) if path.exists() else {}
    data[SECTION] = records
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    return path


def merge_records(records: dict[str, dict], path: Path = RESULTS) -> Path:
    """Replace only these records of `library_inputs` (the `citeproof check` ones alone)."""
    data = json.loads(path.read_text()) if path.exists() else {}
    data.setdefault(SECTION, {}).update(records)
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    return path
