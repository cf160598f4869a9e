"""Turn an uploaded file name into a safe, still human-readable display name.

The name is only ever displayed and stored as text (bytes are content-addressed, nothing is
written to disk under it), but it ends up in HTML reports, Markdown tables, logs and
Content-Disposition headers, so it must not carry paths, control or bidi-override characters,
or absurd lengths. Letters of any script are kept: a thesis called `Тезис_论文.pdf` stays so.
"""

from __future__ import annotations

import re
import unicodedata

MAX_FILENAME_CHARS = 180
MAX_EXTENSION_CHARS = 12
FALLBACK_FILENAME = "upload"

# Cc: control characters; Cf: format characters (bidi overrides such as U+202E, zero-width
# joiners) that can make `evil‮fdp.exe` render as `evilexe.pdf`; Co/Cs/Cn: private,
# surrogate and unassigned code points.
_DROPPED_CATEGORIES = {"Cc", "Cf", "Co", "Cs", "Cn"}
_WHITESPACE = re.compile(r"\s+")
# Characters that are path separators or reserved on common file systems.
_RESERVED = re.compile(r'[<>:"|?*\\/]')


def sanitize_filename(raw: str | None) -> str:
    name = unicodedata.normalize("NFKC", raw or "")
    # Keep only the last path component, whichever separator the client used.
    name = re.split(r"[\\/]", name)[-1]
    name = "".join(ch for ch in name if unicodedata.category(ch) not in _DROPPED_CATEGORIES)
    name = _RESERVED.sub("_", name)
    name = _WHITESPACE.sub(" ", name).strip()
    # Leading dots hide files and `..` means parent; trailing dots/spaces confuse Windows.
    name = name.lstrip(".").rstrip(". ")
    if not name:
        return FALLBACK_FILENAME
    return _shorten(name)


def _shorten(name: str) -> str:
    if len(name) <= MAX_FILENAME_CHARS:
        return name
    stem, dot, extension = name.rpartition(".")
    if dot and stem and 0 < len(extension) <= MAX_EXTENSION_CHARS:
        keep = MAX_FILENAME_CHARS - len(extension) - 2
        return f"{stem[:keep].rstrip()}….{extension}"
    return name[: MAX_FILENAME_CHARS - 1].rstrip() + "…"
