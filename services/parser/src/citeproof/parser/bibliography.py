"""A document's own reference list is not evidence: its chunks are neither stored nor embedded.

A source's bibliography names the very papers a thesis cites, so its entries are close to the
claims in both vector and BM25 space while supporting nothing: retrieving "Devlin et al. 2019.
BERT: Pre-training of deep bidirectional transformers" as evidence for a claim about BERT is a
false positive the judge then has to reject. It is also ~17 % of a paper's chunks (44 of 254 on
the four real papers of ../shared/data/papers), i.e. embedding time spent on nothing.

The rule is per chunk and conservative: the chunk sits under a reference-list heading (the same
headings the thesis analysis recognises, any of its languages) and its text is not prose (a
"2 Literature" review section is prose and stays). The document text keeps the list; only the
retrievable chunks lose it.
"""

from __future__ import annotations

import msgspec

from citeproof.parser.chunking import Chunk
from citeproof.parser.thesis.sections import is_prose, is_reference_heading


def is_reference_list_chunk(chunk: Chunk) -> bool:
    return (
        chunk.heading is not None
        and is_reference_heading(chunk.heading)
        and not is_prose(chunk.text)
    )


def without_reference_list(chunks: list[Chunk]) -> list[Chunk]:
    """The evidence chunks, renumbered so ordinals stay contiguous. A document that is nothing
    but a reference list keeps it: the uploader asked for that text to be searchable."""
    kept = [chunk for chunk in chunks if not is_reference_list_chunk(chunk)] or chunks
    return [msgspec.structs.replace(chunk, ordinal=number) for number, chunk in enumerate(kept)]
