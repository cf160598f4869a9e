"""Render a folder of hand-written documents (the `source.py` format, `*.md`) to PDFs.

A corpus folder holds `thesis.md` and a `sources/` folder; the output mirrors that layout with
`.pdf` names. Used by `samples/build.py` (and so by `make demo`), and by tests that need the demo
PDFs without committing binary files.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from citeproof.devkit.pdfgen.render import render_pdf
from citeproof.devkit.pdfgen.source import parse_source

THESIS_FILE = "thesis.md"
SOURCES_DIR = "sources"
SOURCE_SUFFIX = ".md"


class RenderedCorpus(msgspec.Struct, frozen=True):
    """Where the PDFs of one corpus were written."""

    thesis: Path
    sources: tuple[Path, ...]
    """In file-name order, so "1-....md" comes before "2-....md"."""


def render_file(source: Path, target: Path) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(render_pdf(parse_source(source.read_text(encoding="utf-8"))))
    return target


def render_corpus(corpus_dir: Path, out_dir: Path) -> RenderedCorpus:
    """Render `corpus_dir/thesis.md` and `corpus_dir/sources/*.md` into `out_dir`."""
    thesis = render_file(corpus_dir / THESIS_FILE, out_dir / Path(THESIS_FILE).with_suffix(".pdf"))
    sources = tuple(
        render_file(path, out_dir / SOURCES_DIR / path.with_suffix(".pdf").name)
        for path in sorted((corpus_dir / SOURCES_DIR).glob(f"*{SOURCE_SUFFIX}"))
    )
    return RenderedCorpus(thesis=thesis, sources=sources)
