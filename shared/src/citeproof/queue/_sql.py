"""The runtime's SQL, one named statement each. `{table}` is a queue table name taken from
a Stage definition (never from user input); `{limit}` is a claim's row count, filled in by
`with_limit`; all other values are bind parameters.

Every write to a claimed row is fenced on (id, worker_id, claim_token, state='running'), so
a worker that lost its lease can never overwrite the worker that took over.
"""

import re
from collections.abc import Callable, Container

# A parameter reference in a statement ($1, $2, ...).
_PARAMETER = re.compile(r"\$(\d+)")


def with_limit(statement: str, rows: int | None) -> str:
    """`statement` with its claim row count: the literal `rows`, or a parameter (numbered after
    the statement's own) when None.

    Why literals: with `LIMIT $n` PostgreSQL cannot estimate a generic plan's rows (it assumes
    a tenth of the table, and a plan for that many rows is a hash join over the whole queue),
    so it re-planned the statement at every execution - measured, 40% of the server's CPU per
    task on the benchmark's hot path. With a literal it plans once per connection and reuses
    the plan. The runtime writes the common counts as literals (a full batch, and a group
    completion that claims nothing) and passes the others as a parameter, so a stage needs
    only a few prepared statements however large its batch.
    """
    if rows is not None:
        return statement.replace("{limit}", str(int(rows)))
    last = max((int(n) for n in _PARAMETER.findall(statement)), default=0)
    return statement.replace("{limit}", f"${last + 1}")


def for_count(
    build: Callable[[int | None], str], rows: int, literal: Container[int]
) -> tuple[str, tuple[int, ...]]:
    """The statement that claims `rows` rows and the trailing argument it needs: the count
    written in when it is one of the `literal` counts (its plan is reused, see `with_limit`),
    else the count as the statement's last parameter. `build` is `with_limit` of a statement."""
    if rows in literal:
        return build(rows), ()
    return build(None), (rows,)


def _mark_claimed(chosen: str) -> str:
    """The claim's write, shared by both claims: the rows of CTE `chosen` become running
    under this worker ($1) with a fresh claim token (the fence of every later write) and a
    lease of $2 seconds."""
    return f"""UPDATE {{table}} AS t
SET state = 'running',
    attempts = t.attempts + 1,
    worker_id = $1,
    claimed_at = now(),
    lease_expires_at = now() + make_interval(secs => $2),
    claim_token = gen_random_uuid()
FROM {chosen}
WHERE t.id = {chosen}.id
RETURNING t.*, extract(epoch FROM clock_timestamp() - t.run_after)::float8 AS queue_wait_s
"""


# The claim's choice of rows, as CTEs ending in the named one (`candidates`, `chosen`) that
# holds the ids to claim ({limit}: how many). Shared by the claim loop's statement and the group
# completion that claims for the slots it frees.
#
# Plain: MATERIALIZED keeps the planner from inlining the CTE and re-evaluating the SKIP LOCKED
# scan per updated row; the partial index (priority, run_after) WHERE state = 'queued' serves
# both the filter and the order.
_CANDIDATES = """candidates AS MATERIALIZED (
    SELECT id FROM {table}
    WHERE state = 'queued' AND run_after <= now()
    ORDER BY priority, run_after
    LIMIT {limit}
    FOR UPDATE SKIP LOCKED
)"""

# Fair across users, for tables whose rows carry a user_id (Stage.fair_by_user). Global FIFO
# would let one user's backlog hold every worker while another user's single item waits behind
# it. Candidates: the next {limit} ready rows in FIFO order (the plain claim's index path) plus the
# next ready row of every user with queued work - the users come from a loose index scan of
# (user_id, priority, run_after) WHERE state = 'queued', one index descent per waiting user,
# never a pass over every queued row. A candidate's turn is its user's running rows plus its
# place among that user's candidates, so a user with nothing running goes first and a batch
# interleaves users; FIFO breaks ties. The turn is computed before the locking step because
# FOR UPDATE does not combine with window functions; a row locked by a concurrent claim is
# skipped, as in the plain claim. Not work-conserving against priority: fairness comes first.
# Needs WITH RECURSIVE.
_FAIR_CANDIDATES = """waiting_users AS (
    (SELECT user_id FROM {table} WHERE state = 'queued' ORDER BY user_id LIMIT 1)
    UNION ALL
    SELECT (SELECT q.user_id FROM {table} AS q
            WHERE q.state = 'queued' AND q.user_id > w.user_id
            ORDER BY q.user_id LIMIT 1)
    FROM waiting_users AS w
    WHERE w.user_id IS NOT NULL
),
candidates AS MATERIALIZED (
    (SELECT id FROM {table}
     WHERE state = 'queued' AND run_after <= now()
     ORDER BY priority, run_after
     LIMIT {limit})
    UNION
    SELECT head.id FROM waiting_users AS w
    CROSS JOIN LATERAL (
        SELECT q.id FROM {table} AS q
        WHERE q.state = 'queued' AND q.user_id = w.user_id AND q.run_after <= now()
        ORDER BY q.priority, q.run_after
        LIMIT 1
    ) AS head
    WHERE w.user_id IS NOT NULL
),
running AS MATERIALIZED (
    SELECT user_id, count(*) AS n FROM {table} WHERE state = 'running' GROUP BY user_id
),
turns AS MATERIALIZED (
    SELECT t.id,
           coalesce(r.n, 0) + row_number() OVER (
               PARTITION BY t.user_id ORDER BY t.priority, t.run_after) AS turn,
           t.priority, t.run_after
    FROM {table} AS t
    JOIN candidates AS c ON c.id = t.id
    LEFT JOIN running AS r ON r.user_id = t.user_id
),
chosen AS MATERIALIZED (
    SELECT t.id FROM {table} AS t
    JOIN turns ON turns.id = t.id
    WHERE t.state = 'queued'
    ORDER BY turns.turn, turns.priority, turns.run_after
    LIMIT {limit}
    FOR UPDATE OF t SKIP LOCKED
)"""

