"""The chaos controller: several theses through the full stack while services die.

A calm run (one replica of each worker, nothing breaks) and a chaos run (two replicas of each
worker, a seeded schedule of kill -9s, a rolling redeploy of every service, one PostgreSQL
restart and a period in which restarted workers run deaf — LISTEN disabled, so every
notification is missed and only pollers find work) process the same input on fresh databases
of one embedded server. Afterwards the invariants are checked in SQL and the verdicts of both
runs compared.
"""

from __future__ import annotations

import asyncio
import json
import random
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import asyncpg
import httpx

from citeproof.auth import create_token, create_user
from citeproof.db.embedded import EmbeddedPostgres
from citeproof.db.migrate import apply_migrations
from citeproof.devkit.journey import client, submit_thesis, wait_for_run
from citeproof.devstack import WORKER_SERVICES, DevStack

RUN_TIMEOUT_S = 900.0
FAST_ENV = {
    # Short leases so that killed workers' rows come back within seconds, not minutes.
    "CITEPROOF_LEASE_S": "8",
    "CITEPROOF_HEARTBEAT_S": "2",
    "CITEPROOF_SWEEP_INTERVAL_S": "2",
    "CITEPROOF_POLL_INTERVAL_S": "1",
    "CITEPROOF_DRAIN_GRACE_S": "15",
    "CITEPROOF_BACKOFF_BASE_S": "0.5",
    "CITEPROOF_BACKOFF_MAX_S": "4",
}


@dataclass
class Thesis:
    thesis: Path
    sources: list[Path]


@dataclass
class ChaosFigures:
    seed: int
    kills: int = 0
    graceful_restarts: int = 0
    postgres_restarts: int = 0
    deaf_workers: int = 0
    events: list[str] = field(default_factory=list)


async def _new_database(server: EmbeddedPostgres, name: str) -> str:
    conn = await asyncpg.connect(server.url())
    try:
        await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()
    url = server.url(name)
    await apply_migrations(url)
    return url


async def _token(url: str) -> str:
    """A new user with a token."""
    conn = await asyncpg.connect(url)
    try:
        user = await create_user(conn, f"chaos-{uuid.uuid4().hex[:6]}")
        _, token = await create_token(conn, user)
        return token
    finally:
        await conn.close()


def _submit(stack: DevStack, token: str, thesis: Thesis, name: str) -> str:
    """Submit one thesis, retrying while the API itself is being redeployed. A retry after a
    lost response may leave an extra session behind; only the run we got an id for counts."""
    deadline = time.monotonic() + RUN_TIMEOUT_S
    while True:
        try:
            with client(stack.api_url, token, timeout=30) as http:
                return submit_thesis(http, thesis.thesis, thesis.sources, name=name)
        except (httpx.HTTPError, AssertionError):
            if time.monotonic() > deadline:
                raise
            time.sleep(1)


def _wait_all(stack: DevStack, runs: list[tuple[str, str]]) -> list[dict]:
    statuses = []
    for token, run_id in runs:
        deadline = time.monotonic() + RUN_TIMEOUT_S
        while True:
            try:
                with client(stack.api_url, token, timeout=10) as http:
                    statuses.append(wait_for_run(http, run_id, timeout=RUN_TIMEOUT_S))
                break
            except (httpx.HTTPError, AssertionError):
                # The API itself may be mid-redeploy: ask again.
                if time.monotonic() > deadline:
                    raise
                time.sleep(1)
    return statuses


async def _verdicts(url: str, run_ids: list[str]) -> list[list[tuple]]:
    conn = await asyncpg.connect(url)
    try:
        out = []
        for run_id in run_ids:
            rows = await conn.fetch(
                "SELECT c.ordinal, c.reference_label, v.label, v.confidence, v.quote, v.quote_page "
                "FROM verdicts v JOIN citations c ON c.id = v.citation_id "
                "WHERE v.run_id = $1 ORDER BY c.ordinal, c.reference_label",
                uuid.UUID(run_id),
            )
            out.append([tuple(r) for r in rows])
        return out
    finally:
        await conn.close()


async def _chunk_vectors(url: str) -> list[tuple]:
    """Every stored chunk vector as (source bytes' sha256, chunk ordinal, vector), sorted:
    with on-demand embeddings (ADR 0022) the chunks a run embeds are a function of its claims,
    so a chaos run must store exactly the calm run's vectors - none lost to a kill, none
    different for having been computed twice."""
    conn = await asyncpg.connect(url)
    try:
        # pgvector's text form prints each float so that it reads back exactly.
        rows = await conn.fetch(
            "SELECT d.sha256, c.ordinal, c.embedding::text AS vector FROM chunks c "
            "JOIN documents d ON d.id = c.document_id WHERE c.embedding IS NOT NULL"
        )
        return sorted((r["sha256"], r["ordinal"], r["vector"]) for r in rows)
    finally:
        await conn.close()


