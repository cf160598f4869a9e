"""Word footnotes and endnotes: the mark in the text, the note's text beside it.

In a DOCX the body holds only the note's mark, a run with ``<w:footnoteReference w:id="7"/>``
(or ``w:endnoteReference``) and no text; the note itself sits in word/footnotes.xml or
word/endnotes.xml under that id, and Word prints its number by the order of the marks. Text
extraction sees no mark at all. Each mark is rewritten as the number Word shows, in Unicode
superscript digits (what the thesis analysis reads as a note or citation mark), and the notes are
returned by that number so that notes-bibliography theses (Chicago) cite through them.

Footnotes are numbered 1, 2, ... in the order of their marks, endnotes after the last footnote:
Word numbers endnotes separately (i, ii, ... by default), but one numbering keeps the two apart.
"""

from __future__ import annotations

import io
import zipfile

from citeproof.parser.superscripts import SUPERSCRIPT_DIGITS

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_BODY = "word/document.xml"
_PARTS = {"footnote": "word/footnotes.xml", "endnote": "word/endnotes.xml"}
# Separator and continuation notes are layout, not notes.
_LAYOUT_NOTE_TYPES = {"separator", "continuationSeparator", "continuationNotice"}


def _parse(xml: bytes):
    from lxml import etree

    # No entities, no network, no huge trees: the archive came from an upload.
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)
    return etree.fromstring(xml, parser=parser)


def _note_texts(root, kind: str) -> dict[str, str]:
    """Note id -> its text (paragraphs joined by a space)."""
    texts: dict[str, str] = {}
    for note in root.iter(f"{W}{kind}"):
        if note.get(f"{W}type") in _LAYOUT_NOTE_TYPES:
            continue
        paragraphs = []
        for paragraph in note.iter(f"{W}p"):
            pieces = []
            for element in paragraph.iter(f"{W}t", f"{W}tab"):
                pieces.append(element.text or "" if element.tag == f"{W}t" else " ")
            paragraphs.append("".join(pieces))
        text = " ".join(" ".join(paragraphs).split())
        note_id = note.get(f"{W}id")
        if note_id is not None and text:
            texts[note_id] = text
    return texts


def docx_with_note_marks(data: bytes) -> tuple[bytes, dict[int, str]]:
    """The DOCX with every footnote/endnote mark printed as its superscript number, and the
    notes by number (the file unchanged and no notes when it has none). The archive was checked
    for size bombs by the caller."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        names = set(archive.namelist())
        present = {kind: part for kind, part in _PARTS.items() if part in names}
        if _BODY not in names or not present:
            return data, {}
        texts = {
            kind: _note_texts(_parse(archive.read(part)), kind) for kind, part in present.items()
        }
        body = _parse(archive.read(_BODY))
        marks = {
            kind: [
                element
                for element in body.iter(f"{W}{kind}Reference")
                if element.get(f"{W}id") in texts[kind]
            ]
            for kind in present
        }
        if not any(marks.values()):
            return data, {}
        notes: dict[int, str] = {}
        for kind in ("footnote", "endnote"):
            for element in marks.get(kind, []):
                number = len(notes) + 1
                notes[number] = texts[kind][element.get(f"{W}id") or ""]
                # The mark becomes the text Word shows: the number, raised.
                shown = element.makeelement(f"{W}t", {})
                shown.text = str(number).translate(SUPERSCRIPT_DIGITS)
                element.getparent().replace(element, shown)
        from lxml import etree

        rewritten = etree.tostring(body, xml_declaration=True, encoding="UTF-8", standalone=True)
        output = io.BytesIO()
        with zipfile.ZipFile(output, "w", zipfile.ZIP_DEFLATED) as copy:
            for item in archive.infolist():
                content = rewritten if item.filename == _BODY else archive.read(item.filename)
                copy.writestr(item, content)
    return output.getvalue(), notes
