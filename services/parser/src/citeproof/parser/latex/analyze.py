"""A LaTeX thesis (one .tex or a zipped project) to a parsed document with exact citations."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from citeproof.contracts.thesis import LATEX_TYPE, Reference, ThesisAnalysis
from citeproof.library import LibraryEntry, LibraryFormatError, parse_library
from citeproof.parser.errors import EMPTY_DOCUMENT, ParseFailure
from citeproof.parser.latex.bibitems import bibitem_references
from citeproof.parser.latex.project import Project, flatten, load_project
from citeproof.parser.latex.text import latex_text
from citeproof.parser.libraries.claims import explicit_citations
from citeproof.parser.libraries.references import library_references
from citeproof.parser.metadata import DocumentMeta
from citeproof.parser.parsed import ParsedDocument
from citeproof.parser.settings import ParserSettings

_LATEX_SUFFIXES = (".tex", ".ltx")
_LATEX_SIGNALS = re.compile(rb"\\(?:documentclass|begin\s*\{document\}|section\*?\{|cite[pt]?\{)")
_BIB_RESOURCES = re.compile(r"\\(?:bibliography|addbibresource)\s*(?:\[[^\]]*\])?\{([^}]+)\}")
_TITLE = re.compile(r"\\title\s*(?:\[[^\]]*\])?\{((?:[^{}]|\{[^{}]*\})*)\}")


def is_latex(data: bytes, filename: str) -> bool:
    """A .tex file, a text file that reads as LaTeX, or a ZIP holding .tex files (not a DOCX)."""
    if data.startswith(b"PK\x03\x04"):
        head = data[: 1 << 20]
        return b".tex" in head and b"word/document.xml" not in head
    if PurePosixPath(filename or "").suffix.lower() in _LATEX_SUFFIXES:
        return True
    return len(_LATEX_SIGNALS.findall(data[: 1 << 16])) >= 2


def _bib_files(project: Project) -> list[str]:
    """The .bib files the thesis names (in order), else every .bib of the project."""
    named: list[str] = []
    base = PurePosixPath(project.main).parent
    for text in project.files.values():
        for match in _BIB_RESOURCES.finditer(text):
            for name in match.group(1).split(","):
                name = name.strip()
                for candidate in (name, f"{name}.bib"):
                    path = (base / candidate).as_posix()
                    if path in project.files and path not in named and path.endswith(".bib"):
                        named.append(path)
    return named or sorted(n for n in project.files if n.lower().endswith(".bib"))


def _entries(project: Project, notes: list[str]) -> list[LibraryEntry]:
    entries: list[LibraryEntry] = []
    seen: set[str] = set()
    for name in _bib_files(project):
        try:
            library = parse_library(project.files[name], name)
        except LibraryFormatError as exc:
            notes.append(f"{name}: {exc.message}")
            continue
        notes.extend(f"{name}, {problem.describe()}" for problem in library.problems)
        for entry in library.entries:
            if entry.key not in seen:
                seen.add(entry.key)
                entries.append(entry)
    return entries


def _key_only(key: str, ordinal: int) -> Reference:
    """A cited key with no entry in the upload: linked later through an uploaded library."""
    return Reference(ordinal=ordinal, label=key, raw=key, char_start=0, char_end=len(key))


def _title(project: Project) -> str | None:
    match = _TITLE.search(project.files[project.main])
    if match is None:
        return None
    from citeproof.library.bibtex import latex_to_text

    return latex_to_text(match.group(1)) or None


def parse_latex_thesis(data: bytes, filename: str, settings: ParserSettings) -> ParsedDocument:
    project = load_project(data, filename, settings.max_unzipped_bytes)
    notes: list[str] = []
    lines = flatten(project, notes)
    text, markers = latex_text(lines)
    if not text.strip():
        raise ParseFailure(EMPTY_DOCUMENT, "The LaTeX document contains no text.")
    references = library_references(_entries(project, notes))
    known = {reference.label for reference in references}
    # Keys the .bib files do not have: a hand-written thebibliography, or BibTeX's .bbl.
    bibliographies = "\n".join(
        ["\n".join(line.text for line in lines)]
        + [content for name, content in sorted(project.files.items()) if name.endswith(".bbl")]
    )
    references += bibitem_references(bibliographies, len(references) + 1, known)
    cited = dict.fromkeys(label for marker in markers for label in marker.labels)
    missing = [key for key in cited if key not in known]
    references += [_key_only(key, len(references) + i + 1) for i, key in enumerate(missing)]
    if missing:
        notes.append(
            f"{len(missing)} cited keys have no entry in the uploaded .bib files "
            f"({', '.join(missing[:5])}{', ...' if len(missing) > 5 else ''}); upload the "
            "bibliography to link them."
        )
    page_starts = [0]
    analysis = ThesisAnalysis(
        references=references,
        # A LaTeX source has no pages: citations carry their file and line instead.
        citations=explicit_citations(text, [], markers),
        markers_found=len(markers),
        notes=notes,
    )
    return ParsedDocument(
        detected_type=LATEX_TYPE,
        pages=1,
        text=text,
        page_starts=page_starts,
        chunks=[],
        meta=DocumentMeta(title=_title(project)),
        notes=[f"LaTeX project: main file {project.main}, {len(project.files)} text files."],
        analysis=analysis,
    )
