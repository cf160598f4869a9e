"""`make bench-references`: reference verification against the stub Crossref and OpenAlex
(bench/results/references.json).

    python -m bench.references [--seed N] [--requests-per-s R] [--details PATH]

One seed makes the world (the index of >= 5,000 works and the Retraction Watch CSV, see
world.py) and the entries with their answer key (entries.py). Three passes over every entry,
through the verify stage's own code (entries -> Lookups over the PostgreSQL cache ->
Verifier), in theses of `--batch` entries each with the stage's deadline:
- cold: an empty cache, the indexes asked at the polite rate (`--requests-per-s` per index);
- warm: the same entries again: every answer from the cache;
- offline: no index at all, the Retraction Watch CSV imported (`citeproof retractions import`).
`groups` count false alarms only (findings the key does not hold); `rules` give each rule's
precision and recall over every entry.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import asyncpg

from bench import common
from bench.references.entries import GROUPS, TestEntry, build_entries
from bench.references.world import World, build_world
from citeproof.db.migrate import apply_migrations
from citeproof.devkit.scholarly_stub import ScholarlyStub
from citeproof.pipeline import (
    CORRECTION,
    ERROR,
    EXPRESSION_OF_CONCERN,
    IDENTIFIER_MISMATCH,
    METADATA_DIFFERS,
    NOT_FOUND,
    PREPRINT_PUBLISHED,
    RETRACTED,
    RULES_BY_CODE,
    WARNING,
)
from citeproof.retractions import import_file
from citeproof.retriever.verify.check import EntryResult, Verifier
from citeproof.retriever.verify.client import ScholarlyClient
from citeproof.retriever.verify.entries import entry_from
from citeproof.retriever.verify.lookups import Lookups
from citeproof.retriever.verify.settings import DEFAULT_REQUESTS_PER_S, VerifySettings

RULES = (
    IDENTIFIER_MISMATCH,
    NOT_FOUND,
    METADATA_DIFFERS,
    RETRACTED,
    EXPRESSION_OF_CONCERN,
    CORRECTION,
    PREPRINT_PUBLISHED,
)
# Entries per thesis: a run verifies one thesis's list under one deadline.
DEFAULT_BATCH = 150
EMAIL = "bench-references@example.org"


async def verify(
    pool: asyncpg.Pool,
    settings: VerifySettings,
    entries: list[TestEntry],
    batch: int,
    client: ScholarlyClient | None,
) -> tuple[list[EntryResult], float]:
    results: list[EntryResult] = []
    started = time.perf_counter()
    for start in range(0, len(entries), batch):
        chunk = entries[start : start + batch]
        lookups = Lookups(
            pool=pool,
            client=client,
            deadline=time.monotonic() + settings.max_wait_s,
            ttl_s=settings.cache_ttl_s,
        )
        verifier = Verifier(lookups, settings.index_order, pool)
        verify_entries = [entry_from(start + i + 1, e.reference, None) for i, e in enumerate(chunk)]
        results += await verifier.verify_all(verify_entries)
    return results, time.perf_counter() - started


def slugs(result: EntryResult) -> list[str]:
    return [RULES_BY_CODE[f.rule].slug for f in result.findings]


def false_alarms(entry: TestEntry, result: EntryResult) -> list[str]:
    ok = set(entry.required) | set(entry.required_one_of) | set(entry.allowed)
    return [slug for slug in slugs(result) if slug not in ok]


def severity(slug: str) -> str:
    return next(rule.severity for rule in RULES_BY_CODE.values() if rule.slug == slug)


def score(
    entries: list[TestEntry], online: list[EntryResult], offline: list[EntryResult]
) -> dict[str, Any]:
    groups: dict[str, dict[str, int]] = {}
    by_group: dict[str, list[tuple[TestEntry, EntryResult, EntryResult]]] = defaultdict(list)
    for entry, result, off in zip(entries, online, offline, strict=True):
        by_group[entry.group].append((entry, result, off))
    for group in ("real", "real_varied"):
        rows = by_group[group]
        alarms = [slug for entry, result, _ in rows for slug in false_alarms(entry, result)]
        groups[group] = {
            "n": len(rows),
            "errors": sum(1 for s in alarms if severity(s) == ERROR),
            "warnings": sum(1 for s in alarms if severity(s) == WARNING),
        }
    for group in ("fabricated", "real_errors"):
        rows = by_group[group]
        flagged = sum(
            1
            for _, result, _ in rows
            if any(severity(s) in (ERROR, WARNING) for s in slugs(result))
        )
        groups[group] = {"n": len(rows), "flagged": flagged}
    rows = by_group["retracted"]
    groups["retracted"] = {
        "n": len(rows),
        "found_api": sum(1 for _, result, _ in rows if RETRACTED.slug in slugs(result)),
        "found_csv": sum(1 for _, _, off in rows if RETRACTED.slug in slugs(off)),
    }
    rows = by_group["concern_or_correction"]
    groups["concern_or_correction"] = {
        "n": len(rows),
        "reported_as_retracted": sum(
            1
            for _, result, off in rows
            if RETRACTED.slug in slugs(result) or RETRACTED.slug in slugs(off)
        ),
    }
    rules: dict[str, dict[str, Any]] = {}
    for rule in RULES:
        fired = correct = required = recalled = 0
        for entry, result, _ in zip(entries, online, offline, strict=True):
            produced = rule.slug in slugs(result)
            accepted = rule.slug in set(entry.required) | set(entry.required_one_of) | set(
                entry.allowed
            )
            fired += produced
            correct += produced and accepted
            if rule.slug in entry.required:
                required += 1
                recalled += produced
        rules[rule.slug] = {
            "id": rule.code,
            "severity": rule.severity,
            "precision": round(correct / fired, 4) if fired else None,
            "recall": round(recalled / required, 4) if required else None,
        }
    return {"groups": groups, "rules": rules}


def details(
    entries: list[TestEntry], online: list[EntryResult], offline: list[EntryResult]
) -> list[dict[str, Any]]:
    return [
        {
            **entry.key(),
            "status": result.status,
            "detail": result.detail,
            "findings": slugs(result),
            "false_alarms": false_alarms(entry, result),
            "offline_findings": slugs(off),
            "messages": [f.message for f in result.findings],
        }
        for entry, result, off in zip(entries, online, offline, strict=True)
    ]


# Hostile servers, on a sample of entries (bench/results/references_hostile.json).
HOSTILE_SAMPLE = 40
STORM_S = 4.0


async def hostile(
    pool: asyncpg.Pool, stub: ScholarlyStub, settings: VerifySettings, entries: list[TestEntry]
) -> dict[str, Any]:
    """A 429 storm delays the run and fails nothing; with both indexes down the run completes
    and every entry is "not looked up"."""
    from citeproof.devkit.scholarly_stub import Fault

    sample = entries[:: max(1, len(entries) // HOSTILE_SAMPLE)][:HOSTILE_SAMPLE]
    await pool.execute("DELETE FROM scholarly_lookups")
    client = ScholarlyClient(settings)
    calm, calm_s = await verify(pool, settings, sample, len(sample), client)
    await pool.execute("DELETE FROM scholarly_lookups")
    for server in stub.servers():
        server.fail(Fault("429", until=time.monotonic() + STORM_S, retry_after="1"))
    storm, storm_s = await verify(pool, settings, sample, len(sample), client)
    for server in stub.servers():
        server.heal()
    await client.aclose()
    await pool.execute("DELETE FROM scholarly_lookups")
    down = msgspec_replace(
        settings, crossref_url="http://127.0.0.1:9", openalex_url="http://127.0.0.1:9"
    )
    down_client = ScholarlyClient(down)
    dead, dead_s = await verify(pool, down, sample, len(sample), down_client)
    await down_client.aclose()
    return {
        "n": len(sample),
        "storm_429": {
            "seconds": round(STORM_S, 1),
            "run_s": round(storm_s, 1),
            "calm_run_s": round(calm_s, 1),
            "same_findings_as_calm": sum(
                1 for a, b in zip(calm, storm, strict=True) if slugs(a) == slugs(b)
            ),
            "not_looked_up": sum(1 for r in storm if r.status == "not_looked_up"),
        },
        "index_down": {
            "run_s": round(dead_s, 1),
            "not_looked_up": sum(1 for r in dead if r.status == "not_looked_up"),
            "not_found": sum(1 for r in dead if r.status == "not_found"),
        },
    }


def msgspec_replace(settings: VerifySettings, **changes: Any) -> VerifySettings:
    import msgspec

    return msgspec.structs.replace(settings, **changes)


async def run(args: argparse.Namespace) -> dict[str, Any]:
    world: World = build_world(args.seed, common.DATA_DIR)
    entries = build_entries(world, args.seed, common.DATA_DIR)
    counts = Counter(e.group for e in entries)
    print(f"seed {args.seed}: index of {world.size} works; entries {dict(counts)}", file=sys.stderr)
    stub = ScholarlyStub(world.works)
    settings = VerifySettings(
        enabled=True,
        crossref_url=stub.crossref.url,
        openalex_url=stub.openalex.url,
        email=EMAIL,
        requests_per_s=args.requests_per_s,
    )
    try:
        with common.fresh_postgres() as url:
            await apply_migrations(url)
            pool = await asyncpg.create_pool(url, min_size=2, max_size=8)
            try:
                client = ScholarlyClient(settings)
                before = stub.request_count()
                cold, cold_s = await verify(pool, settings, entries, args.batch, client)
                cold_requests = stub.request_count() - before
                before = stub.request_count()
                warm, warm_s = await verify(pool, settings, entries, args.batch, client)
                warm_requests = stub.request_count() - before
                await client.aclose()
                with tempfile.TemporaryDirectory() as folder:
                    path = Path(folder) / "retraction_watch.csv"
                    path.write_text(world.rw_csv, encoding="utf-8")
                    async with pool.acquire() as conn:
                        imported = await import_file(conn, path)
                offline_settings = VerifySettings(enabled=True, indexes="")
                before = stub.request_count()
                offline, _ = await verify(pool, offline_settings, entries, args.batch, None)
                assert stub.request_count() == before, "the offline pass asked an index"
                hostile_result = await hostile(pool, stub, settings, entries)
            finally:
                await pool.close()
    finally:
        stub.stop()
    result = score(entries, cold, offline)
    result.update(
        {
            "requests": {"cold": cold_requests, "warm": warm_requests},
            "ms_per_entry": {
                "cold": round(cold_s * 1000 / len(entries), 1),
                "warm": round(warm_s * 1000 / len(entries), 1),
            },
            "index_size": world.size,
            "seed": args.seed,
        }
    )
    drift = [i for i, (a, b) in enumerate(zip(cold, warm, strict=True)) if slugs(a) != slugs(b)]
    print(
        f"retraction notices imported: {imported.imported}; warm pass differs from cold on "
        f"{len(drift)} entries; {args.requests_per_s} requests/s per index",
        file=sys.stderr,
    )
    print(f"hostile servers: {json.dumps(hostile_result)}", file=sys.stderr)
    if not args.no_write:
        common.write_results("references_hostile", hostile_result)
    if args.details:
        Path(args.details).write_text(
            json.dumps(details(entries, cold, offline), indent=1, ensure_ascii=False)
        )
    return result


def print_summary(result: dict[str, Any]) -> None:
    groups = result["groups"]
    print(f"index: {result['index_size']} works, seed {result['seed']}")
    for name in GROUPS:
        print(f"  {name:22s} {json.dumps(groups[name])}")
    print("  rule                   precision  recall")
    for slug, row in result["rules"].items():
        print(f"  {slug:22s} {row['precision']!s:>9s}  {row['recall']!s:>6s}")
    print(
        f"  requests cold {result['requests']['cold']}, warm {result['requests']['warm']}; "
        f"ms/entry cold {result['ms_per_entry']['cold']}, warm {result['ms_per_entry']['warm']}"
    )
    rows = {
        "cold": {"ms": result["ms_per_entry"]["cold"], "requests": result["requests"]["cold"]},
        "warm": {"ms": result["ms_per_entry"]["warm"], "requests": result["requests"]["warm"]},
    }
    common.print_table(
        rows,
        [common.Column("ms", "ms/entry", 1), common.Column("requests", "requests", 0)],
        baseline="cold",
        title="cache (ratios to the cold pass)",
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.references", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=271828,
        help="world and entries (report on a seed not built with)",
    )
    parser.add_argument(
        "--requests-per-s",
        type=float,
        default=DEFAULT_REQUESTS_PER_S,
        help="per index, as the stage's default",
    )
    parser.add_argument(
        "--batch", type=int, default=DEFAULT_BATCH, help="entries per thesis (one deadline each)"
    )
    parser.add_argument(
        "--details", default=None, help="write every entry's outcome to this JSON file"
    )
    parser.add_argument(
        "--no-write", action="store_true", help="do not write bench/results/references.json"
    )
    args = parser.parse_args(argv)
    result = asyncio.run(run(args))
    print_summary(result)
    if not args.no_write:
        print(f"wrote {common.write_results('references', result)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