# Batch claim in one statement: {limit} rows for worker $1, with a lease of $2 seconds.
CLAIM = "WITH " + _CANDIDATES + "\n" + _mark_claimed("candidates")
CLAIM_FAIR = "WITH RECURSIVE " + _FAIR_CANDIDATES + "\n" + _mark_claimed("chosen")


def _complete_and_claim(recursive: str, candidates: str, chosen: str) -> str:
    """Group completion and the next claim in ONE statement (see _completer.py): the fenced
    UPDATE of worker $1's claims $3 to succeeded, the stage's success bookkeeping
    (`{succeeded}`, a data-modifying statement reading `done`, or a bare SELECT), and a claim
    of {limit} rows (lease $2 seconds) for the slots the group frees ({limit} may be 0). The
    two UPDATEs touch disjoint rows (running vs queued) and the claim skips locked rows, so the
    statement waits on nobody. It returns the claimed rows exactly as the claim does, followed
    by one row per claim of the group whose fence did NOT hold: every column NULL but
    `claim_token` (normally there is none)."""
    return f"""WITH {recursive}done AS (
    UPDATE {{table}}
    SET state = 'succeeded', finished_at = now(), lease_expires_at = NULL
    WHERE worker_id = $1 AND state = 'running' AND claim_token = ANY($3::uuid[])
    RETURNING *
),
hook AS (
{{succeeded}}
),
{candidates},
claimed AS (
{_mark_claimed(chosen)}),
lost AS (
    SELECT token FROM unnest($3::uuid[]) AS token
    WHERE token NOT IN (SELECT claim_token FROM done)
)
SELECT * FROM claimed
UNION ALL
SELECT fenced_out.*, NULL::float8
FROM lost
CROSS JOIN LATERAL jsonb_populate_record(
    NULL::{{table}}, jsonb_build_object('claim_token', lost.token)) AS fenced_out
"""


COMPLETE_AND_CLAIM = _complete_and_claim("", _CANDIDATES, "candidates")
COMPLETE_AND_CLAIM_FAIR = _complete_and_claim("RECURSIVE ", _FAIR_CANDIDATES, "chosen")
# The `{succeeded}` of a stage with no success bookkeeping: a CTE nothing reads is not run.
NO_SUCCESS_SQL = "SELECT"

# Extends every lease this worker holds on the given claims; returns those still held.
HEARTBEAT = """
UPDATE {table}
SET lease_expires_at = now() + make_interval(secs => $3)
WHERE worker_id = $1 AND state = 'running' AND claim_token = ANY($2::uuid[])
RETURNING claim_token
"""

COMPLETE = """
UPDATE {table}
SET state = 'succeeded', finished_at = now(), lease_expires_at = NULL
WHERE id = $1 AND worker_id = $2 AND claim_token = $3 AND state = 'running'
RETURNING id
"""

# Group commit of implicit completions of a stage whose terminal hook is Python (see
# _hooked_completer.py): the same fence, for many claims of this worker at once; the
# (worker_id) WHERE state = 'running' index finds them.
COMPLETE_GROUP = """
UPDATE {table}
SET state = 'succeeded', finished_at = now(), lease_expires_at = NULL
WHERE worker_id = $1 AND state = 'running' AND claim_token = ANY($2::uuid[])
RETURNING claim_token
"""

FAIL_PERMANENTLY = """
UPDATE {table}
SET state = 'failed', finished_at = now(), lease_expires_at = NULL, last_error = $4
WHERE id = $1 AND worker_id = $2 AND claim_token = $3 AND state = 'running'
RETURNING id
"""

# Retry after a delay, or `dead` once the attempts are used up (the error is kept).
RETRY_OR_BURY = """
UPDATE {table}
SET state = CASE WHEN attempts >= max_attempts THEN 'dead' ELSE 'queued' END,
    finished_at = CASE WHEN attempts >= max_attempts THEN now() END,
    run_after = now() + make_interval(secs => $4),
    last_error = $5,
    claim_token = NULL,
    lease_expires_at = NULL
WHERE id = $1 AND worker_id = $2 AND claim_token = $3 AND state = 'running'
RETURNING state
"""

