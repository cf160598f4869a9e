"""Front matter never reaches the judge: rendered sources are parsed and stored as the parse stage
stores them, then retrieval runs for claims whose nearest text is the source's title line.

The check compares the evidence with the titles and authors the renderer wrote, not with the
parser's marks, so a title block the parser failed to mark fails it too.
"""

from __future__ import annotations

from pathlib import Path

import asyncpg
import numpy as np
import pytest

pytest.importorskip("reportlab", reason="needs the pdfgen extra: pip install -e 'devkit'")

from citeproof.contracts.chunks import BODY, CHUNK_ROLES, FRONT_MATTER
from citeproof.devkit.pdfgen import parse_source, render_pdf
from citeproof.devkit.pdfgen.front_matter import assert_no_front_matter_quotes, front_matter_quotes
from citeproof.embeddings import get_embedder
from citeproof.parser.extract import parse_bytes
from citeproof.parser.settings import ParserSettings
from citeproof.parser.store import store_document
from citeproof.retriever.cache import IndexCache
from citeproof.retriever.retrieval import Retriever
from citeproof.retriever.service import default_embed
from citeproof.retriever.settings import RetrieverSettings

from .retriever_support import add_document, new_user

DEMO_SOURCES = sorted(
    (Path(__file__).resolve().parents[2] / "samples" / "demo" / "sources").glob("*.md")
)
# Every chunk of the document, whatever its role, nearest first: what retrieval would rank
# without the role filter.
ALL_CHUNKS_BY_SIMILARITY = """
SELECT role, text FROM chunks WHERE user_id = $1 AND document_id = $2
ORDER BY embedding <=> $3
"""


def title_claim(spec) -> str:
    """A citing sentence that restates the paper's title and names its authors: its nearest
    text in the source is the title block."""
    surnames = " and ".join(author.split()[-1] for author in spec.authors[:2])
    return f"{surnames} studied {spec.title[0].lower()}{spec.title[1:]}."


async def test_claims_that_restate_a_title_get_body_sentences_only(pool) -> None:
    user = await new_user(pool)
    specs = [parse_source(path.read_text(encoding="utf-8")) for path in DEMO_SOURCES]
    retriever = Retriever(RetrieverSettings(), IndexCache(10**8, 600), default_embed)
    embedder = get_embedder()
    for spec in specs:
        parsed = parse_bytes(render_pdf(spec), "s.pdf", "application/pdf", ParserSettings())
        document = await add_document(pool, user, title=spec.title)
        vectors = embedder.embed([chunk.text for chunk in parsed.chunks])
        async with pool.acquire() as conn, conn.transaction():
            await store_document(conn, document, user, parsed, vectors)
        roles = [r["role"] for r in await pool.fetch(
            "SELECT role FROM chunks WHERE document_id = $1 ORDER BY ordinal", document
        )]  # fmt: skip
        assert roles[0] == FRONT_MATTER and set(roles[1:]) == {BODY}

        claim = title_claim(spec)
        query = (await default_embed([claim]))[0]
        nearest = await pool.fetch(ALL_CHUNKS_BY_SIMILARITY, user, document, np.asarray(query))
        # The test means something: unfiltered, the title block is the claim's nearest chunk.
        assert nearest[0]["role"] == FRONT_MATTER
        assert front_matter_quotes([nearest[0]["text"]], [spec])

        async with pool.acquire() as conn:
            passages = await retriever.retrieve(conn, user, document, claim)
        assert passages, "a body sentence is still found for the claim"
        assert_no_front_matter_quotes([p.text for p in passages], [spec])


async def test_the_chunk_role_column_refuses_unknown_roles(pool) -> None:
    user = await new_user(pool)
    document = await add_document(pool, user)
    insert = (
        "INSERT INTO chunks (document_id, user_id, ordinal, page_start, page_end, char_start, "
        "char_end, text, role) VALUES ($1, $2, $3, 1, 1, 0, 4, 'text', $4)"
    )
    for ordinal, role in enumerate(CHUNK_ROLES):
        await pool.execute(insert, document, user, ordinal, role)
    with pytest.raises(asyncpg.CheckViolationError):
        await pool.execute(insert, document, user, 9, "reference_list")
    # Rows written without a role (older parsers) are evidence, as before the column existed.
    await pool.execute(
        "INSERT INTO chunks (document_id, user_id, ordinal, page_start, page_end, char_start, "
        "char_end, text) VALUES ($1, $2, 10, 1, 1, 0, 4, 'text')",
        document,
        user,
    )
    assert (
        await pool.fetchval(
            "SELECT role FROM chunks WHERE document_id = $1 AND ordinal = 10", document
        )
        == BODY
    )
