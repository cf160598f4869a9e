"""Evidence kept between runs (issue 28): a re-check retrieves only what changed."""

from __future__ import annotations

import numpy as np

from citeproof.embeddings import EmbeddingSettings
from citeproof.embeddings.settings import CHUNKS_ON_DEMAND
from citeproof.retriever.service import RetrieverService, default_embed
from citeproof.retriever.settings import RetrieverSettings

from .retriever_support import (
    HEAT_ISLANDS,
    HEAT_TITLE,
    SLEEP_MEMORY,
    SLEEP_TITLE,
    Cite,
    add_chunks,
    add_document,
    add_thesis,
    create_run,
    drain,
    new_session,
    new_user,
)

REFERENCES = {
    "1": {"title": HEAT_TITLE},
    "2": {"title": SLEEP_TITLE},
}
CITES = [
    Cite("Dense city centres stay about three degrees warmer at night [1].", "[1]", ["1"]),
    Cite("Street trees cool the blocks they shade at midday [1].", "[1]", ["1"]),
    Cite("Sleeping after learning improves the recall of word pairs [2].", "[2]", ["2"]),
]
QUERY = "Street trees cool the blocks they shade at midday."


class Counting:
    """The query embedder, counting what it embedded: retrieval embeds at least the claim."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    async def __call__(self, texts: list[str]) -> np.ndarray:
        self.texts.extend(texts)
        return await default_embed(texts)


def service(counting: Counting, **settings) -> RetrieverService:
    return RetrieverService(
        RetrieverSettings(**settings),
        counting,
        embeddings=EmbeddingSettings(chunks=CHUNKS_ON_DEMAND),
    )


async def _world(pool):
    user = await new_user(pool)
    session = await new_session(pool, user)
    heat = await add_document(pool, user, title=HEAT_TITLE, session_id=session)
    await add_chunks(pool, user, heat, HEAT_ISLANDS, embedded=False)
    sleep = await add_document(pool, user, title=SLEEP_TITLE, session_id=session)
    await add_chunks(pool, user, sleep, SLEEP_MEMORY, embedded=False)
    thesis = await add_thesis(pool, user, REFERENCES, CITES, session_id=session)
    return user, session, thesis, [heat, sleep]


async def _run(pool, retriever: RetrieverService, user, session, thesis, sources):
    run = await create_run(pool, user, session, thesis.document_id, sources)
    await drain(pool, retriever.plan_stage)
    await drain(pool, retriever.retrieve_stage)
    evidence = await pool.fetch(
        "SELECT citation_id, rank, chunk_id, page, text, vector_score, bm25_score, fused_score "
        "FROM evidence WHERE run_id = $1 ORDER BY citation_id, rank",
        run,
    )
    counts = await pool.fetchrow("SELECT retrieved, evidence_reused FROM runs WHERE id = $1", run)
    return [tuple(row) for row in evidence], tuple(counts)


async def test_a_second_run_reuses_the_evidence_of_every_unchanged_claim(pool) -> None:
    user, session, thesis, sources = await _world(pool)
    first_counting, again_counting = Counting(), Counting()
    first, first_counts = await _run(pool, service(first_counting), user, session, thesis, sources)
    assert first and first_counts == (len(CITES), 0)
    assert len(first_counting.texts) >= len(CITES)
    # Another retriever process (nothing in memory): the same evidence, nothing embedded.
    again, again_counts = await _run(pool, service(again_counting), user, session, thesis, sources)
    assert again == first
    assert again_counts == (len(CITES), len(CITES))
    assert again_counting.texts == []


async def test_a_changed_claim_a_re_parsed_source_or_other_settings_retrieve_again(pool) -> None:
    user, _, _, (heat, _) = await _world(pool)
    counting = Counting()
    kept = service(counting)
    passages, reused = await kept.evidence_for(pool, user, heat, QUERY)
    assert passages and not reused
    assert (await kept.evidence_for(pool, user, heat, QUERY)) == (passages, True)
    # A changed claim is retrieved.
    edited = QUERY.rstrip(".") + ", as the authors report."
    assert not (await kept.evidence_for(pool, user, heat, edited))[1]
    # Other ranking settings do not share entries.
    other = service(Counting(), vector_weight=0.5)
    assert not (await other.evidence_for(pool, user, heat, QUERY))[1]
    # The same document parsed again (new chunks, new parse time): retrieved again.
    await pool.execute("UPDATE documents SET parsed_at = now() WHERE id = $1", heat)
    assert not (await kept.evidence_for(pool, user, heat, QUERY))[1]


async def test_another_user_never_gets_my_evidence(pool) -> None:
    owner, _, _, (heat, _) = await _world(pool)
    stranger = await new_user(pool)
    kept = service(Counting())
    assert (await kept.evidence_for(pool, owner, heat, QUERY))[0]
    # Asking for the owner's document under another user's id finds neither its entry nor
    # its chunks.
    assert await kept.evidence_for(pool, stranger, heat, QUERY) == ([], False)
