"""Builders for retriever tests: users' documents, chunks with real embeddings, a thesis with
references and citations, and runs — written with plain SQL so each test states its world."""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field

import asyncpg

from citeproof.embeddings import get_embedder
from citeproof.queue import Stage, run_once

# Three small "sources" on unrelated topics; each inner list is one chunk (one page each).
HEAT_ISLANDS = [
    "Urban heat islands form because asphalt and concrete absorb solar radiation during the day "
    "and release it at night. Night-time air temperatures in dense city centres were on average "
    "3.2 degrees Celsius higher than in the surrounding rural areas.",
    "Street trees reduce surface temperatures through shading and evapotranspiration. Blocks "
    "with more than 40 percent canopy cover were up to 5 degrees cooler at midday than blocks "
    "without trees.",
    "Cool roofs with a high solar reflectance lowered indoor temperatures of top-floor "
    "apartments by about 1.5 degrees. The effect was smaller in buildings with thick insulation.",
]
HEAT_TITLE = "Urban heat islands, street trees and cool roofs in dense city centres"
SLEEP_TITLE = "Sleep, slow waves and the consolidation of declarative memory"

SOIL_BACTERIA = [
    "Soil bacteria fix atmospheric nitrogen in the root nodules of legumes. Rhizobium strains "
    "differ strongly in how much nitrogen they fix per gram of nodule.",
    "Repeated tillage reduced the abundance of mycorrhizal fungi by half within three seasons. "
    "No-till plots kept a fungal network that improved phosphorus uptake.",
]
SLEEP_MEMORY = [
    "Sleep after learning improves the consolidation of declarative memories. Participants who "
    "slept for eight hours recalled 20 percent more word pairs than those kept awake.",
    "Slow-wave sleep is associated with the replay of hippocampal activity patterns. Disrupting "
    "slow waves with acoustic stimulation impaired recall the next morning.",
]


async def new_user(pool: asyncpg.Pool) -> uuid.UUID:
    return await pool.fetchval(
        "INSERT INTO users (name) VALUES ($1) RETURNING id", f"user-{uuid.uuid4().hex[:12]}"
    )


async def new_session(pool: asyncpg.Pool, user_id: uuid.UUID) -> uuid.UUID:
    return await pool.fetchval(
        "INSERT INTO sessions (user_id, name) VALUES ($1, 'test') RETURNING id", user_id
    )


async def add_document(
    pool: asyncpg.Pool,
    user_id: uuid.UUID,
    *,
    kind: str = "source",
    state: str = "parsed",
    title: str | None = None,
    authors: Sequence[str] = (),
    year: int | None = None,
    doi: str | None = None,
    error_code: str | None = None,
    content: str | None = None,
    session_id: uuid.UUID | None = None,
) -> uuid.UUID:
    """A document row; `content` decides its sha256, so two users can hold the same bytes."""
    content = content if content is not None else uuid.uuid4().hex
    document_id = await pool.fetchval(
        """
        INSERT INTO documents (user_id, sha256, kind, filename, size_bytes, state, error_code,
                               title, authors, year, doi)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10, $11) RETURNING id
        """,
        user_id,
        hashlib.sha256(content.encode()).digest(),
        kind,
        f"{kind}.pdf",
        len(content),
        state,
        error_code,
        title,
        json.dumps(list(authors)),
        year,
        doi,
    )
    if session_id is not None:
        await pool.execute(
            "INSERT INTO session_sources (session_id, document_id, kind) VALUES ($1, $2, $3)",
            session_id,
            document_id,
            kind,
        )
    return document_id


async def add_chunks(
    pool: asyncpg.Pool,
    user_id: uuid.UUID,
    document_id: uuid.UUID,
    texts: Sequence[str],
    *,
    embedded: bool = True,
) -> list[int]:
    """One chunk per text, one page per chunk, with the real local embeddings (as the parser
    stores them at parse time) or, `embedded=False`, none (as it stores them by default, for
    the retriever to embed on demand); the document's text and page starts are set so pages
    can be derived from offsets."""
    vectors = get_embedder().embed(list(texts)) if embedded else [None] * len(texts)
    ids, offset, page_starts = [], 0, []
    for ordinal, text in enumerate(texts):
        page_starts.append(offset)
        ids.append(
            await pool.fetchval(
                """
                INSERT INTO chunks (document_id, user_id, ordinal, page_start, page_end,
                                    char_start, char_end, text, embedding)
                VALUES ($1, $2, $3, $4, $4, $5, $6, $7, $8) RETURNING id
                """,
                document_id,
                user_id,
                ordinal,
                ordinal + 1,
                offset,
                offset + len(text),
                text,
                vectors[ordinal],
            )
        )
        offset += len(text) + 2
    await pool.execute(
        "UPDATE documents SET text_content = $2, page_starts = $3, pages = $4 WHERE id = $1",
        document_id,
        "\n\n".join(texts),
        page_starts,
        len(texts),
    )
    return ids


