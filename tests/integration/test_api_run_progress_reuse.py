"""Run progress tells what a run did again and what it took over (issue 28): documents already
parsed when it started, evidence and verdicts reused from an earlier run, source passages its
retrievals embedded on demand."""

from __future__ import annotations

import uuid

from tests.integration.api_support import (
    api_client,
    finish_parsing,
    new_user,
    thesis_with_sources,
)
from tests.integration.test_api_runs import start_run


async def test_progress_counts_what_a_run_reused_and_embedded(pool, db_settings) -> None:
    alice = await new_user(pool)
    async with api_client(db_settings) as client:
        ids = await thesis_with_sources(client, alice)
        # The sources were parsed before the run (an earlier check); the thesis after it began.
        await finish_parsing(pool, ids["sources_job"])
        await pool.execute(
            "UPDATE documents SET parsed_at = now() - interval '1 hour' WHERE id = ANY($1)",
            [uuid.UUID(ids["smith_id"]), uuid.UUID(ids["doe_id"])],
        )
        run_id = await start_run(client, alice, ids)
        await finish_parsing(pool, ids["thesis_job"])
        status = (await client.get(f"/v1/runs/{run_id}", headers=alice.headers)).json()
        assert status["progress"]["parse"] == {"done": 3, "total": 3, "reused": 2}
        assert status["progress"]["retrieve"] == {"done": 0, "total": 0}  # zeros omitted

        # What the retriever and the judge count (service.COUNT_RETRIEVED, verdicts.cached).
        await pool.execute(
            "UPDATE runs SET status = 'judging', tasks_total = 4, retrieved = 4, judged = 2, "
            "evidence_reused = 3, chunks_embedded = 17 WHERE id = $1",
            uuid.UUID(run_id),
        )
        citation = await pool.fetchval(
            "INSERT INTO citations (document_id, ordinal, marker_text, marker_start, marker_end,"
            " claim_text, claim_start, claim_end, context_text, page) VALUES "
            "($1, 1, '[1]', 0, 3, 'A claim [1].', 0, 12, '', 1) RETURNING id",
            uuid.UUID(ids["thesis_id"]),
        )
        await pool.execute(
            "INSERT INTO verdicts (run_id, citation_id, label, confidence, rationale, backend,"
            " model, prompt_version, cached) VALUES ($1, $2, 'unsupported', 0.5, 'r', 'local',"
            " 'm', 'v', true)",
            uuid.UUID(run_id),
            citation,
        )
        status = (await client.get(f"/v1/runs/{run_id}", headers=alice.headers)).json()
        assert status["progress"] == {
            "parse": {"done": 3, "total": 3, "reused": 2},
            "retrieve": {"done": 4, "total": 4, "reused": 3, "embedded": 17},
            "judge": {"done": 2, "total": 4, "reused": 1},
        }
