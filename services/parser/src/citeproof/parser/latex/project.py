"""The files of a LaTeX project and its source flattened through `\\input`/`\\include`."""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import PurePosixPath

import msgspec

from citeproof.parser.errors import ARCHIVE_BOMB, CORRUPT_FILE, ParseFailure
from citeproof.parser.sniff import decode_text

TEXT_SUFFIXES = (".tex", ".ltx", ".bib", ".bbl")
SOURCE_SUFFIXES = (".tex", ".ltx")
# `\input` nesting deeper than this is a cycle or an attack, not a thesis.
MAX_INCLUDE_DEPTH = 16
MAX_FILES = 2000
_COMMENT = re.compile(r"(?<!\\)%.*$")
_INCLUDE = re.compile(r"\\(?:input|include|subfile)\s*\{([^}]+)\}")
_DOCUMENTCLASS = re.compile(r"\\documentclass\b")
_BEGIN_DOCUMENT = re.compile(r"\\begin\s*\{document\}")


class Project(msgspec.Struct, frozen=True):
    # Project-relative POSIX path -> text, for .tex and .bib files.
    files: dict[str, str]
    main: str


class SourceLine(msgspec.Struct, frozen=True):
    text: str
    file: str
    line: int


def _safe_member(name: str) -> str | None:
    path = PurePosixPath(name.replace("\\", "/"))
    if path.is_absolute() or ".." in path.parts or name.endswith("/"):
        return None
    if path.suffix.lower() not in TEXT_SUFFIXES or any(
        p.startswith("__MACOSX") for p in path.parts
    ):
        return None
    return path.as_posix()


def _from_zip(data: bytes, max_unzipped_bytes: int) -> dict[str, str]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError, OSError) as exc:
        raise ParseFailure(CORRUPT_FILE, f"The ZIP archive cannot be opened ({exc}).") from None
    with archive:
        members = [(info, _safe_member(info.filename)) for info in archive.infolist()]
        members = [(info, name) for info, name in members if name is not None][:MAX_FILES]
        if sum(info.file_size for info, _ in members) > max_unzipped_bytes:
            raise ParseFailure(
                ARCHIVE_BOMB,
                f"The LaTeX project's text files would unpack to more than "
                f"{max_unzipped_bytes // (1024 * 1024)} MiB.",
            )
        files = {}
        for info, name in members:
            text = decode_text(archive.read(info))
            if text is not None:
                files[name] = text
    # A project zipped with its folder ("thesis/main.tex"): paths relative to that folder.
    roots = {PurePosixPath(name).parts[0] for name in files if len(PurePosixPath(name).parts) > 1}
    if len(roots) == 1 and all(len(PurePosixPath(n).parts) > 1 for n in files):
        root = roots.pop()
        files = {PurePosixPath(n).relative_to(root).as_posix(): t for n, t in files.items()}
    return files


def _main_file(files: dict[str, str]) -> str | None:
    tex = sorted(
        (n for n in files if n.lower().endswith(SOURCE_SUFFIXES)), key=lambda n: (n.count("/"), n)
    )
    for name in tex:
        if _DOCUMENTCLASS.search(files[name]) and _BEGIN_DOCUMENT.search(files[name]):
            return name
    for name in tex:
        if _BEGIN_DOCUMENT.search(files[name]) or _DOCUMENTCLASS.search(files[name]):
            return name
    return tex[0] if tex else None


def load_project(data: bytes, filename: str, max_unzipped_bytes: int) -> Project:
    if data.startswith(b"PK\x03\x04"):
        files = _from_zip(data, max_unzipped_bytes)
    else:
        text = decode_text(data)
        if text is None:
            raise ParseFailure(CORRUPT_FILE, "The LaTeX file is not text.")
        files = {PurePosixPath(filename or "thesis.tex").name: text}
    main = _main_file(files)
    if main is None:
        raise ParseFailure(
            CORRUPT_FILE, "The archive holds no .tex file; upload the LaTeX project's folder."
        )
    return Project(files=files, main=main)


def _resolve(project: Project, name: str) -> str | None:
    base = PurePosixPath(project.main).parent
    for candidate in (name, f"{name}.tex"):
        path = (base / candidate.strip()).as_posix()
        if path in project.files:
            return path
    return None


def flatten(project: Project, notes: list[str]) -> list[SourceLine]:
    """The main file with every `\\input`/`\\include` replaced by the lines of the named file,
    comments removed; each line remembers the file and line it came from."""
    lines: list[SourceLine] = []

    def visit(name: str, depth: int, stack: tuple[str, ...]) -> None:
        for number, raw in enumerate(project.files[name].splitlines(), start=1):
            line = _COMMENT.sub("", raw)
            cursor = 0
            for match in _INCLUDE.finditer(line):
                target = _resolve(project, match.group(1))
                if target is None or target in stack or depth >= MAX_INCLUDE_DEPTH:
                    if target is None:
                        notes.append(
                            f"{name}, line {number}: {match.group(1)} is not in the upload."
                        )
                    continue
                lines.append(SourceLine(line[cursor : match.start()], name, number))
                visit(target, depth + 1, (*stack, target))
                cursor = match.end()
            lines.append(SourceLine(line[cursor:], name, number))

    visit(project.main, 0, (project.main,))
    return lines
