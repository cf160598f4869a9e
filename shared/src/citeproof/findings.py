"""Storing findings — one implementation for every producer (the planner's reference-list and
attachment rules, the retriever's quotation, number and page rules, reference verification).

A producer replaces, never appends: in the transaction that completes its task it deletes the
rows it wrote earlier for the same run and subjects, then inserts what it found now. A retried
or re-claimed task (a worker killed mid-task, a lease lost) therefore leaves exactly one set.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Final, NamedTuple

import asyncpg
import msgspec

from citeproof.contracts.findings import Finding

# Who wrote a finding row (the `producer` column): the stage, or a step within one.
PRODUCER_PLAN: Final = "plan"
PRODUCER_RETRIEVE: Final = "retrieve"
PRODUCER_VERIFY: Final = "verify"

DELETE_FOR_SUBJECTS = """
DELETE FROM findings
WHERE run_id = $1 AND producer = $2
  AND (citation_id = ANY($3::bigint[]) OR reference_id = ANY($4::bigint[]))
"""
DELETE_FOR_RUN = "DELETE FROM findings WHERE run_id = $1 AND producer = $2"
INSERT_MANY = """
INSERT INTO findings (run_id, user_id, producer, citation_id, reference_id, rule, body)
SELECT $1, $2, $3, f.citation_id, f.reference_id, f.rule, f.body
FROM unnest($4::bigint[], $5::bigint[], $6::text[], $7::jsonb[])
     AS f (citation_id, reference_id, rule, body)
"""
# Every finding of a run, in a stable order (reports sort them further).
SELECT_FOR_RUN = """
SELECT citation_id, reference_id, body
FROM findings
WHERE run_id = $1
ORDER BY citation_id NULLS LAST, reference_id NULLS LAST, id
"""

_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(Finding)


class Found(NamedTuple):
    """A finding and its subject: a citation, a reference entry, or both (an entry's finding
    shown at the citation that led to it)."""

    finding: Finding
    citation_id: int | None = None
    reference_id: int | None = None


async def replace_findings(
    conn: asyncpg.Connection,
    *,
    run_id: uuid.UUID,
    user_id: uuid.UUID,
    producer: str,
    found: Sequence[Found],
    citation_ids: Sequence[int] = (),
    reference_ids: Sequence[int] = (),
    whole_run: bool = False,
) -> None:
    """Replace this producer's findings about these subjects (or its whole run's) with `found`.
    Call inside the transaction that completes the producer's task."""
    if whole_run:
        await conn.execute(DELETE_FOR_RUN, run_id, producer)
    else:
        await conn.execute(
            DELETE_FOR_SUBJECTS, run_id, producer, list(citation_ids), list(reference_ids)
        )
    if not found:
        return
    await conn.execute(
        INSERT_MANY,
        run_id,
        user_id,
        producer,
        [f.citation_id for f in found],
        [f.reference_id for f in found],
        [f.finding.rule for f in found],
        [_encoder.encode(f.finding).decode() for f in found],
    )


async def findings_of_run(conn: asyncpg.Connection, run_id: uuid.UUID) -> list[Found]:
    rows = await conn.fetch(SELECT_FOR_RUN, run_id)
    return [
        Found(
            _decoder.decode(row["body"]),
            row["citation_id"],
            row["reference_id"],
        )
        for row in rows
    ]
