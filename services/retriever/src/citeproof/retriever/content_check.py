"""The content rules inside the retrieve stage: the linked source's `SourceText`, built once per
source and kept with its cached retrieval index, and the findings of one citation.

The source's stored text, page offsets and printed page labels are read once (one row), and its
evidence chunks' spans (integers only) tell body text from the reference list and the front
matter. Building takes about as long as the retrieval index (a single pass over the words and
sentences) and runs in a thread, as does each citation's check, so the event loop keeps serving
heartbeats and other tasks meanwhile.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any, Final

from citeproof.contracts.chunks import EVIDENCE_ROLES
from citeproof.contracts.findings import Finding
from citeproof.retriever.content_rules import (
    CitationInput,
    ContentRulesConfig,
    SourceText,
    check_citation,
)
from citeproof.retriever.content_rules.evidence import RankedPassage
from citeproof.retriever.index import DocumentIndex
from citeproof.retriever.retrieval import EvidencePassage

SELECT_SOURCE_TEXT = """
SELECT text_content, page_starts, page_labels, page_label_offset
FROM documents
WHERE id = $2 AND user_id = $1
"""
SELECT_EVIDENCE_SPANS = """
SELECT char_start, char_end
FROM chunks
WHERE user_id = $1 AND document_id = $2 AND role = ANY($3::text[])
ORDER BY ordinal
"""

# Names under which the source text and its build lock live in `DocumentIndex.derived`.
SOURCE_TEXT_KEY: Final = "content_rules.source_text"
_BUILD_LOCK_KEY: Final = "content_rules.build_lock"


async def source_text(conn: Any, index: DocumentIndex) -> SourceText:
    """The content rules' view of the index's document, built on first need.

    Concurrency: tasks citing the same source may ask at once; a lock per index entry lets one
    of them build while the others wait for its result (other sources are not held up). The
    lock and the result live in the cache entry, so an evicted or rebuilt index (a new parse)
    gets a new source text built from the same version of the rows.
    """
    cached = index.derived.get(SOURCE_TEXT_KEY)
    if cached is not None:
        return cached
    lock = index.derived.setdefault(_BUILD_LOCK_KEY, asyncio.Lock())
    async with lock:
        cached = index.derived.get(SOURCE_TEXT_KEY)
        if cached is not None:
            return cached
        row = await conn.fetchrow(SELECT_SOURCE_TEXT, index.user_id, index.document_id)
        spans = await conn.fetch(
            SELECT_EVIDENCE_SPANS, index.user_id, index.document_id, list(EVIDENCE_ROLES)
        )
        text = (row["text_content"] if row is not None else None) or ""
        built = await asyncio.to_thread(
            SourceText.from_stored,
            text=text,
            page_starts=row["page_starts"] if row is not None else None,
            page_labels=row["page_labels"] if row is not None else None,
            page_label_offset=row["page_label_offset"] if row is not None else None,
            evidence_spans=[(span["char_start"], span["char_end"]) for span in spans],
            document_id=index.document_id,
        )
        index.derived[SOURCE_TEXT_KEY] = built
        return built


def citation_input(
    citation: Any,
    markers: Sequence[tuple[int, int]],
    passages: Sequence[EvidencePassage] = (),
) -> CitationInput:
    """A `citations` row (with its claim's marker spans, relative to the claim, and the
    retriever's evidence passages for it) as the content rules take it."""
    claim_start = citation["claim_start"]
    return CitationInput(
        claim=citation["claim_text"],
        marker=(citation["marker_start"] - claim_start, citation["marker_end"] - claim_start),
        markers=list(markers),
        pinpoint_pages=list(citation["pinpoint_pages"] or []),
        context=citation["context_text"] or "",
        block_quote=citation["block_quote"],
        evidence=[
            RankedPassage(
                text=passage.text,
                rank=passage.rank,
                page=passage.page,
                vector_score=passage.vector_score,
                fused_score=passage.fused_score,
            )
            for passage in passages
        ],
    )


async def content_findings(
    conn: Any,
    index: DocumentIndex,
    citation: CitationInput,
    config: ContentRulesConfig,
) -> list[Finding]:
    source = await source_text(conn, index)
    return await asyncio.to_thread(check_citation, source, citation, config)
