"""Zotero RDF, the default format of Zotero's "Export Collection…" (with *Export Files*: every
attachment is a `z:Attachment` whose `rdf:resource` is its path under `files/`).

Items are the top-level resources with a `z:itemType` other than attachment and note; their
attachments are linked by `link:link`. Zotero RDF has no citation keys: author+year keys are
generated. The parser is the standard library's (no DTDs or external entities are fetched;
parsing runs in the parser's sandboxed child like every upload).
"""

from __future__ import annotations

from xml.etree import ElementTree

from citeproof.library.fields import clean_doi, generated_key, parse_year
from citeproof.library.model import (
    ZOTERO_RDF,
    Attachment,
    Library,
    LibraryEntry,
    LibraryFormatError,
    LibraryProblem,
)

RDF = "{http://www.w3.org/1999/02/22-rdf-syntax-ns#}"
Z = "{http://www.zotero.org/namespaces/export#}"
DC = "{http://purl.org/dc/elements/1.1/}"
DCTERMS = "{http://purl.org/dc/terms/}"
BIB = "{http://purl.org/net/biblio#}"
FOAF = "{http://xmlns.com/foaf/0.1/}"
LINK = "{http://purl.org/rss/1.0/modules/link/}"
# Item types that are not works.
_NOT_WORKS = ("attachment", "note")


def _text(element: ElementTree.Element | None) -> str | None:
    if element is None:
        return None
    value = "".join(element.itertext()).strip()
    return value or None


def _surnames(item: ElementTree.Element) -> list[str]:
    # An Element with no children is falsy: compare with None, never use `or`.
    authors = item.find(f"{BIB}authors")
    if authors is None:
        authors = item.find(f"{BIB}editors")
    if authors is None:
        return []
    names = []
    for person in authors.iter():
        if person.tag == f"{FOAF}Person":
            surname = _text(person.find(f"{FOAF}surname"))
            if surname:
                names.append(surname)
        elif person.tag == f"{FOAF}Organization":
            name = _text(person.find(f"{FOAF}name"))
            if name:
                names.append(name)
    return names


def _doi(item: ElementTree.Element) -> str | None:
    for identifier in item.findall(f"{DC}identifier"):
        doi = clean_doi(_text(identifier))
        if doi:
            return doi
    return clean_doi(item.get(f"{RDF}about"))


def _venue(item: ElementTree.Element, resources: dict[str, ElementTree.Element]) -> str | None:
    part = item.find(f"{DCTERMS}isPartOf")
    if part is None:
        return None
    target = resources.get(part.get(f"{RDF}resource") or "")
    container = target if target is not None else next(iter(part), None)
    return _text(container.find(f"{DC}title")) if container is not None else None


def _attachment(resource: ElementTree.Element) -> Attachment | None:
    path_element = resource.find(f"{RDF}resource")
    path = path_element.get(f"{RDF}resource") if path_element is not None else None
    if not path:
        return None
    return Attachment(
        path=path,
        mime=_text(resource.find(f"{LINK}type")),
        description=_text(resource.find(f"{DC}title")),
    )


def parse_zotero_rdf(text: str) -> Library:
    try:
        root = ElementTree.fromstring(text.encode("utf-8"))
    except ElementTree.ParseError as exc:
        line = exc.position[0] if exc.position else None
        raise LibraryFormatError(f"The Zotero RDF file is not valid XML ({exc}).", line) from None
    resources = {
        element.get(f"{RDF}about") or "": element for element in root if element.get(f"{RDF}about")
    }
    entries: list[LibraryEntry] = []
    problems: list[LibraryProblem] = []
    used: set[str] = set()
    for item in root:
        item_type = _text(item.find(f"{Z}itemType"))
        if item_type is None or item_type in _NOT_WORKS:
            continue
        authors = _surnames(item)
        year = parse_year(_text(item.find(f"{DC}date")))
        attachments = []
        for link in item.findall(f"{LINK}link"):
            target = resources.get(link.get(f"{RDF}resource") or "")
            attachment = _attachment(target) if target is not None else None
            if attachment is not None:
                attachments.append(attachment)
        title = _text(item.find(f"{DC}title"))
        if title is None:
            problems.append(LibraryProblem(line=None, message="an item without a title skipped"))
            continue
        entries.append(
            LibraryEntry(
                key=generated_key(authors, year, used),
                entry_type=item_type,
                title=title,
                authors=authors,
                year=year,
                doi=_doi(item),
                venue=_venue(item, resources),
                attachments=attachments,
            )
        )
    return Library(format=ZOTERO_RDF, entries=entries, problems=problems)