@dataclass
class Cite:
    """One citing sentence: `claim` contains `marker` verbatim; `labels` are the reference
    labels the marker names (None = a marker with no reference entry)."""

    claim: str
    marker: str
    labels: Sequence[str | None]


@dataclass
class Thesis:
    document_id: uuid.UUID
    reference_ids: dict[str, int] = field(default_factory=dict)
    citation_ids: list[int] = field(default_factory=list)


async def add_thesis(
    pool: asyncpg.Pool,
    user_id: uuid.UUID,
    references: dict[str, dict],
    cites: Sequence[Cite],
    *,
    session_id: uuid.UUID | None = None,
    state: str = "parsed",
) -> Thesis:
    """A parsed thesis with its reference list (label -> fields) and citations."""
    thesis = Thesis(
        await add_document(pool, user_id, kind="thesis", state=state, session_id=session_id)
    )
    for ordinal, (label, fields) in enumerate(references.items(), 1):
        thesis.reference_ids[label] = await pool.fetchval(
            """
            INSERT INTO "references" (document_id, ordinal, label, raw, authors, year, title, doi)
            VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8) RETURNING id
            """,
            thesis.document_id,
            ordinal,
            label,
            fields.get("raw", fields.get("title", label)),
            json.dumps(fields.get("authors", [])),
            fields.get("year"),
            fields.get("title"),
            fields.get("doi"),
        )
    offset, ordinal = 0, 0
    for cite in cites:
        marker_at = offset + cite.claim.index(cite.marker)
        for label in cite.labels:
            ordinal += 1
            thesis.citation_ids.append(
                await pool.fetchval(
                    """
                    INSERT INTO citations (document_id, ordinal, reference_id, reference_label,
                        marker_text, marker_start, marker_end, claim_text, claim_start,
                        claim_end, context_text, page)
                    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, '', 1) RETURNING id
                    """,
                    thesis.document_id,
                    ordinal,
                    thesis.reference_ids.get(label) if label else None,
                    label,
                    cite.marker,
                    marker_at,
                    marker_at + len(cite.marker),
                    cite.claim,
                    offset,
                    offset + len(cite.claim),
                )
            )
        offset += len(cite.claim) + 1
    return thesis


async def create_run(
    pool: asyncpg.Pool,
    user_id: uuid.UUID,
    session_id: uuid.UUID,
    thesis_id: uuid.UUID,
    document_ids: Sequence[uuid.UUID],
) -> uuid.UUID:
    """What the API does when a user starts a run."""
    return await pool.fetchval(
        """
        INSERT INTO runs (user_id, session_id, thesis_document_id, document_ids)
        VALUES ($1, $2, $3, $4) RETURNING id
        """,
        user_id,
        session_id,
        thesis_id,
        [thesis_id, *document_ids],
    )


async def verdict_labels(pool: asyncpg.Pool, run_id: uuid.UUID) -> dict[int, str]:
    rows = await pool.fetch("SELECT citation_id, label FROM verdicts WHERE run_id = $1", run_id)
    return {r["citation_id"]: r["label"] for r in rows}


async def task_citations(pool: asyncpg.Pool, run_id: uuid.UUID) -> dict[int, uuid.UUID]:
    rows = await pool.fetch(
        "SELECT citation_id, source_document_id FROM retrieve_tasks WHERE run_id = $1", run_id
    )
    return {r["citation_id"]: r["source_document_id"] for r in rows}


async def drain(pool: asyncpg.Pool, stage: Stage) -> None:
    """Work `stage` in-process until nothing runnable is left (other tests' rows included:
    the database is shared by the test session, and their rows are just as valid)."""
    while await run_once(pool, stage):
        pass
