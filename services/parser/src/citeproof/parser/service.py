"""The `parse` stage: claim a parse item, parse its staged bytes in the sandbox, embed the
chunks if embeddings are made at parse time (`CITEPROOF_EMBEDDINGS_CHUNKS=at_parse`; by default
the retriever embeds them on demand, ADR 0022), and store everything in the item's completing
transaction.

Bookkeeping that must happen on every terminal transition (succeeded, failed, dead, cancelled)
lives in `on_terminal`, which the runtime calls inside the transaction of that transition: the
staged bytes are NULLed, the document and the parse job follow the item, and runs waiting for
this document are woken.
"""

from __future__ import annotations

import asyncio
import time

import asyncpg
import numpy as np

from citeproof.embeddings import EMBEDDING_DIM, EmbeddingSettings, get_embedder
from citeproof.embeddings.base import PURPOSE_CHUNKS, aembed
from citeproof.embeddings.settings import CHUNKS_AT_PARSE
from citeproof.parser.errors import (
    MISSING_BYTES,
    TIMEOUT,
    TOO_LARGE,
    ParseFailure,
)
from citeproof.parser.sandbox import ChildCrashed, ParseSandbox, crash_failure
from citeproof.parser.settings import ParserSettings
from citeproof.parser.store import store_document
from citeproof.pipeline import (
    PARSE_CHANNEL,
    PARSE_STAGE,
    RETRIEVE_CHANNEL,
    SANDBOX_CAPABILITY_PREFIX,
    STAGE_TABLES,
)
from citeproof.queue import (
    PeriodicJob,
    PermanentError,
    Stage,
    TaskContext,
    TerminalOutcome,
    notify,
)
from citeproof.settings import SettingsError, load
from citeproof.worker_service import StageDefaults, WorkerService

# Counters and state of the job in ONE statement: the row lock serialises two parsers finishing
# the last two items at once, and the second UPDATE re-evaluates on the first one's result.
_ADVANCE_JOB = """
UPDATE parse_jobs
SET succeeded_items = succeeded_items + $2,
    failed_items = failed_items + $3,
    state = CASE
        WHEN succeeded_items + $2 + failed_items + $3 < total_items THEN 'running'
        WHEN failed_items + $3 = 0 THEN 'succeeded'
        WHEN succeeded_items + $2 = 0 THEN 'failed'
        ELSE 'partial' END,
    finished_at = CASE
        WHEN succeeded_items + $2 + failed_items + $3 >= total_items THEN now() END
WHERE id = $1
RETURNING state
"""

_FINISH_ITEM = """
UPDATE parse_items
SET file_bytes = NULL, error_code = $2, error_detail = $3,
    finished_at = coalesce(finished_at, now())
WHERE id = $1
"""

_FAIL_DOCUMENT = """
UPDATE documents SET state = 'failed', error_code = $2, error_detail = $3
WHERE id = $1 AND state <> 'parsed'
"""

# Planning of a run waits for its documents; a finished document makes it look again now.
# A run a planner holds right now is woken too: its snooze then hands it back ready (the
# runtime's hand-back sees run_after moved), so a parse ending mid-planning is not missed.
_WAKE_RUNS = """
UPDATE runs SET run_after = now()
WHERE state IN ('queued', 'running') AND status = 'waiting_for_documents'
  AND $1 = ANY(document_ids)
RETURNING id
"""

# The document's kind, read under its row lock in the completing transaction.
_LOCK_DOCUMENT_KIND = "SELECT kind FROM documents WHERE id = $1 FOR UPDATE"

_LINKED_AS_SOURCE = """
SELECT EXISTS (SELECT 1 FROM session_sources WHERE document_id = $1 AND kind = 'source')
"""

_INTERNAL_ERROR_DETAIL = (
    "The parser failed on this file several times in a row (an internal error); try again "
    "later or re-export the file."
)

_STAGED_TTL = """
WITH expired AS (
    SELECT id FROM parse_items
    WHERE file_bytes IS NOT NULL AND created_at < now() - make_interval(secs => $1)
    LIMIT $2
    FOR UPDATE SKIP LOCKED
)
UPDATE parse_items AS p SET file_bytes = NULL FROM expired WHERE p.id = expired.id
"""
_STAGED_TTL_BATCH = 500

# Passages handed to the embedding thread at a time (~1.5 s of one core for the local model):
# the embedding budget is checked between two slices. The local ONNX runtime embeds each text
# alone, so slicing does not change a vector.
EMBED_SLICE_TEXTS = 64


