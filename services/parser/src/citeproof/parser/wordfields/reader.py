"""Citation fields of a DOCX, in document order, with the text Word shows for each.

A field is either `w:fldSimple` (code in its `w:instr` attribute) or a complex field: runs
holding `w:fldChar begin`, the code in `w:instrText` pieces, `w:fldChar separate`, the shown
result, `w:fldChar end` (it may span paragraphs and nest). The reader walks the body once.
"""

from __future__ import annotations

import io
import json
import zipfile
from typing import Any
from xml.etree import ElementTree

import msgspec

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
CITATION_PREFIXES = ("ADDIN ZOTERO_ITEM", "ADDIN CSL_CITATION", "ADDIN MENDELEY CITATION")
BIBLIOGRAPHY_PREFIXES = ("ADDIN ZOTERO_BIBL", "ADDIN MENDELEY BIBLIOGRAPHY")
# A document.xml larger than this is not read for fields (the normal parse still runs).
MAX_DOCUMENT_XML_BYTES = 64 * 1024 * 1024


class CitationField(msgspec.Struct, frozen=True, kw_only=True):
    # "zotero" or "mendeley".
    plugin: str
    # The result text Word shows ("[3]", "(Smith et al., 2020)").
    result: str
    # Text of the paragraph before the field (to find the field in the parsed text).
    before: str
    # The decoded CSL citation: {"citationItems": [{"itemData": {...}, "locator": ...}, ...]}.
    citation: dict[str, Any]


class _Field:
    def __init__(self) -> None:
        self.code: list[str] = []
        self.result: list[str] = []
        self.in_result = False


def _decode(code: str) -> tuple[str, dict[str, Any]] | None:
    stripped = " ".join(code.split())
    upper = stripped.upper()
    if not upper.startswith(CITATION_PREFIXES):
        return None
    start, end = code.find("{"), code.rfind("}")
    if start < 0 or end <= start:
        return None
    try:
        data = json.loads(code[start : end + 1])
    except json.JSONDecodeError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("citationItems"), list):
        return None
    plugin = "zotero" if "ZOTERO" in upper else "mendeley"
    return plugin, data


def _paragraph_fields(
    paragraph: ElementTree.Element, stack: list[_Field]
) -> list[tuple[str, str, str]]:
    """(code, result, text before) of every field closed in this paragraph."""
    text: list[str] = []
    closed: list[tuple[str, str, str]] = []
    starts: dict[int, int] = {}

    def add_text(value: str) -> None:
        text.append(value)
        if stack and stack[-1].in_result:
            stack[-1].result.append(value)

    for element in paragraph.iter():
        tag = element.tag
        if tag == f"{W}fldSimple":
            code = element.get(f"{W}instr") or ""
            result = "".join(t.text or "" for t in element.iter(f"{W}t"))
            closed.append((code, result, "".join(text)))
            add_text(result)
        elif tag == f"{W}fldChar":
            kind = element.get(f"{W}fldCharType")
            if kind == "begin":
                stack.append(_Field())
                starts[id(stack[-1])] = len("".join(text))
            elif kind == "separate" and stack:
                stack[-1].in_result = True
            elif kind == "end" and stack:
                field = stack.pop()
                result = "".join(field.result)
                before = "".join(text)
                before = before[: len(before) - len(result)] if before.endswith(result) else before
                closed.append(("".join(field.code), result, before))
                if stack and stack[-1].in_result:
                    stack[-1].result.append(result)
        elif tag == f"{W}instrText" and stack and not stack[-1].in_result:
            stack[-1].code.append(element.text or "")
        elif tag == f"{W}t" and not _inside_simple(element, paragraph):
            add_text(element.text or "")
        elif tag == f"{W}tab":
            add_text("\t")
    return closed


def _inside_simple(element: ElementTree.Element, paragraph: ElementTree.Element) -> bool:
    # ElementTree has no parent pointers; fldSimple text is rare, so a scan is cheap enough.
    for simple in paragraph.iter(f"{W}fldSimple"):
        if any(child is element for child in simple.iter(f"{W}t")):
            return True
    return False


def read_citation_fields(data: bytes) -> list[CitationField]:
    """Every Zotero/Mendeley citation field of the body, in order; [] when there are none."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            info = archive.getinfo("word/document.xml")
            if info.file_size > MAX_DOCUMENT_XML_BYTES:
                return []
            root = ElementTree.fromstring(archive.read(info))
    except (KeyError, zipfile.BadZipFile, ElementTree.ParseError, OSError, ValueError):
        return []
    body = root.find(f"{W}body")
    if body is None:
        return []
    fields: list[CitationField] = []
    stack: list[_Field] = []
    for paragraph in body.iter(f"{W}p"):
        for code, result, before in _paragraph_fields(paragraph, stack):
            decoded = _decode(code)
            if decoded is not None:
                plugin, citation = decoded
                fields.append(
                    CitationField(plugin=plugin, result=result, before=before, citation=citation)
                )
    return fields
