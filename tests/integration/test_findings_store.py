"""Findings are stored by replacement: a producer's retried task leaves one set, another
producer's rows are not touched, and rows go with their run, citation or entry."""

from __future__ import annotations

from citeproof.contracts.findings import FROM_SOURCE_TEXT, Evidence, Finding
from citeproof.findings import (
    PRODUCER_PLAN,
    PRODUCER_RETRIEVE,
    Found,
    findings_of_run,
    replace_findings,
)
from citeproof.pipeline import NUMBER_CONFLICT, QUOTE_NOT_FOUND, UNCITED_ENTRY
from tests.integration.retriever_support import (
    Cite,
    add_thesis,
    create_run,
    new_session,
    new_user,
)


async def _world(pool):
    user = await new_user(pool)
    session = await new_session(pool, user)
    thesis = await add_thesis(
        pool,
        user,
        {"1": {"title": "A cited work"}, "2": {"title": "An uncited work"}},
        [Cite("Growth fell by 43% [1].", "[1]", ["1"]), Cite("It rose again [1].", "[1]", ["1"])],
        session_id=session,
    )
    run = await create_run(pool, user, session, thesis.document_id, [])
    return user, thesis, run


def _quote(message: str) -> Finding:
    return Finding(
        rule=QUOTE_NOT_FOUND.code,
        message=message,
        evidence=[Evidence(origin=FROM_SOURCE_TEXT, text="Growth fell by 34%.", page=3)],
        claim_span=(0, 10),
    )


async def test_a_retried_producer_replaces_its_own_findings_and_no_others(pool):
    user, thesis, run = await _world(pool)
    first, second = thesis.citation_ids
    uncited = Finding(rule=UNCITED_ENTRY.code, message="Entry [2] is never cited.")
    async with pool.acquire() as conn:
        await replace_findings(
            conn,
            run_id=run,
            user_id=user,
            producer=PRODUCER_PLAN,
            found=[Found(uncited, reference_id=thesis.reference_ids["2"])],
            whole_run=True,
        )
        for attempt in range(3):  # the same retrieve task, retried
            async with conn.transaction():
                await replace_findings(
                    conn,
                    run_id=run,
                    user_id=user,
                    producer=PRODUCER_RETRIEVE,
                    found=[
                        Found(_quote(f"attempt {attempt}"), citation_id=first),
                        Found(
                            Finding(rule=NUMBER_CONFLICT.code, message="43% vs 34%", key="43%"),
                            citation_id=first,
                        ),
                    ],
                    citation_ids=[first],
                )
        # Another citation's task does not touch the first one's rows.
        await replace_findings(
            conn,
            run_id=run,
            user_id=user,
            producer=PRODUCER_RETRIEVE,
            found=[],
            citation_ids=[second],
        )
        stored = await findings_of_run(conn, run)
    assert [(f.finding.rule, f.citation_id, f.reference_id) for f in stored] == [
        (QUOTE_NOT_FOUND.code, first, None),
        (NUMBER_CONFLICT.code, first, None),
        (UNCITED_ENTRY.code, None, thesis.reference_ids["2"]),
    ]
    assert stored[0].finding == _quote("attempt 2")
    assert stored[0].finding.evidence[0].page == 3 and stored[0].finding.claim_span == (0, 10)


async def test_findings_go_with_their_run(pool):
    user, thesis, run = await _world(pool)
    async with pool.acquire() as conn:
        await replace_findings(
            conn,
            run_id=run,
            user_id=user,
            producer=PRODUCER_RETRIEVE,
            found=[Found(_quote("gone soon"), citation_id=thesis.citation_ids[0])],
            citation_ids=[thesis.citation_ids[0]],
        )
        assert await conn.fetchval("SELECT count(*) FROM findings WHERE run_id = $1", run) == 1
        await conn.execute("DELETE FROM runs WHERE id = $1", run)
        assert await conn.fetchval("SELECT count(*) FROM findings WHERE run_id = $1", run) == 0