async def check_invariants(url: str, run_ids: list[str]) -> dict:
    """What must hold after any amount of chaos; returns counts for the report."""
    conn = await asyncpg.connect(url)
    try:
        problems = []
        for run_id in run_ids:
            run = await conn.fetchrow(
                "SELECT status, citations_total,"
                " (SELECT count(*) FROM verdicts WHERE run_id = r.id) AS verdicts"
                " FROM runs r WHERE id = $1",
                uuid.UUID(run_id),
            )
            if run["status"] != "completed":
                problems.append(f"run {run_id} is {run['status']}")
            if run["verdicts"] != run["citations_total"]:
                problems.append(f"run {run_id}: {run['verdicts']} verdicts for "
                                f"{run['citations_total']} citations")  # fmt: skip
        stuck = await conn.fetchval(
            "SELECT count(*) FROM parse_items WHERE state NOT IN ('succeeded', 'failed', 'dead',"
            " 'cancelled')"
        )
        if stuck:
            problems.append(f"{stuck} parse items not terminal")
        staged = await conn.fetchval(
            "SELECT count(*) FROM parse_items WHERE state IN ('succeeded', 'failed', 'dead',"
            " 'cancelled') AND file_bytes IS NOT NULL"
        )
        if staged:
            problems.append(f"{staged} terminal parse items still hold file_bytes")
        for table in ("parse_items", "runs", "retrieve_tasks", "judge_tasks"):
            expired = await conn.fetchval(
                f"SELECT count(*) FROM {table} WHERE state = 'running' AND lease_expires_at < now()"
            )
            if expired:
                problems.append(f"{expired} {table} rows running with an expired lease")
        retries = {}
        for table in ("parse_items", "runs", "retrieve_tasks", "judge_tasks"):
            retries[table] = await conn.fetchval(
                f"SELECT coalesce(sum(greatest(attempts - 1, 0)), 0) FROM {table}"
            )
        return {"problems": problems, "extra_attempts": retries}
    finally:
        await conn.close()


def _log_counts(log_dir: Path) -> dict[str, int]:
    reclaimed = lost = handed_back = 0
    for path in log_dir.glob("*.log"):
        for line in path.read_text(errors="replace").splitlines():
            if not line.startswith("{"):
                continue
            try:
                event = json.loads(line)
            except ValueError:
                continue
            name = event.get("event")
            if name == "sweeper.reclaimed":
                reclaimed += int(event.get("requeued", 0)) + int(event.get("dead", 0))
            elif name == "task.lease_lost":
                lost += 1
            elif name == "task.handed_back":
                handed_back += 1
    return {"leases_reclaimed": reclaimed, "leases_lost_fenced": lost, "handed_back": handed_back}


class ChaosSchedule:
    """A seeded sequence of disruptions, run in a thread while the runs are in flight."""

    def __init__(self, stack: DevStack, server: EmbeddedPostgres, seed: int, *, kills: int) -> None:
        self.stack = stack
        self.server = server
        self.rng = random.Random(seed)
        self.figures = ChaosFigures(seed=seed)
        self.kills = kills
        self.done = threading.Event()
        self.error: BaseException | None = None

    def _log(self, what: str) -> None:
        self.figures.events.append(f"{time.strftime('%H:%M:%S')} {what}")

    def _pause(self, low: float, high: float) -> None:
        time.sleep(self.rng.uniform(low, high))

    def _random_worker(self):
        candidates = [p for p in self.stack.processes if p.service in WORKER_SERVICES and p.alive]
        return self.rng.choice(candidates)

    def run(self) -> None:
        try:
            self._pause(1, 3)
            for _ in range(self.kills):
                victim = self._random_worker()
                self._log(f"kill -9 {victim.name}")
                self.stack.replace(victim, graceful=False)
                self.figures.kills += 1
                self._pause(2, 5)
            # Rolling redeploy of every service, the API included.
            for proc in list(self.stack.processes):
                self._log(f"redeploy {proc.name}")
                self.stack.replace(proc, graceful=True)
                self.figures.graceful_restarts += 1
                self._pause(0.5, 2)
            self._log("restart postgres")
            self.server.stop()
            self._pause(1, 2)
            self.server.start()
            self.figures.postgres_restarts += 1
            # Deaf period: every worker restarted without LISTEN misses every notification.
            self.stack.env["CITEPROOF_LISTEN"] = "false"
            for proc in [p for p in list(self.stack.processes) if p.service in WORKER_SERVICES]:
                self._log(f"deaf restart {proc.name}")
                self.stack.replace(proc, graceful=self.rng.random() < 0.5)
                self.figures.deaf_workers += 1
            self._pause(8, 12)
            self.stack.env.pop("CITEPROOF_LISTEN")
            for proc in [p for p in list(self.stack.processes) if p.service in WORKER_SERVICES]:
                self._log(f"hearing restart {proc.name}")
                self.stack.replace(proc, graceful=True)
        except BaseException as exc:
            self.error = exc
        finally:
            self.done.set()


