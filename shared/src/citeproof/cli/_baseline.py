"""`--write-baseline FILE` / `--baseline FILE`: a thesis repository's CI fails only on new
findings and verdicts, the convention of ruff, mypy and eslint.

The file records the fingerprint (citeproof.contracts.findings.fingerprint: the rule code or
verdict label, the citing sentence and marker or the entry's text, and the finding's key -
never page numbers, ordinals or other text) of every finding and every problem verdict of a
run, with how many times each occurs, plus enough text to read it in a diff. Checking against
it: the first N occurrences of a fingerprint the file counts N times are "unchanged", the rest
"new" (so a second copy of a baselined misquotation is still caught). Entries the run no
longer shows are counted as fixed. A file that is not a citeproof baseline, or one written
under another fingerprint version, is refused with a sentence saying so: matching it would
silently fail or pass everything.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from citeproof.contracts.findings import FINGERPRINT_VERSION

# Bump on an incompatible change of the file's layout.
BASELINE_FORMAT = 1
TOOL_NAME = "citeproof"
# Enough of the subject to recognise it in a review of the file.
SUBJECT_CHARS = 100


class BaselineError(ValueError):
    """A baseline file that cannot be used; the message says why and what to do."""


class Fingerprinted(Protocol):
    @property
    def fingerprint(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def subject(self) -> str: ...


@dataclass(frozen=True)
class Baseline:
    path: Path
    counts: Counter[str]

    @property
    def total(self) -> int:
        return sum(self.counts.values())


@dataclass(frozen=True)
class Comparison:
    # Indexes (into the items compared) of those the baseline covers.
    baselined: frozenset[int]
    # Baseline entries (with multiplicity) that no item matched: fixed, or changed.
    absent: int


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= SUBJECT_CHARS else text[: SUBJECT_CHARS - 1] + "…"


def write_baseline(path: Path, items: Iterable[Fingerprinted], thesis: str, version: str) -> int:
    """Write every item's fingerprint; returns how many items it holds."""
    counts: Counter[str] = Counter()
    described: dict[str, dict] = {}
    for item in items:
        counts[item.fingerprint] += 1
        described.setdefault(item.fingerprint, {"name": item.name, "subject": _short(item.subject)})
    entries = [
        {"fingerprint": fp, "count": counts[fp], **described[fp]}
        for fp in sorted(counts, key=lambda fp: (described[fp]["name"], fp))
    ]
    document = {
        "tool": TOOL_NAME,
        "baseline_format": BASELINE_FORMAT,
        "fingerprint_version": FINGERPRINT_VERSION,
        "written_by": f"{TOOL_NAME} {version}",
        "thesis": thesis,
        "entries": entries,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return sum(counts.values())


def _malformed(path: Path, why: str) -> BaselineError:
    return BaselineError(
        f"{path}: not a citeproof baseline ({why}); write one with --write-baseline {path}"
    )


def read_baseline(path: Path) -> Baseline:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BaselineError(
            f"{path}: no such baseline file; create it with --write-baseline {path}"
        ) from None
    except OSError as exc:
        raise BaselineError(f"{path}: cannot read the baseline ({exc.strerror or exc})") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise _malformed(path, f"not JSON: {exc}") from None
    if not isinstance(document, dict) or document.get("tool") != TOOL_NAME:
        raise _malformed(path, f'no "tool": "{TOOL_NAME}"')
    if document.get("baseline_format") != BASELINE_FORMAT:
        raise BaselineError(
            f"{path}: baseline format {document.get('baseline_format')!r}, this citeproof "
            f"reads format {BASELINE_FORMAT}; rewrite it with --write-baseline {path}"
        )
    if document.get("fingerprint_version") != FINGERPRINT_VERSION:
        raise BaselineError(
            f"{path}: stale baseline: written with fingerprint version "
            f"{document.get('fingerprint_version')!r} ({document.get('written_by', 'unknown')}), "
            f"this citeproof fingerprints with version {FINGERPRINT_VERSION}, so none of its "
            f"entries could match; rewrite it with --write-baseline {path} (and review what "
            "it then accepts)"
        )
    entries = document.get("entries")
    if not isinstance(entries, list):
        raise _malformed(path, 'no "entries" list')
    counts: Counter[str] = Counter()
    for number, entry in enumerate(entries, 1):
        fingerprint = entry.get("fingerprint") if isinstance(entry, dict) else None
        count = entry.get("count", 1) if isinstance(entry, dict) else None
        if not isinstance(fingerprint, str) or not fingerprint:
            raise _malformed(path, f"entry {number} has no fingerprint")
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise _malformed(path, f"entry {number} has a count that is not a positive integer")
        counts[fingerprint] += count
    return Baseline(path, counts)


def compare(items: Sequence[Fingerprinted], baseline: Baseline) -> Comparison:
    """Which items the baseline covers (in order, up to each fingerprint's count)."""
    left = Counter(baseline.counts)
    covered = set()
    for index, item in enumerate(items):
        if left[item.fingerprint] > 0:
            left[item.fingerprint] -= 1
            covered.add(index)
    return Comparison(frozenset(covered), sum(left.values()))
