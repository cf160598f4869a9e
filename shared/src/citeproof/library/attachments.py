"""Attached files named by a library export, and where they may be looked for.

Zotero's BibTeX export writes `file = {Description:path:mime;Description:path:mime}` (its own
colons and semicolons escaped as `\\:` and `\\;`, Windows drive colons too), Better BibTeX writes
bare paths separated by `;`, JabRef and Mendeley Desktop write `:path:PDF` (Mendeley spells a
backslash `$\\backslash$`). RIS carries one path per `L1` line. All of them become `Attachment`s.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath, PureWindowsPath

from citeproof.library.model import Attachment

_MENDELEY_BACKSLASH = re.compile(r"\$\\backslash\$")
_FILE_URL = re.compile(r"^file://(?:localhost)?", re.IGNORECASE)
# A MIME type or a bare file type as JabRef/Mendeley write it ("PDF", "pdf").
_MIME_LIKE = re.compile(r"^(?:[a-z]+/[\w.+-]+|[A-Za-z0-9]{2,5})$")


def _split_unescaped(value: str, separator: str) -> list[str]:
    """Split on `separator` not preceded by a backslash; escapes are kept for the next pass."""
    parts: list[str] = []
    current: list[str] = []
    index = 0
    while index < len(value):
        char = value[index]
        if char == "\\" and index + 1 < len(value):
            current.append(value[index : index + 2])
            index += 2
            continue
        if char == separator:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
        index += 1
    parts.append("".join(current))
    return parts


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value).strip()


def parse_file_field(value: str) -> list[Attachment]:
    """Every attachment of one BibTeX `file` field, in order; empty paths are dropped."""
    # Mendeley writes the escape backslash of "C\\:" as $\\backslash$.
    value = _MENDELEY_BACKSLASH.sub(lambda _: "\\", value.strip())
    attachments: list[Attachment] = []
    for item in _split_unescaped(value, ";"):
        if not item.strip():
            continue
        fields = _split_unescaped(item, ":")
        description: str | None = None
        mime: str | None = None
        if len(fields) >= 3 and _MIME_LIKE.match(fields[-1].strip()):
            # Description:path:mime - the path itself may contain unescaped colons (C:/...).
            description = _unescape(fields[0]) or None
            mime = fields[-1].strip()
            path = ":".join(fields[1:-1])
        else:
            path = item
        path = _FILE_URL.sub("", _unescape(path))
        if path:
            attachments.append(Attachment(path=path, mime=mime, description=description))
    return attachments


def attachment_from_ris(value: str) -> Attachment | None:
    """An RIS `L1`/`L2` value: a path, or a file:// URL."""
    path = _FILE_URL.sub("", value.strip())
    if not path or re.match(r"^https?://", path, re.IGNORECASE):
        return None
    return Attachment(path=path)


def attachment_basename(path: str) -> str:
    """The file name of an attachment path written on any system ("C:\\x\\a.pdf" -> "a.pdf")."""
    return PureWindowsPath(path).name if "\\" in path else PurePosixPath(path).name


def is_absolute(path: str) -> bool:
    return (
        PurePosixPath(path).is_absolute()
        or PureWindowsPath(path).is_absolute()
        or bool(re.match(r"^[A-Za-z]:", path))
    )


def relative_inside(path: str) -> PurePosixPath | None:
    """The attachment as a path relative to its export folder, or None when it would leave it.

    A server only ever reads attachments that came inside the uploaded export: absolute paths
    and paths climbing out with `..` are refused (they name files on someone's machine, or are
    an attempt to read the server's).
    """
    if not path or is_absolute(path):
        return None
    parts = PurePosixPath(path.replace("\\", "/")).parts
    if any(part == ".." for part in parts):
        return None
    cleaned = [part for part in parts if part not in ("", ".")]
    return PurePosixPath(*cleaned) if cleaned else None


def find_local_attachment(
    path: str, library_dir: Path, extra_dirs: tuple[Path, ...] = (), *, allow_absolute: bool
) -> Path | None:
    """Where an attachment is on this machine: relative to the library file (Zotero's
    `files/...` export layout), by file name in `extra_dirs`, or - for a local check of the
    user's own files only - at its absolute path."""
    relative = relative_inside(path)
    if relative is not None:
        candidate = library_dir / relative
        if candidate.is_file():
            return candidate
    elif allow_absolute and is_absolute(path):
        candidate = Path(path)
        if candidate.is_file():
            return candidate
    name = attachment_basename(path)
    for folder in (library_dir, *extra_dirs):
        candidate = folder / name
        if name and candidate.is_file():
            return candidate
    return None
