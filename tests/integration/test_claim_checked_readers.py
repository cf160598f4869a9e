"""Retrieval and the judge read the parser's marker-free claim (`citations.claim_checked`), so
the same claim gets the same query and the same judge input in every citation style; rows
written before the column existed fall back to the printed sentence."""

from __future__ import annotations

from citeproof.judge.service import SELECT_CITATION
from citeproof.retriever.service import RetrieverService
from citeproof.retriever.settings import RetrieverSettings

from .retriever_support import Cite, add_thesis, create_run, new_session, new_user

REFERENCES = {"Garcia2020": {"title": "Masks at home", "authors": ["García"], "year": 2020}}
PRINTED = "García and Novak (2020) showed that masks reduce household transmission."
CHECKED = "Showed that masks reduce household transmission."


async def _thesis(pool):
    user = await new_user(pool)
    session = await new_session(pool, user)
    cites = [Cite(PRINTED, "García and Novak (2020)", ["Garcia2020"])]
    thesis = await add_thesis(pool, user, REFERENCES, cites, session_id=session)
    run = await create_run(pool, user, session, thesis.document_id, [])
    return user, thesis, run


async def test_the_judge_reads_the_checked_claim_and_falls_back_to_the_printed_one(pool):
    user, thesis, run = await _thesis(pool)
    (citation_id,) = thesis.citation_ids
    row = await pool.fetchrow(SELECT_CITATION, run, citation_id, user)
    assert row["claim_text"] == PRINTED
    await pool.execute(
        "UPDATE citations SET claim_checked = $1 WHERE id = $2", CHECKED, citation_id
    )
    row = await pool.fetchrow(SELECT_CITATION, run, citation_id, user)
    assert row["claim_text"] == CHECKED


async def test_the_retrieval_query_is_the_checked_claim(pool):
    _, thesis, _ = await _thesis(pool)
    (citation_id,) = thesis.citation_ids
    await pool.execute(
        "UPDATE citations SET claim_checked = $1 WHERE id = $2", CHECKED, citation_id
    )
    service = RetrieverService(RetrieverSettings())
    async with pool.acquire() as conn:
        citation = await conn.fetchrow(
            "SELECT c.*, 'retrieving' AS status FROM citations c WHERE id = $1", citation_id
        )
        assert await service.query_for(conn, citation) == CHECKED
