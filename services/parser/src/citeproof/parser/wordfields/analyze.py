"""Citation fields -> references and citations over the text the parser stored for the DOCX."""

from __future__ import annotations

import re
from typing import Any

from citeproof.contracts.thesis import Reference, ThesisAnalysis
from citeproof.library.csljson import csl_item_entry
from citeproof.parser.libraries.claims import ExplicitMarker, explicit_citations
from citeproof.parser.libraries.references import entry_reference
from citeproof.parser.wordfields.reader import CitationField

# Characters of the paragraph before a field used to find the field in the stored text.
ANCHOR_CHARS = 60
_LOCATOR_LABELS = {"page": "p.", "chapter": "ch.", "section": "sec.", "figure": "fig."}


def _identity(item: dict[str, Any]) -> str:
    """What stays the same for one library item across all fields of a document."""
    uris = item.get("uris") or item.get("uri") or []
    if isinstance(uris, str):
        uris = [uris]
    data = item.get("itemData") or {}
    if uris:
        return str(uris[0])
    for key in ("DOI", "title"):
        if data.get(key):
            return f"{key}:{str(data[key]).lower()}"
    return f"id:{item.get('id') or data.get('id')}"


def _pinpoint(item: dict[str, Any]) -> str | None:
    locator = str(item.get("locator") or "").strip()
    if not locator:
        return None
    label = _LOCATOR_LABELS.get(str(item.get("label") or "page"), str(item.get("label")))
    return f"{label} {locator}"


def _pattern(text: str) -> str:
    return r"\s*".join(re.escape(token) for token in text.split())


def _locate(text: str, field: CitationField, cursor: int) -> tuple[int, int] | None:
    """The field's result in `text` at or after `cursor`, anchored on the text before it."""
    result = field.result.strip()
    if not result:
        return None
    anchor = field.before[-ANCHOR_CHARS:].strip()
    for prefix in ([anchor] if anchor else []) + [""]:
        pattern = (_pattern(prefix) + r"\s*" if prefix else "") + f"({_pattern(result)})"
        match = re.compile(pattern).search(text, cursor)
        if match is not None:
            return match.start(1), match.end(1)
    return None


def field_analysis(
    text: str, page_starts: list[int], fields: list[CitationField]
) -> ThesisAnalysis:
    references: list[Reference] = []
    labels: dict[str, str] = {}
    used: set[str] = set()
    markers: list[ExplicitMarker] = []
    notes: list[str] = []
    cursor = 0
    for field in fields:
        keys: list[str] = []
        pinpoints: dict[str, str] = {}
        for item in field.citation.get("citationItems") or []:
            if not isinstance(item, dict) or not isinstance(item.get("itemData"), dict):
                continue
            identity = _identity(item)
            if identity not in labels:
                data = {k: v for k, v in item["itemData"].items() if k not in ("id",)}
                entry = csl_item_entry(data, used)
                labels[identity] = entry.key
                references.append(entry_reference(entry, len(references) + 1))
            keys.append(labels[identity])
            if (pinpoint := _pinpoint(item)) is not None:
                pinpoints[labels[identity]] = pinpoint
        span = _locate(text, field, cursor)
        if span is None:
            notes.append(
                f"A {field.plugin} citation field ({field.result!r}) was not found in the text."
            )
            continue
        cursor = span[1]
        markers.append(ExplicitMarker(start=span[0], end=span[1], labels=keys, pinpoints=pinpoints))
    plugins = sorted({field.plugin for field in fields})
    notes.insert(0, f"{len(markers)} citations read from {' and '.join(plugins)} citation fields.")
    return ThesisAnalysis(
        references=references,
        citations=explicit_citations(text, page_starts, markers),
        markers_found=len(markers),
        notes=notes,
    )
