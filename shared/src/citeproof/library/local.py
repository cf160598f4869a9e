"""A library on the user's own machine, for `citeproof check --bib`: the export file (or a
Zotero "Export Collection… with Files" folder) and the attached PDFs it names, found on disk.

Paths are looked for relative to the export (Zotero's `files/<n>/<name>.pdf` layout), by file
name in extra folders (`--attachments DIR`), and - this being the user's own check of their own
files - at absolute Zotero storage paths. A server never does the last (see `attachments`).
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from citeproof.library import Library, LibraryFormatError, parse_library
from citeproof.library.attachments import find_local_attachment

LIBRARY_SUFFIXES = (".bib", ".bibtex", ".ris", ".json", ".rdf")


class EntryFiles(msgspec.Struct, frozen=True, kw_only=True):
    key: str
    # The first attached PDF found on disk; None when none of `wanted` exists.
    found: Path | None
    wanted: list[str]


class LocalLibrary(msgspec.Struct, frozen=True, kw_only=True):
    path: Path
    library: Library
    entries: list[EntryFiles]

    @property
    def pdfs(self) -> list[Path]:
        """Every PDF to upload, once each (a PDF attached to two entries is one upload)."""
        return list(dict.fromkeys(e.found for e in self.entries if e.found is not None))

    @property
    def missing(self) -> list[EntryFiles]:
        return [e for e in self.entries if e.found is None and e.wanted]


def library_file(argument: Path) -> Path:
    """The export itself, or the one library file at the top of an export folder."""
    if argument.is_file():
        return argument
    if not argument.is_dir():
        raise LibraryFormatError(f"{argument} does not exist.")
    candidates = sorted(p for p in argument.iterdir() if p.suffix.lower() in LIBRARY_SUFFIXES)
    if len(candidates) != 1:
        found = ", ".join(p.name for p in candidates) or "none"
        raise LibraryFormatError(
            f"{argument} should hold exactly one .bib, .ris or CSL .json export (found: "
            f"{found}); in Zotero use Export Collection… with the BibTeX, RIS or CSL JSON format."
        )
    return candidates[0]


def load_local_library(
    argument: Path, attachment_dirs: tuple[Path, ...] = (), *, allow_absolute: bool = True
) -> LocalLibrary:
    path = library_file(argument)
    library = parse_library(path.read_text(encoding="utf-8", errors="replace"), path.name)
    entries = []
    for entry in library.entries:
        wanted = [a.path for a in entry.attachments if a.is_pdf]
        found = None
        for attachment in wanted:
            found = find_local_attachment(
                attachment, path.parent, attachment_dirs, allow_absolute=allow_absolute
            )
            if found is not None:
                break
        entries.append(EntryFiles(key=entry.key, found=found, wanted=wanted))
    return LocalLibrary(path=path, library=library, entries=entries)
