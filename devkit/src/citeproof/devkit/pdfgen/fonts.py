"""Font selection for generated PDFs.

The text layer must carry every character of the spec (Check-COVID abstracts contain "≥", "μ",
Greek letters), and the standard 14 PDF fonts only encode cp1252. So we embed a TrueType family
with wide Unicode coverage. DejaVu Serif (Debian's fonts-dejavu-core) is preferred, then Liberation
Serif; reportlab's bundled Bitstream Vera is the last resort, always present but Latin-1 only — with
it, characters it cannot draw are replaced by their closest ASCII form so the text layer never
contains silent gaps.
"""

from __future__ import annotations

import os
import re
import unicodedata
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import reportlab
from reportlab.lib.fonts import addMapping
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont

# Extra places to look for fonts, colon-separated, searched before the system directories.
FONT_PATH_ENV = "CITEPROOF_PDFGEN_FONT_PATH"

SYSTEM_FONT_DIRS = (
    "/usr/share/fonts/truetype/dejavu",
    "/usr/share/fonts/truetype/liberation",
    "/usr/share/fonts/dejavu",
    "/usr/share/fonts/liberation-serif",
    "/Library/Fonts",
)

# Family candidates in order of preference: name -> (regular, bold, italic, bold italic) files.
FAMILY_CANDIDATES: tuple[tuple[str, tuple[str, str, str, str]], ...] = (
    (
        "DejaVuSerif",
        (
            "DejaVuSerif.ttf",
            "DejaVuSerif-Bold.ttf",
            "DejaVuSerif-Italic.ttf",
            "DejaVuSerif-BoldItalic.ttf",
        ),
    ),
    (
        "LiberationSerif",
        (
            "LiberationSerif-Regular.ttf",
            "LiberationSerif-Bold.ttf",
            "LiberationSerif-Italic.ttf",
            "LiberationSerif-BoldItalic.ttf",
        ),
    ),
)
BUNDLED_FAMILY = ("Vera", ("Vera.ttf", "VeraBd.ttf", "VeraIt.ttf", "VeraBI.ttf"))

# ASCII stand-ins for characters a Latin-1 font cannot draw (used with the bundled fallback only).
ASCII_FALLBACKS = {
    "≥": ">=",
    "≤": "<=",
    "≈": "~",
    "∼": "~",
    "−": "-",
    "‐": "-",
    "‑": "-",
    "′": "'",
    "α": "alpha",
    "β": "beta",
    "γ": "gamma",
    "ρ": "rho",
    "ω": "omega",
}


_CONTROL_CHARS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


@dataclass(frozen=True)
class FontFamily:
    """A registered font family: reportlab names for its four faces."""

    regular: str
    bold: str
    italic: str
    bold_italic: str
    unicode_complete: bool
    """False for the Latin-1 fallback; `printable` then rewrites what it cannot draw."""

    def printable(self, text: str) -> str:
        # Control characters (mis-decoded text in real data sets carries C1 controls) have no
        # glyph in any font and would reach the text layer as garbage; they print as a space.
        text = _CONTROL_CHARS.sub(" ", text)
        if self.unicode_complete:
            return text
        return "".join(_latin1_stand_in(char) for char in text)


def _latin1_stand_in(char: str) -> str:
    if ord(char) < 256 or char in "–—‘’“”…•€":
        return char
    if char in ASCII_FALLBACKS:
        return ASCII_FALLBACKS[char]
    decomposed = unicodedata.normalize("NFKD", char).encode("ascii", "ignore").decode()
    return decomposed or "?"


def _search_dirs() -> list[Path]:
    extra = [Path(p) for p in os.environ.get(FONT_PATH_ENV, "").split(os.pathsep) if p]
    return extra + [Path(d) for d in SYSTEM_FONT_DIRS]


def _find(files: tuple[str, ...], dirs: list[Path]) -> list[Path] | None:
    found = []
    for name in files:
        path = next((d / name for d in dirs if (d / name).is_file()), None)
        if path is None:
            return None
        found.append(path)
    return found


def _register(family: str, paths: list[Path], unicode_complete: bool) -> FontFamily:
    faces = (family, f"{family}-Bold", f"{family}-Italic", f"{family}-BoldItalic")
    for face, path in zip(faces, paths, strict=True):
        pdfmetrics.registerFont(TTFont(face, str(path)))
    # Lets <b>/<i> inside reportlab paragraphs pick the right face.
    for bold, italic, face in (
        (0, 0, faces[0]),
        (1, 0, faces[1]),
        (0, 1, faces[2]),
        (1, 1, faces[3]),
    ):
        addMapping(family, bold, italic, face)
    return FontFamily(*faces, unicode_complete=unicode_complete)


@cache
def body_font_family() -> FontFamily:
    """The best available family, registered with reportlab once per process."""
    dirs = _search_dirs()
    for family, files in FAMILY_CANDIDATES:
        paths = _find(files, dirs)
        if paths is not None:
            return _register(family, paths, unicode_complete=True)
    bundled_dir = Path(reportlab.__file__).parent / "fonts"
    family, files = BUNDLED_FAMILY
    paths = _find(files, [bundled_dir])
    assert paths is not None, "reportlab installation lacks its bundled Vera fonts"
    return _register(family, paths, unicode_complete=False)


# A sans-serif family for layouts that vary the typeface (the style matrix of bench-extraction).
SANS_FAMILY = (
    "DejaVuSans",
    (
        "DejaVuSans.ttf",
        "DejaVuSans-Bold.ttf",
        "DejaVuSans-Oblique.ttf",
        "DejaVuSans-BoldOblique.ttf",
    ),
)


@cache
def sans_font_family() -> FontFamily:
    """DejaVu Sans when installed, else the serif family (`body_font_family`)."""
    family, files = SANS_FAMILY
    paths = _find(files, _search_dirs())
    if paths is None:
        return body_font_family()
    return _register(family, paths, unicode_complete=True)
