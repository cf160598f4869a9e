"""`citeproof check --bib`: the user's reference-manager library and the PDFs it attaches.

The library export goes up as the `bibliography` upload kind (the server links citations through
its keys, DOIs and attachments); the PDFs its entries attach are found on this machine -
relative to the export (Zotero's `files/<n>/<name>.pdf` layout), by file name in
`--attachments` folders, or at absolute Zotero storage paths, which only a check running on the
user's own machine follows - and go up as sources. An attachment that is not on disk is reported
for its entry and the check goes on without it.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from citeproof.library import LibraryFormatError
from citeproof.library.local import LIBRARY_SUFFIXES, LocalLibrary, load_local_library
from citeproof.pipeline import MAX_FILE_BYTES

# Files that are a library when named as a source argument (a `.json` could be anything).
UNAMBIGUOUS_LIBRARY_SUFFIXES = frozenset({".bib", ".bibtex", ".ris", ".rdf"})
# Zotero's "Export Collection… with Files" puts the attachments in this folder beside the export.
ZOTERO_FILES_FOLDER = "files"
# What a LaTeX project folder contributes to the zip the server reads (sources, not outputs).
LATEX_PROJECT_SUFFIXES = frozenset({".tex", ".bib", ".sty", ".cls", ".bst", ".bbx", ".cbx"})
FORMAT_NAMES = {"bibtex": "BibTeX", "ris": "RIS", "csl-json": "CSL JSON",
                "zotero-rdf": "Zotero RDF"}  # fmt: skip


class LibraryUsageError(Exception):
    pass


@dataclass
class LibraryInputs:
    """What the libraries add to a check: exports to upload and the PDFs they attach."""

    libraries: list[LocalLibrary] = field(default_factory=list)
    # LaTeX projects' own .bib files: read for their attachments only (the zip carries them).
    project_libraries: list[LocalLibrary] = field(default_factory=list)

    @property
    def exports(self) -> list[Path]:
        return list(dict.fromkeys(lib.path.resolve() for lib in self.libraries))

    @property
    def pdfs(self) -> list[Path]:
        found = [p for lib in (*self.libraries, *self.project_libraries) for p in lib.pdfs]
        return list(dict.fromkeys(p.resolve() for p in found))

    def report(self, say: Callable[[str], None]) -> None:
        """One line per library, one per unreadable entry and per entry whose file is missing."""
        for lib in (*self.libraries, *self.project_libraries):
            name = lib.path.name
            attached = sum(1 for e in lib.entries if e.wanted)
            found = sum(1 for e in lib.entries if e.found is not None)
            kind = FORMAT_NAMES.get(lib.library.format, lib.library.format)
            say(
                f"library {name} ({kind}): {len(lib.library.entries)} entries, "
                f"{found} of {attached} attached PDFs found"
            )
            for problem in lib.library.problems:
                say(f"  {name}, {problem.describe()}")
            for entry in lib.missing:
                files = ", ".join(entry.wanted)
                say(f"  {name}: {entry.key}: attachment not found ({files}); checked without it")


def is_export_folder(path: Path) -> bool:
    """A Zotero "Export Collection… with Files" folder: one library file at its top, and a
    `files/` folder beside it (or a .bib/.ris/.rdf alone, which only an export writes)."""
    if not path.is_dir():
        return False
    top = [p for p in path.iterdir() if p.is_file() and p.suffix.lower() in LIBRARY_SUFFIXES]
    if len(top) != 1:
        return False
    return (path / ZOTERO_FILES_FOLDER).is_dir() or top[0].suffix.lower() in (
        UNAMBIGUOUS_LIBRARY_SUFFIXES
    )


def is_library_file(path: Path) -> bool:
    return path.is_file() and path.suffix.lower() in UNAMBIGUOUS_LIBRARY_SUFFIXES


def load(
    paths: list[Path], attachment_dirs: list[Path], *, allow_absolute: bool = True
) -> list[LocalLibrary]:
    """Read each library (a file or an export folder) and find its attachments."""
    for folder in attachment_dirs:
        if not folder.is_dir():
            raise LibraryUsageError(f"--attachments {folder}: no such folder")
    libraries = []
    for path in paths:
        if not path.exists():
            raise LibraryUsageError(f"{path}: no such file or folder")
        if path.is_file() and path.stat().st_size > MAX_FILE_BYTES:
            raise LibraryUsageError(
                f"{path}: {path.stat().st_size} bytes, over the {MAX_FILE_BYTES} byte file cap"
            )
        try:
            local = load_local_library(path, tuple(attachment_dirs), allow_absolute=allow_absolute)
        except LibraryFormatError as exc:
            where = f" (line {exc.line})" if exc.line else ""
            raise LibraryUsageError(f"{path}{where}: {exc.message}") from None
        if not local.library.entries:
            # The server would refuse it (malformed_bibliography): say so before starting.
            problems = "; ".join(p.describe() for p in local.library.problems[:3])
            raise LibraryUsageError(
                f"{local.path}: no entry could be read ({problems or 'it holds no entries'}); "
                "export your library as BibTeX (.bib), RIS (.ris), CSL JSON or Zotero RDF"
            )
        libraries.append(local)
    return libraries


def project_libraries(thesis: Path, attachment_dirs: list[Path]) -> list[LocalLibrary]:
    """The .bib files of a LaTeX thesis's project folder, for the PDFs their entries attach."""
    if thesis.is_dir():
        bibs = sorted(thesis.rglob("*.bib"))
    elif thesis.suffix.lower() == ".tex":
        # A lone .tex: only its own folder (it may sit in a folder of everything).
        bibs = sorted(thesis.parent.glob("*.bib"))
    else:
        return []
    libraries = []
    for bib in bibs:
        try:
            libraries.append(load_local_library(bib, tuple(attachment_dirs)))
        except LibraryFormatError:
            continue  # the server reports the project's own .bib problems with the thesis
    return libraries


def zip_latex_project(folder: Path, into: Path) -> Path:
    """A LaTeX project folder as the `.zip` the server reads (its sources only, no PDFs),
    written into the folder `into`."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.rglob("*")):
            relative = path.relative_to(folder)
            hidden = any(part.startswith(".") for part in relative.parts)
            if path.is_file() and not hidden and path.suffix.lower() in LATEX_PROJECT_SUFFIXES:
                archive.write(path, relative.as_posix())
    if not any(name.endswith(".tex") for name in zipfile.ZipFile(buffer).namelist()):
        raise LibraryUsageError(f"{folder}: no .tex file in this folder")
    # The upload is named after the folder.
    target = into / f"{folder.resolve().name}.zip"
    target.write_bytes(buffer.getvalue())
    return target
