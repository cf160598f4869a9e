"""Render the sample corpora to PDF.

    .venv/bin/python samples/build.py OUT_DIR [--corpus demo] [--json]

Prints the thesis path, then one path per source (or one JSON object with --json). PDFs are
generated, never committed: the Markdown-like sources in samples/<corpus>/ are the originals.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from citeproof.devkit.pdfgen.corpus import render_corpus

SAMPLES_DIR = Path(__file__).resolve().parent
DEFAULT_CORPUS = "demo"
EXPECTED_FILE = "expected.json"
# A corpus may come with the writer's reference-manager library (samples/demo-errors: one PDF
# attached to the wrong entry); its `file` fields name the rendered PDFs.
LIBRARY_FILE = "library.bib"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir", type=Path, help="folder to write the PDFs into")
    parser.add_argument("--corpus", default=DEFAULT_CORPUS, help="folder under samples/")
    parser.add_argument("--json", action="store_true", help="print paths as one JSON object")
    args = parser.parse_args(argv)
    corpus_dir = SAMPLES_DIR / args.corpus
    rendered = render_corpus(corpus_dir, args.out_dir)
    if args.json:
        expected = corpus_dir / EXPECTED_FILE
        library = corpus_dir / LIBRARY_FILE
        print(
            json.dumps(
                {
                    "thesis": str(rendered.thesis),
                    "sources": [str(p) for p in rendered.sources],
                    "expected": str(expected) if expected.exists() else None,
                    "library": str(library) if library.exists() else None,
                }
            )
        )
    else:
        print(rendered.thesis)
        for path in rendered.sources:
            print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