class _KindChanged(Exception):
    """The document's kind changed while its item was parsed under the old one."""


class ParseService(WorkerService):
    """The stage's handler and hooks, holding the per-process sandbox and settings."""

    name = "parser"
    capabilities = ("parse:pdf", "parse:docx", "parse:html", "parse:markdown", "parse:text")
    stage_defaults = (
        StageDefaults(
            PARSE_STAGE,
            {"batch_size": 1, "concurrency": 2},
            "parsing is CPU-bound and a claimed row carries the whole upload, so a worker "
            "runs two items and claims them one at a time: idle replicas share a burst "
            "instead of one worker hoarding it.",
        ),
    )

    def __init__(
        self,
        settings: ParserSettings | None = None,
        embeddings: EmbeddingSettings | None = None,
    ) -> None:
        self.settings = settings or load(ParserSettings)
        # ADR 0022: by default the retriever embeds a source's passages when a claim first
        # needs them, and the parser embeds nothing; `at_parse` is the earlier path.
        self.embeds_at_parse = (embeddings or load(EmbeddingSettings)).chunks == CHUNKS_AT_PARSE
        if self.settings.embed_thesis_chunks and not self.embeds_at_parse:
            raise SettingsError(
                "CITEPROOF_PARSER_EMBED_THESIS_CHUNKS=true needs "
                "CITEPROOF_EMBEDDINGS_CHUNKS=at_parse: with on-demand embeddings the parser "
                "embeds nothing, and the retriever embeds what a claim needs of any document."
            )
        self.sandbox = ParseSandbox(self.settings)
        # The registry (and the API's /readyz) shows how this worker's parsing children are
        # isolated; a probe finds out without starting one.
        self.capabilities = (
            *type(self).capabilities,
            SANDBOX_CAPABILITY_PREFIX + self.sandbox.expected_isolation().mode,
        )

    def stages(self) -> list[Stage]:
        return [self.parse_stage]

    def periodic(self) -> list[PeriodicJob]:
        return [
            PeriodicJob(
                name="staged_bytes_ttl",
                interval_s=self.settings.staged_ttl_interval_s,
                run=self._expire_staged_bytes,
            )
        ]

    def close(self) -> None:
        self.sandbox.close()

    @property
    def parse_stage(self) -> Stage:
        return Stage(
            name=PARSE_STAGE,
            table=STAGE_TABLES[PARSE_STAGE],
            channel=PARSE_CHANNEL,
            handler=self.handle,
            on_terminal=on_terminal,
            fair_by_user=True,  # one user's 300 uploads must not hold every parser
            defaults=self.defaults_for(PARSE_STAGE),
        )

    async def handle(self, ctx: TaskContext) -> None:
        row = ctx.row
        document = await ctx.pool.fetchrow(
            "SELECT id, user_id, kind, state FROM documents WHERE id = $1", row["document_id"]
        )
        if document is None or document["state"] == "parsed":
            # Identical bytes of the same user were parsed already (documents are unique by
            # sha256): completing the item is all there is to do.
            ctx.log.info("parse.already_parsed", document_id=str(row["document_id"]))
            return
        if row["file_bytes"] is None:
            raise PermanentError(
                MISSING_BYTES,
                "The uploaded file is no longer staged (it waited longer than the staging "
                "limit); upload it again.",
            )
        await ctx.pool.execute(
            "UPDATE parse_jobs SET state = 'running' WHERE id = $1 AND state = 'queued'",
            row["job_id"],
        )
        try:
            parsed = await self.sandbox.parse(
                bytes(row["file_bytes"]), row["filename"], row["declared_type"], document["kind"]
            )
        except ParseFailure as failure:
            raise PermanentError(failure.code, failure.detail) from failure
        except ChildCrashed as crash:
            if ctx.attempt >= row["max_attempts"]:
                failure = crash_failure()
                raise PermanentError(failure.code, failure.detail) from crash
            raise
        cap = self.settings.max_chunks_per_document
        if len(parsed.chunks) > cap:
            # Embedding runs outside the parse time limit and costs per chunk: refuse first.
            raise PermanentError(
                TOO_LARGE,
                f"The document holds {len(parsed.chunks)} passages of text; citeproof indexes "
                f"at most {cap} per document. Upload the part that is cited.",
            )
        vectors = None
        if await self._needs_embeddings(ctx.pool, document):
            vectors = await self._embed_within_budget([chunk.text for chunk in parsed.chunks])
        try:
            async with ctx.complete() as conn:
                # The kind decides the analysis (a thesis gets its references and citations),
                # and the API changes it when the same file is re-sent as the thesis while we
                # parse. Read it again under the document's row lock, which the API's update
                # takes too: if it moved, nothing is stored and the item is parsed again.
                kind_now = await conn.fetchval(_LOCK_DOCUMENT_KIND, document["id"])
                if kind_now != document["kind"]:
                    raise _KindChanged(kind_now)
                await store_document(conn, document["id"], document["user_id"], parsed, vectors)
        except _KindChanged as changed:
            ctx.log.info("parse.kind_changed", parsed_as=document["kind"], now=str(changed))
            await ctx.snooze(0)  # no attempt charged: the item did nothing wrong
            return
        ctx.log.info(
            "parse.stored",
            document_id=str(document["id"]),
            pages=parsed.pages,
            chunks=len(parsed.chunks),
            type=parsed.detected_type,
        )

    async def _embed_within_budget(self, texts: list[str]) -> np.ndarray:
        """Embed in slices, checking the document's budget between them: a thread cannot be
        stopped, so a slice is the most that runs on once the budget is spent, and the item
        fails while its slot is given back."""
        budget = self.settings.embed_budget_s
        deadline = time.monotonic() + budget
        embedder = get_embedder()
        parts: list[np.ndarray] = []
        for start in range(0, len(texts), EMBED_SLICE_TEXTS):
            if time.monotonic() > deadline:
                raise PermanentError(
                    TIMEOUT,
                    f"Indexing the document's {len(texts)} passages took longer than the "
                    f"{budget:g} s allowed per document ({start} done); upload the part that "
                    "is cited.",
                )
            part = texts[start : start + EMBED_SLICE_TEXTS]
            parts.append(await aembed(embedder, part, purpose=PURPOSE_CHUNKS))
        if not parts:
            return np.zeros((0, EMBEDDING_DIM), dtype=np.float32)
        return np.concatenate(parts)

    async def _needs_embeddings(self, pool: asyncpg.Pool, document: asyncpg.Record) -> bool:
        """With embeddings at parse time: sources are searched as evidence and need vectors; a
        thesis does not, unless the same file also serves as a source in some session (the API
        upgrades a re-sent source to a thesis in place) or the operator wants thesis vectors
        anyway. On demand (the default), no document is embedded here."""
        if not self.embeds_at_parse:
            return False
        if document["kind"] != "thesis" or self.settings.embed_thesis_chunks:
            return True
        return bool(await pool.fetchval(_LINKED_AS_SOURCE, document["id"]))

    async def warm_up(self, pool: asyncpg.Pool | None = None) -> None:
        """Start a parsing child, and load the embedder if this parser embeds, before the first
        item arrives."""
        if not self.embeds_at_parse:
            await self.sandbox.warm_up()
            return
        await asyncio.gather(self.sandbox.warm_up(), aembed(get_embedder(), ["warm-up"]))

    async def _expire_staged_bytes(self, pool: asyncpg.Pool) -> int:
        return await expire_staged_bytes(pool, self.settings.staged_ttl_s)