def run_chaos(theses: list[Thesis], seed: int, work_dir: Path, *, kills: int = 4) -> dict:
    """Calm run first, then the same theses submitted one after another WHILE the schedule
    runs, so that every disruption lands on work in flight (each thesis has its own user, so
    its sources are parsed, embedded and retrieved for that tenant)."""
    server = EmbeddedPostgres(work_dir / "pg", fast=True).start()
    try:
        calm_url = asyncio.run(_new_database(server, "calm"))
        chaos_url = asyncio.run(_new_database(server, "chaos"))

        started = time.monotonic()
        with DevStack(database_url=calm_url, log_dir=work_dir / "calm-logs",
                      env=dict(FAST_ENV)) as calm:  # fmt: skip
            calm.start()
            calm.wait_ready()
            calm_tokens = [asyncio.run(_token(calm_url)) for _ in theses]
            calm_runs = [
                (token, _submit(calm, token, thesis, f"thesis {i}"))
                for i, (token, thesis) in enumerate(zip(calm_tokens, theses, strict=True))
            ]
            _wait_all(calm, calm_runs)
        calm_seconds = time.monotonic() - started

        started = time.monotonic()
        with DevStack(database_url=chaos_url, log_dir=work_dir / "chaos-logs",
                      env=dict(FAST_ENV)) as stack:  # fmt: skip
            stack.start({service: 2 for service in WORKER_SERVICES})
            stack.wait_ready()
            tokens = [asyncio.run(_token(chaos_url)) for _ in theses]
            schedule = ChaosSchedule(stack, server, seed, kills=kills)
            thread = threading.Thread(target=schedule.run, daemon=True)
            thread.start()
            chaos_runs = []
            for i, (token, thesis) in enumerate(zip(tokens, theses, strict=True)):
                chaos_runs.append((token, _submit(stack, token, thesis, f"thesis {i}")))
                if not schedule.done.is_set():
                    time.sleep(schedule.rng.uniform(1.0, 3.0))
            schedule.done.wait(RUN_TIMEOUT_S)
            if schedule.error is not None:
                raise schedule.error
            _wait_all(stack, chaos_runs)
        chaos_seconds = time.monotonic() - started

        calm_ids = [run_id for _, run_id in calm_runs]
        chaos_ids = [run_id for _, run_id in chaos_runs]
        invariants = asyncio.run(check_invariants(chaos_url, chaos_ids))
        calm_verdicts = asyncio.run(_verdicts(calm_url, calm_ids))
        chaos_verdicts = asyncio.run(_verdicts(chaos_url, chaos_ids))
        calm_vectors = asyncio.run(_chunk_vectors(calm_url))
        chaos_vectors = asyncio.run(_chunk_vectors(chaos_url))
        if chaos_vectors != calm_vectors:
            invariants["problems"].append(
                f"stored chunk vectors differ from the calm run's ({len(chaos_vectors)} vs "
                f"{len(calm_vectors)})"
            )
        figures = schedule.figures
        return {
            "seed": seed,
            "theses": len(theses),
            "citations": sum(len(v) for v in chaos_verdicts),
            "kills": figures.kills,
            "graceful_restarts": figures.graceful_restarts,
            "postgres_restarts": figures.postgres_restarts,
            "deaf_worker_restarts": figures.deaf_workers,
            **_log_counts(work_dir / "chaos-logs"),
            "extra_attempts": invariants["extra_attempts"],
            "calm_seconds": round(calm_seconds, 1),
            "chaos_seconds": round(chaos_seconds, 1),
            "time_ratio": round(chaos_seconds / calm_seconds, 2) if calm_seconds else None,
            "problems": invariants["problems"],
            "chunk_vectors_stored": len(chaos_vectors),
            "verdicts_identical": calm_verdicts == chaos_verdicts,
            "verdict_differences": [
                (i, a, b)
                for i, (calm_v, chaos_v) in enumerate(
                    zip(calm_verdicts, chaos_verdicts, strict=True)
                )
                for a, b in zip(calm_v, chaos_v, strict=False)
                if a != b
            ][:10],
            "events": figures.events,
        }
    finally:
        server.destroy()
