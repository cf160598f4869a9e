"""Write the sample thesis as Word documents whose citations are Zotero or Mendeley fields.

    .venv/bin/python samples/library/build_docx.py OUT_DIR     # writes zotero.docx, mendeley.docx

What the Zotero and Mendeley Word plugins store: every citation is a complex field whose code is
`ADDIN ZOTERO_ITEM CSL_CITATION {json}` (Zotero) or `ADDIN CSL_CITATION {json}` (Mendeley
Desktop) with the cited items' CSL JSON, and the reference list is one field
(`ADDIN ZOTERO_BIBL ... CSL_BIBLIOGRAPHY`, `ADDIN Mendeley Bibliography CSL_BIBLIOGRAPHY`)
spanning its paragraphs. The field code is split over several runs, as Word does.
"""

from __future__ import annotations

import json
import re
import sys
import uuid
from pathlib import Path

import docx
from docx.oxml import OxmlElement
from docx.oxml.ns import qn

HERE = Path(__file__).resolve().parent
THESIS = HERE.parent / "demo" / "thesis.md"
LIBRARY = HERE / "library.json"
# Reference number in the demo thesis -> citation key of the library.
KEYS = {
    "1": "kowalczyk2021",
    "2": "hofer2020",
    "3": "marchetti2022",
    "4": "aalto2023",
    "5": "vandijk2019",
    "6": "moreau2022",
    "7": "osei2024",
}
_MARKER = re.compile(r" \[([0-9,– ]+)\]")
# Every fourth citation carries a page locator, as "[4, p. 12]" / "(Aalto et al., 2023, p. 12)".
LOCATOR_EVERY = 4


def _numbers(inner: str) -> list[str]:
    numbers: list[str] = []
    for part in (p.strip() for p in inner.split(",")):
        if "–" in part:
            first, last = part.split("–")
            numbers += [str(n) for n in range(int(first), int(last) + 1)]
        else:
            numbers.append(part)
    return numbers


def _run(paragraph, *, text: str | None = None, fld: str | None = None, instr: str | None = None):
    run = paragraph.add_run()
    if fld is not None:
        element = OxmlElement("w:fldChar")
        element.set(qn("w:fldCharType"), fld)
        run._r.append(element)
    elif instr is not None:
        element = OxmlElement("w:instrText")
        element.set(qn("xml:space"), "preserve")
        element.text = instr
        run._r.append(element)
    elif text is not None:
        run.text = text
    return run


def _field(paragraph, code: str, result: str) -> None:
    _run(paragraph, fld="begin")
    middle = len(code) // 2
    _run(paragraph, instr=code[:middle])
    _run(paragraph, instr=code[middle:])
    _run(paragraph, fld="separate")
    _run(paragraph, text=result)
    _run(paragraph, fld="end")


def _author_year(item: dict) -> str:
    authors = item["author"]
    first = " ".join(filter(None, [authors[0].get("non-dropping-particle"), authors[0]["family"]]))
    year = item["issued"]["date-parts"][0][0]
    if len(authors) == 1:
        return f"{first}, {year}"
    if len(authors) == 2:
        return f"{first} and {authors[1]['family']}, {year}"
    return f"{first} et al., {year}"


def _mendeley_uuid(number: str) -> uuid.UUID:
    return uuid.uuid5(uuid.NAMESPACE_URL, f"mendeley-{number}")


def _citation(plugin: str, numbers: list[str], items: dict, locator: str | None) -> tuple[str, str]:
    cited = []
    for number in numbers:
        item = dict(items[KEYS[number]])
        if plugin == "zotero":
            entry = {
                "id": 1000 + int(number),
                "uris": [f"http://zotero.org/users/local/Xy12Ab/items/ITEM{number}ZZ"],
                "itemData": {**item, "id": 1000 + int(number)},
            }
        else:
            entry = {
                "id": f"ITEM-{len(cited) + 1}",
                "uris": [f"http://www.mendeley.com/documents/?uuid={_mendeley_uuid(number)}"],
                "itemData": {**item, "id": f"ITEM-{len(cited) + 1}"},
            }
        entry["itemData"].pop("citation-key", None)
        if locator is not None and number == numbers[-1]:
            entry["locator"], entry["label"] = locator, "page"
        cited.append(entry)
    if plugin == "zotero":
        shown = "[" + ", ".join(numbers) + (f", p. {locator}" if locator else "") + "]"
        payload = {
            "citationID": uuid.uuid5(uuid.NAMESPACE_URL, shown + str(numbers)).hex[:8],
            "properties": {"formattedCitation": shown, "plainCitation": shown, "noteIndex": 0},
            "citationItems": cited,
            "schema": "https://github.com/citation-style-language/schema/raw/master/csl-citation.json",
        }
        return f" ADDIN ZOTERO_ITEM CSL_CITATION {json.dumps(payload)} ", shown
    parts = [_author_year(items[KEYS[n]]) for n in numbers]
    shown = "(" + "; ".join(parts) + (f", p. {locator}" if locator else "") + ")"
    payload = {
        "citationItems": cited,
        "mendeley": {"formattedCitation": shown, "plainTextFormattedCitation": shown},
        "properties": {"noteIndex": 0},
        "schema": "https://github.com/citation-style-language/schema/raw/master/csl-citation.json",
    }
    return f"ADDIN CSL_CITATION {json.dumps(payload)}", shown


def build_docx(plugin: str, out: Path) -> Path:
    """The demo thesis with `plugin` ("zotero" or "mendeley") citation fields, written to out."""
    items = {item["citation-key"]: item for item in json.loads(LIBRARY.read_text())}
    body = THESIS.read_text().split("---", 2)[2]
    document = docx.Document()
    count = 0
    references: list[str] = []
    for block in (b.strip() for b in body.split("\n\n") if b.strip()):
        if block.startswith("# References"):
            references = [line for line in block.splitlines()[1:] if line.strip()]
            continue
        if block.startswith("# "):
            heading, _, block = block.partition("\n")
            document.add_heading(heading[2:], level=2)
            if not block.strip():
                continue
        paragraph = document.add_paragraph()
        cursor = 0
        for match in _MARKER.finditer(block):
            _run(paragraph, text=block[cursor : match.start()] + " ")
            count += 1
            locator = str(10 + count) if count % LOCATOR_EVERY == 0 else None
            code, shown = _citation(plugin, _numbers(match.group(1)), items, locator)
            _field(paragraph, code, shown)
            cursor = match.end()
        _run(paragraph, text=block[cursor:])
    document.add_heading("References", level=2)
    code = (
        ' ADDIN ZOTERO_BIBL {"uncited":[],"omitted":[],"custom":[]} CSL_BIBLIOGRAPHY '
        if plugin == "zotero"
        else "ADDIN Mendeley Bibliography CSL_BIBLIOGRAPHY "
    )
    for index, line in enumerate(references):
        paragraph = document.add_paragraph()
        if index == 0:
            _run(paragraph, fld="begin")
            _run(paragraph, instr=code)
            _run(paragraph, fld="separate")
        _run(paragraph, text=line)
        if index == len(references) - 1:
            _run(paragraph, fld="end")
    out.parent.mkdir(parents=True, exist_ok=True)
    document.save(out)
    return out


def main(argv: list[str]) -> int:
    out_dir = Path(argv[0]) if argv else Path("artifacts/library")
    for plugin in ("zotero", "mendeley"):
        print(build_docx(plugin, out_dir / f"{plugin}.docx"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