async def on_terminal(
    conn: asyncpg.Connection, row: asyncpg.Record, outcome: TerminalOutcome
) -> None:
    failed = outcome.state != "succeeded"
    code = outcome.error_code if failed else None
    detail = outcome.error_detail if failed else None
    if outcome.state == "dead":
        code = code or "internal_error"
        detail = _INTERNAL_ERROR_DETAIL
    elif outcome.state == "cancelled":
        code = code or "cancelled"
        detail = detail or "The upload was cancelled."
    await conn.execute(_FINISH_ITEM, row["id"], code, detail)
    if failed:
        await conn.execute(_FAIL_DOCUMENT, row["document_id"], code, detail)
    await conn.fetchval(_ADVANCE_JOB, row["job_id"], int(not failed), int(failed))
    woken = await conn.fetch(_WAKE_RUNS, row["document_id"])
    if woken:
        await notify(conn, RETRIEVE_CHANNEL)


async def expire_staged_bytes(pool: asyncpg.Pool, ttl_s: float) -> int:
    """Safety net: NULL staged bytes older than the TTL, whatever happened to their item."""
    total = 0
    while True:
        status = await pool.execute(_STAGED_TTL, float(ttl_s), _STAGED_TTL_BATCH)
        count = int(status.split()[-1])
        total += count
        if count < _STAGED_TTL_BATCH:
            return total
