"""The report shows a `reference_missing` citation with the entries its marker nearly matched,
in JSON, Markdown and HTML, without linking it to any of them."""

from __future__ import annotations

import uuid

from citeproof.contracts.findings import FROM_REFERENCE_LIST
from citeproof.pipeline import ERROR, REFERENCE_MISSING_RULE
from tests.integration.api_support import api_client, new_user, seed_results, thesis_with_sources
from tests.integration.test_api_runs import start_run

NEAR_MISS_RAW = "Tanaka, H., Weber, R., & Novak, P. (2022). Aerosols <indoors>. Air 7."


async def _add_reference_missing(pool, run_id: str, thesis_id: str) -> None:
    thesis, run = uuid.UUID(thesis_id), uuid.UUID(run_id)
    await pool.execute(
        'INSERT INTO "references" (document_id, ordinal, label, raw, title) '
        "VALUES ($1, 10, 'Tanaka2022', $2, 'Aerosols indoors')",
        thesis,
        NEAR_MISS_RAW,
    )
    citation_id = await pool.fetchval(
        "INSERT INTO citations (document_id, ordinal, reference_id, reference_label, marker_text, "
        "marker_start, marker_end, claim_text, claim_start, claim_end, page, candidate_labels) "
        "VALUES ($1, 10, NULL, NULL, '(Novak, 2022)', 40, 53, "
        "'Aerosols linger in classrooms (Novak, 2022).', 10, 54, 2, ARRAY['Tanaka2022']) "
        "RETURNING id",
        thesis,
    )
    await pool.execute(
        "INSERT INTO verdicts (run_id, citation_id, label, confidence, rationale, backend) "
        "VALUES ($1, $2, 'reference_missing', 1.0, 'no entry', 'pipeline')",
        run,
        citation_id,
    )


async def test_reference_missing_citation_shows_its_candidates(pool, db_settings):
    alice = await new_user(pool)
    async with api_client(db_settings) as client:
        ids = await thesis_with_sources(client, alice)
        run_id = await start_run(client, alice, ids)
        await seed_results(pool, run_id, ids)
        await _add_reference_missing(pool, run_id, ids["thesis_id"])

        report = (await client.get(f"/v1/runs/{run_id}/report", headers=alice.headers)).json()
        assert report["summary"]["counts"]["reference_missing"] == 1
        (missing,) = [c for c in report["citations"] if c["marker"] == "(Novak, 2022)"]
        # Reported once, as the rule's finding, with the entries it nearly matched as evidence.
        assert missing["verdict"] is None
        (finding,) = missing["findings"]
        assert (finding["rule"], finding["severity"], finding["expected"]) == (
            REFERENCE_MISSING_RULE.code,
            ERROR,
            "(Novak, 2022)",
        )
        assert finding["message"] == "no entry"  # the planner's rationale
        assert finding["evidence"] == [{"origin": FROM_REFERENCE_LIST, "text": NEAR_MISS_RAW}]
        assert missing["source"] is None and missing["reference"]["label"] is None
        assert missing["candidates"] == [
            {"label": "Tanaka2022", "raw": NEAR_MISS_RAW, "title": "Aerosols indoors"}
        ]
        linked = [c for c in report["citations"] if c["marker"] != "(Novak, 2022)"]
        assert all(c["candidates"] == [] for c in linked)

        markdown = (
            await client.get(f"/v1/runs/{run_id}/report?format=markdown", headers=alice.headers)
        ).text
        assert "| Reference missing | 1 |" in markdown
        assert f"**Error {REFERENCE_MISSING_RULE.code}** (reference-missing)" in markdown
        assert "closest entries (not linked)" in markdown
        assert "- [Tanaka2022] Tanaka, H., Weber, R., &amp; Novak, P. (2022)." in markdown

        page = (
            await client.get(f"/v1/runs/{run_id}/report?format=html", headers=alice.headers)
        ).text
        assert "closest entries (not linked)" in page
        assert "<b>[Tanaka2022]</b> Tanaka, H., Weber, R., &amp; Novak, P." in page
        assert "Aerosols &lt;indoors&gt;" in page
