"""Which pipeline stages have a live worker (from `worker_heartbeats`).

A worker advertises capabilities such as `parse` or `parse:pdf`; a stage counts as served when
a worker that heartbeated recently and is not draining advertises the stage name or a
`<stage>:...` refinement of it.
"""

from __future__ import annotations

import asyncpg

from citeproof.pipeline import (
    JUDGE_STAGE,
    PARSE_STAGE,
    PLAN_STAGE,
    RETRIEVE_STAGE,
    SANDBOX_CAPABILITY_PREFIX,
    VERIFY_STAGE,
)

# What a run status says it is waiting for when a stage has no live worker.
WAITING_LABELS = {
    PARSE_STAGE: "parser worker",
    PLAN_STAGE: "retriever worker (planning)",
    RETRIEVE_STAGE: "retriever worker",
    JUDGE_STAGE: "judge worker",
    VERIFY_STAGE: "retriever worker (reference verification)",
}

LIVE_CAPABILITIES_SQL = """
SELECT DISTINCT split_part(cap, ':', 1) AS stage
FROM worker_heartbeats, unnest(capabilities) AS cap
WHERE last_seen > now() - make_interval(secs => $1) AND NOT draining
"""

# Stages a live worker cannot serve because a backend they need is down (its circuit breaker
# is open), with the earliest time any worker saw the outage begin.
UNAVAILABLE_STAGES_SQL = """
SELECT s.key AS stage, s.value->>'dependency' AS dependency,
       min((s.value->>'since')::timestamptz) AS since
FROM worker_heartbeats AS w, jsonb_each(w.unavailable) AS s
WHERE w.last_seen > now() - make_interval(secs => $1) AND NOT w.draining
GROUP BY 1, 2
"""

# How the live parsers isolate their parsing children (the "parse:sandbox=<mode>" capability).
PARSER_SANDBOX_MODES_SQL = """
SELECT DISTINCT substr(cap, length($2) + 1) AS mode
FROM worker_heartbeats, unnest(capabilities) AS cap
WHERE last_seen > now() - make_interval(secs => $1) AND NOT draining AND starts_with(cap, $2)
ORDER BY 1
"""

LIVE_WORKERS_BY_SERVICE_SQL = """
SELECT service, count(*) AS n FROM worker_heartbeats
WHERE last_seen > now() - make_interval(secs => $1) AND NOT draining
GROUP BY service
"""


async def live_stages(conn: asyncpg.Connection | asyncpg.Pool, stale_after_s: float) -> set[str]:
    rows = await conn.fetch(LIVE_CAPABILITIES_SQL, float(stale_after_s))
    return {row["stage"] for row in rows}


async def unavailable_stages(
    conn: asyncpg.Connection | asyncpg.Pool, stale_after_s: float
) -> dict[str, str]:
    """stage -> what people are told, e.g. "judge backend unreachable since 2026-12-01
    18:40:12 UTC"."""
    rows = await conn.fetch(UNAVAILABLE_STAGES_SQL, float(stale_after_s))
    return {
        row["stage"]: f"{row['dependency']} unreachable since "
        + (f"{row['since']:%Y-%m-%d %H:%M:%S} UTC" if row["since"] else "recently")
        for row in rows
    }


async def parser_sandbox_modes(
    conn: asyncpg.Connection | asyncpg.Pool, stale_after_s: float
) -> list[str]:
    rows = await conn.fetch(
        PARSER_SANDBOX_MODES_SQL, float(stale_after_s), SANDBOX_CAPABILITY_PREFIX
    )
    return [row["mode"] for row in rows]


async def live_workers_by_service(
    conn: asyncpg.Connection | asyncpg.Pool, stale_after_s: float
) -> dict[str, int]:
    rows = await conn.fetch(LIVE_WORKERS_BY_SERVICE_SQL, float(stale_after_s))
    return {row["service"]: row["n"] for row in rows}
