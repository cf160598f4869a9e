"""Recording a task's final verdict and completing its run — one implementation for every
stage that can end a citation (the judge, and the retriever when retrieval is exhausted).

The run row is updated with a single UPDATE ... RETURNING, so concurrent finishers serialise
on its row lock and exactly one of them sees the last count and completes the run.
"""

from __future__ import annotations

from typing import Any

import asyncpg

from citeproof.contracts.judging import Verdict
from citeproof.pipeline import EVENTS_CHANNEL, JUDGE_ERROR
from citeproof.queue import TerminalOutcome
from citeproof.queue.stage import TerminalHook

TERMINAL_RUN_STATUSES = ("completed", "cancelled", "failed")

# ON CONFLICT: a verdict written by a task whose completion committed is final; nothing can
# write a second one for the same (run, citation).
INSERT_VERDICT = """
INSERT INTO verdicts (run_id, citation_id, label, confidence, rationale, quote, quote_page,
    backend, model, prompt_version, latency_ms, prompt_tokens, completion_tokens,
    downgraded_from, downgrade_reason, cached, problem_probability, band)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)
ON CONFLICT (run_id, citation_id) DO NOTHING
RETURNING label
"""

# `retrieved` advances too when a citation ends before reaching the judge.
COUNT_JUDGED = """
UPDATE runs SET judged = judged + 1, retrieved = retrieved + $2
WHERE id = $1
RETURNING judged, tasks_total, status
"""

# Counts are recomputed from the verdicts themselves (planner-written non-verdicts
# included), so they can never drift from what the report shows.
COMPLETE_RUN = """
UPDATE runs
SET status = 'completed', finished_at = now(),
    counts = coalesce((SELECT jsonb_object_agg(label, n)
                       FROM (SELECT label, count(*) AS n FROM verdicts
                             WHERE run_id = $1 GROUP BY label) per_label), '{}'::jsonb)
WHERE id = $1 AND status NOT IN ('completed', 'cancelled', 'failed')
RETURNING id
"""

NOTIFY = "SELECT pg_notify($1, $2)"


def failure_verdict(label: str, rationale: str, *, backend: str, model: str = "") -> Verdict:
    """A non-verdict (e.g. `judge_error`) for a citation the pipeline could not decide."""
    return Verdict(
        label=label,
        confidence=0.0,
        rationale=rationale[:500],
        quote=None,
        quote_page=None,
        backend=backend,
        model=model,
        prompt_version="",
        latency_ms=0.0,
        prompt_tokens=0,
        completion_tokens=0,
    )


async def record_final_verdict(
    conn: asyncpg.Connection,
    run_id: Any,
    citation_id: int,
    verdict: Verdict,
    *,
    cached: bool = False,
    before_judge: bool = False,
) -> bool:
    """Write the verdict, count it, complete the run if it was the last; False if a verdict
    for this citation already existed (nothing is counted twice)."""
    inserted = await conn.fetchval(
        INSERT_VERDICT, run_id, citation_id, verdict.label, verdict.confidence,
        verdict.rationale, verdict.quote, verdict.quote_page, verdict.backend, verdict.model,
        verdict.prompt_version, verdict.latency_ms, verdict.prompt_tokens,
        verdict.completion_tokens, verdict.downgraded_from, verdict.downgrade_reason, cached,
        verdict.problem_probability, verdict.band,
    )  # fmt: skip
    if inserted is None:
        return False
    progress = await conn.fetchrow(COUNT_JUDGED, run_id, 1 if before_judge else 0)
    if progress["judged"] >= progress["tasks_total"] and (
        progress["status"] not in TERMINAL_RUN_STATUSES
    ):
        await conn.fetchval(COMPLETE_RUN, run_id)
    await conn.execute(NOTIFY, EVENTS_CHANNEL, str(run_id))
    return True


def failure_verdict_hook(
    reason: str, *, backend: str, model: str = "", before_judge: bool = False
) -> TerminalHook:
    """The terminal hook of a stage whose row is one (run, citation): a task that failed for
    good must not hold its run back, so the citation gets a `judge_error` verdict (the pipeline
    could not produce one) and counts as judged. Other terminal states are left alone.
    `reason` starts the rationale; the task's last error detail follows it."""

    async def on_terminal(
        conn: asyncpg.Connection, row: asyncpg.Record, outcome: TerminalOutcome
    ) -> None:
        if outcome.state not in ("failed", "dead"):
            return
        rationale = f"{reason}: {outcome.error_detail or 'unknown'}"
        verdict = failure_verdict(JUDGE_ERROR, rationale, backend=backend, model=model)
        await record_final_verdict(
            conn, row["run_id"], row["citation_id"], verdict, before_judge=before_judge
        )

    return on_terminal
