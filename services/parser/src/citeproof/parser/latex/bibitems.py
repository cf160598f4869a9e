"""`thebibliography` lists (`\\bibitem{key} text`), written by hand or by BibTeX into a `.bbl`:
each item becomes a reference with its key and the fields the rendered-entry parser finds."""

from __future__ import annotations

import re

from citeproof.contracts.thesis import Reference
from citeproof.library.bibtex import latex_to_text
from citeproof.parser.thesis.fields import parse_entry
from citeproof.text.names import surname_of

# Bounded repetitions: hostile text full of unclosed "[" or "{" must stay linear to scan.
_BEGIN = re.compile(r"\\begin\s{0,20}\{thebibliography\}(?:\{[^}]{0,50}\})?")
_END = re.compile(r"\\end\s{0,20}\{thebibliography\}")
_ITEM = re.compile(r"\\bibitem\s{0,20}(?:\[[^\]]{0,300}\])?\s{0,20}\{([^}]{1,300})\}")
# BibTeX's .bbl markup between the fields of an item.
_BBL_NOISE = re.compile(r"\\newblock\b|\\(?:em|it|bf|sc)\b")


def _listings(source: str) -> list[str]:
    """The bodies of the thebibliography environments; an unclosed one runs to the end."""
    bodies: list[str] = []
    position = 0
    while (begin := _BEGIN.search(source, position)) is not None:
        end = _END.search(source, begin.end())
        bodies.append(source[begin.end() : end.start() if end else len(source)])
        if end is None:
            break
        position = end.end()
    return bodies


def bibitem_references(source: str, first_ordinal: int, known: set[str]) -> list[Reference]:
    """References for the `\\bibitem`s of `source` whose keys are not in `known`."""
    references: list[Reference] = []
    for body in _listings(source):
        items = list(_ITEM.finditer(body))
        for index, item in enumerate(items):
            key = item.group(1).strip()
            end = items[index + 1].start() if index + 1 < len(items) else len(body)
            if not key or key in known:
                continue
            known.add(key)
            raw = latex_to_text(_BBL_NOISE.sub(" ", body[item.end() : end]))
            fields = parse_entry(raw)
            references.append(
                Reference(
                    ordinal=first_ordinal + len(references),
                    label=key,
                    raw=raw,
                    authors=[s for s in (surname_of(a) for a in fields.authors) if s],
                    year=fields.year,
                    year_suffix=fields.year_suffix,
                    title=fields.title,
                    venue=fields.venue,
                    doi=fields.doi,
                    arxiv_id=fields.arxiv_id,
                    char_start=0,
                    char_end=len(raw),
                )
            )
    return references