# Give a row back without charging the attempt (drain on SIGTERM, snooze). A producer may
# wake a row while it runs by moving its run_after ($5 is the value the claim saw): such a row
# is handed back ready now, not after the delay, or that wake-up would be lost.
HAND_BACK = """
UPDATE {table}
SET state = 'queued',
    attempts = greatest(attempts - 1, 0),
    run_after = CASE WHEN run_after IS DISTINCT FROM $5 THEN now()
                     ELSE now() + make_interval(secs => $4) END,
    claim_token = NULL,
    lease_expires_at = NULL
WHERE id = $1 AND worker_id = $2 AND claim_token = $3 AND state = 'running'
RETURNING id
"""

# Stall sweeper: rows whose lease expired (a killed or frozen worker), or whose owner is gone
# from the registry (deregistered, pruned, or not seen for $4 seconds), go back to the queue
# with backoff, or to `dead` after max_attempts. Reclaiming the row of a live owner is safe
# (its claim token changes, so the fence rejects that owner's later writes) but wasteful;
# owners touch the registry at least twice per $4 (settings validation), so it does not
# happen to a healthy worker. Runs inside a transaction so that terminal hooks
# of buried rows commit together with the state change. Returns ids and states only: a row
# can carry megabytes (a parse item's staged upload), and a requeued row needs none of it.
SWEEP_EXPIRED = """
WITH expired AS MATERIALIZED (
    SELECT q.id FROM {table} AS q
    WHERE q.state = 'running'
      AND (q.lease_expires_at < now()
           OR NOT EXISTS (
               SELECT 1 FROM worker_heartbeats AS w
               WHERE w.worker_id = q.worker_id
                 AND w.last_seen > now() - make_interval(secs => $4)))
    ORDER BY q.lease_expires_at
    LIMIT $1
    FOR UPDATE OF q SKIP LOCKED
)
UPDATE {table} AS t
SET state = CASE WHEN t.attempts >= t.max_attempts THEN 'dead' ELSE 'queued' END,
    finished_at = CASE WHEN t.attempts >= t.max_attempts THEN now() END,
    run_after = now() + make_interval(
        secs => least($3::float8, $2::float8 * power(2, greatest(t.attempts - 1, 0)))
                * (0.5 + random() / 2)),
    last_error = CASE WHEN t.lease_expires_at < now()
        THEN 'lease expired: worker ' || coalesce(t.worker_id, '?') || ' stopped heartbeating'
        ELSE 'worker ' || coalesce(t.worker_id, '?') || ' is gone from the registry' END,
    claim_token = NULL,
    lease_expires_at = NULL
FROM expired
WHERE t.id = expired.id
RETURNING t.id, t.state, t.last_error
"""

# The whole row, for the terminal hook of a row the sweeper buried (rare: one at a time).
SELECT_ROW = "SELECT * FROM {table} WHERE id = $1"

# A buried row whose terminal hook raised keeps its state; the hook's error is appended to
# the row's own so that the missing bookkeeping is visible where operators look.
RECORD_HOOK_FAILURE = """
UPDATE {table}
SET last_error = left(coalesce(last_error || '; ', '') || 'terminal hook failed: ' || $2, 4000)
WHERE id = $1
"""

NOTIFY = "SELECT pg_notify($1, $2)"

# Registers a worker at boot, and on every beat marks it seen (and whether it is draining).
# An upsert, not an UPDATE: a worker whose row was pruned (it was partitioned from the
# database for longer than the prune age, yet kept working) appears again at its next beat.
# `capabilities` leave out a stage whose backend is down, which `unavailable` ($8) describes.
TOUCH_WORKER = """
INSERT INTO worker_heartbeats (worker_id, service, version, capabilities, hostname, pid, draining,
                               unavailable)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb)
ON CONFLICT (worker_id) DO UPDATE
SET last_seen = now(), draining = EXCLUDED.draining, capabilities = EXCLUDED.capabilities,
    unavailable = EXCLUDED.unavailable
"""

DEREGISTER_WORKER = "DELETE FROM worker_heartbeats WHERE worker_id = $1"

# Other registered workers of this service on this host: at boot, the ones whose process is
# dead (a kill -9, a container restart) are deregistered, and the sweep takes their rows back.
SELECT_HOST_WORKERS = """
SELECT worker_id, pid FROM worker_heartbeats
WHERE service = $1 AND hostname = $2 AND worker_id <> $3
"""

# Registry rows of workers that vanished without deregistering (kill -9) are pruned.
PRUNE_WORKERS = "DELETE FROM worker_heartbeats WHERE last_seen < now() - make_interval(secs => $1)"


def for_table(statement: str, table: str) -> str:
    return statement.replace("{table}", table)
