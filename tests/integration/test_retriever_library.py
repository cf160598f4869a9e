"""Planning through a session's library: attachments and keys link exactly, a weak library match
is reference_missing with its candidates, a missing attachment is named per entry."""

from __future__ import annotations

import json

import asyncpg
import pytest

from citeproof.queue import run_once
from citeproof.retriever.service import RetrieverService
from citeproof.retriever.settings import RetrieverSettings

from .retriever_support import (
    HEAT_ISLANDS,
    HEAT_TITLE,
    Cite,
    add_chunks,
    add_document,
    add_thesis,
    create_run,
    new_session,
    new_user,
)

LIBRARY = [
    # key, authors, year, title, attachments
    ("okafor2021", ["Okafor"], 2021, HEAT_TITLE, ["files/7/Okafor 2021 - Heat.pdf"]),
    ("tan2020", ["Tan"], 2020, "Hydrothermal vents and their fauna", ["files/9/tan.pdf"]),
    ("lindqvist2018", ["Lindqvist"], 2018, "Tillage and soil fungi", []),
]
REFERENCES = {
    "1": {"title": HEAT_TITLE, "authors": ["Okafor"], "year": 2021},
    "2": {"title": "Hydrothermal vents and their fauna", "authors": ["Tan"], "year": 2020},
    # Same first author as a library entry, another year and title: never linked to it.
    "3": {"title": "Mycorrhizal networks under no-till", "authors": ["Lindqvist"], "year": 2019},
}
CITES = [
    Cite("City centres are about three degrees warmer at night than the countryside [1].", "[1]",
         ["1"]),
    Cite("Hydrothermal vents host chemosynthetic communities of many kinds [2].", "[2]", ["2"]),
    Cite("Tillage halves mycorrhizal fungi within a few seasons [3].", "[3]", ["3"]),
]  # fmt: skip


async def _bibliography(pool: asyncpg.Pool, user, session) -> object:
    document = await add_document(pool, user, kind="bibliography", session_id=session)
    for ordinal, (key, authors, year, title, files) in enumerate(LIBRARY, 1):
        await pool.execute(
            """INSERT INTO "references" (document_id, ordinal, label, raw, authors, year, title,
                                         attachments)
               VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8::jsonb)""",
            document, ordinal, key, title, json.dumps(authors), year, title, json.dumps(files),
        )  # fmt: skip
    return document


@pytest.fixture(scope="module")
def service() -> RetrieverService:
    return RetrieverService(RetrieverSettings())


async def test_library_links_by_attachment_and_refuses_weak_matches(pool, service) -> None:
    user = await new_user(pool)
    session = await new_session(pool, user)
    # Metadata that would never link on its own: only the attachment's file name can.
    heat = await add_document(pool, user, title="Untitled", session_id=session)
    await pool.execute(
        "UPDATE documents SET filename = 'okafor 2021 - heat.pdf' WHERE id = $1", heat
    )
    await add_chunks(pool, user, heat, HEAT_ISLANDS)
    library = await _bibliography(pool, user, session)
    thesis = await add_thesis(pool, user, REFERENCES, CITES, session_id=session)
    run = await create_run(pool, user, session, thesis.document_id, [heat, library])
    await run_once(pool, service.plan_stage)

    links = {
        row["label"]: row
        for row in await pool.fetch(
            """SELECT r.label, l.document_id, l.method, l.score FROM run_reference_links l
               JOIN "references" r ON r.id = l.reference_id WHERE l.run_id = $1""",
            run,
        )
    }
    assert links["1"]["document_id"] == heat
    assert links["1"]["method"] == "library:title+attachment"
    verdicts = {
        row["citation_id"]: row
        for row in await pool.fetch(
            "SELECT citation_id, label, rationale FROM verdicts WHERE run_id = $1", run
        )
    }
    first, vents, tillage = thesis.citation_ids
    assert first not in verdicts  # linked and checkable: a retrieval task, no pipeline verdict
    assert verdicts[vents]["label"] == "source_missing"
    assert "tan.pdf" in verdicts[vents]["rationale"]  # the attachment nobody uploaded
    assert verdicts[tillage]["label"] == "reference_missing"
    assert "lindqvist2018" in verdicts[tillage]["rationale"]
    assert links["3"]["document_id"] is None
