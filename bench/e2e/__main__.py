"""End-to-end throughput on distinct work: K users submit K theses at once through the API.

    .venv/bin/python -m bench.e2e [--theses 6] [--citations 85] [--work-dir DIR] [--no-write]

Work (bench/e2e/work.py): K theses of >= `--citations` citations composed from Check-COVID
train + dev claims, each claim-abstract pair used once and no abstract cited by two theses, each
thesis with its own source PDFs and its own user (nothing is deduplicated or cached across
theses). Three configurations, each on a fresh embedded PostgreSQL, in this order:

1. `distributed`: the API and one process per service (DevStack, default settings);
2. `inprocess` (the baseline): the API process and two worker processes (one per core) that call
   every stage's handler directly (bench/e2e/inprocess.py) - the same CPU budget without the
   distribution;
3. `with_two_bottleneck_replicas`: as 1, with a second replica of the bottleneck service of 1
   (below). Its throughput is predicted from 1 (the sizing model, below) before it runs.

1 and 2 run `--repeats` times (default 2), alternating; each keeps its fastest run (the least
disturbed, as timeit keeps the best time), and e2e.json lists every run under `repeats` with
the CPU other people's work took meanwhile. 3 runs `--repeats` times too, after the model was
computed from the kept run 1, and keeps its fastest run the same way (a single run of it was off
the prediction by 8% in one session and 22% in the next, on the same code, as the machine's load
moved).

Per configuration: time to report per thesis (first upload request to report in hand; p50,
p95, max), theses per hour and citations per second over the makespan (all users start at once;
the last report ends it), per stage from the services' metrics (task seconds, slot occupancy
`busy` = task seconds / (wall x replicas x concurrency), queue wait p95), per process from /proc
(CPU seconds incl. children, CPU busy = CPU seconds / wall, peak RSS) and from its metrics the
event-loop lag p99 and worst; PostgreSQL's CPU likewise.

Sizing model (docs/operations.md), computed from run 1 before run 3 starts: a thesis is planned
only when all of its documents are parsed, so a run is a first phase (parse, then plan) followed
by a second (retrieve beside judge). Each phase needs at least its stages' slot bounds (task
seconds over replicas x concurrency: summed in the first phase, the largest in the second) and at
least its CPU (each service's CPU over its replicas, one core each at most; the phase's CPU over
the cores, where a second replica on 2 cores contends instead of adding a core); the run lasts
the two phases (or all its CPU over the cores, if longer) divided by run 1's efficiency (modelled
/ measured wall). The bottleneck is the service of the stage with the largest slot bound. The
CPU-only view is recorded next to it. The machine is shared: each run records its load average
and `others_cpu_busy` (cores other people's work used meanwhile, from /proc/stat).

The `real_thesis` workload (`--workload real_thesis`, also part of the default `all`): one
thesis of 150+ citations over 64 sources of 10-40 pages rendered from real text, measured cold
with on-demand and with parse-time chunk embeddings on fresh databases, and re-checked after an
edit (bench/e2e/real_thesis.py, bench/e2e/real_run.py); its figures go under `real_thesis`.

Writes bench/results/e2e.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Final

import asyncpg

from bench import common
from bench.e2e import observe, real_run, real_thesis
from bench.e2e.inprocess import READY
from bench.e2e.users import UserResult, all_users
from bench.e2e.work import CHECKCOVID, ThesisWork, compose, render
from citeproof.auth import create_token, create_user
from citeproof.db.migrate import apply_migrations
from citeproof.devstack import WORKER_SERVICES, DevStack
from citeproof.pipeline import JUDGE_STAGE, PARSE_STAGE, PLAN_STAGE, RETRIEVE_STAGE, STAGES
from citeproof.queue.settings import DEFAULT_CONCURRENCY

RESULT_NAME: Final = "e2e"
WORKLOADS: Final = ("all", "throughput", "real_thesis")
# The real_thesis workload's seed for the reported figures (the candidate depth was chosen on
# the train split's thesis with seeds 5-7; this seed and the dev split were not looked at then).
REAL_SEED: Final = 28
DEFAULT_THESES: Final = 6
DEFAULT_CITATIONS: Final = 85
DEFAULT_TIMEOUT_S: Final = 3600.0
DEFAULT_REPEATS: Final = 2
# What e2e.json lists of every run of a repeated configuration.
REPEAT_KEYS: Final = ("theses_per_hour", "wall_s", "others_cpu_busy", "load_average_1m")
REPO_ROOT: Final = Path(__file__).resolve().parents[2]
CORES: Final = os.cpu_count() or 1
# Which service runs which stage, and the stage concurrency each runs with (the parser's main
# sets 2; every other stage keeps the runtime's default).
SERVICE_OF: Final = {
    PARSE_STAGE: "parser",
    PLAN_STAGE: "retriever",
    RETRIEVE_STAGE: "retriever",
    JUDGE_STAGE: "judge",
}
CONCURRENCY: Final = {
    PARSE_STAGE: 2,
    PLAN_STAGE: DEFAULT_CONCURRENCY,
    RETRIEVE_STAGE: DEFAULT_CONCURRENCY,
    JUDGE_STAGE: DEFAULT_CONCURRENCY,
}
INPROCESS_WORKERS: Final = CORES
# The sizing model's two phases (see phase_bounds_s): parse then plan, then retrieve beside judge.
FIRST_PHASE: Final = "documents"
SECOND_PHASE: Final = "citations"
PHASES: Final = {
    FIRST_PHASE: (PARSE_STAGE, PLAN_STAGE),
    SECOND_PHASE: (RETRIEVE_STAGE, JUDGE_STAGE),
}
# The services whose CPU each phase spends (planning's share of the retriever's is small).
PHASE_SERVICES: Final = {FIRST_PHASE: ("parser",), SECOND_PHASE: ("retriever", "judge")}
# Top-level figures of e2e.json: the distributed stack at one replica per stage.
HEADLINE_KEYS: Final = (
    "theses", "citations", "p50_s", "p95_s", "max_s", "theses_per_hour", "citations_per_s",
    "stages", "loop_lag_p99_ms", "peak_rss_mb",
)  # fmt: skip
POSTGRES: Final = "postgres"

TOTALS_SQL: Final = """
SELECT
    (SELECT coalesce(sum(pages), 0) FROM documents WHERE kind = 'source') AS source_pages,
    (SELECT coalesce(sum(pages), 0) FROM documents WHERE kind = 'thesis') AS thesis_pages,
    (SELECT count(*) FROM documents WHERE kind = 'source') AS sources,
    (SELECT count(*) FROM citations) AS citations,
    (SELECT count(*) FROM verdicts) AS verdicts
"""


def make_tokens(url: str, count: int) -> list[str]:
    async def make() -> list[str]:
        conn = await asyncpg.connect(url)
        try:
            tokens = []
            for _ in range(count):
                user = await create_user(conn, f"bench-e2e-{uuid.uuid4().hex[:8]}")
                tokens.append((await create_token(conn, user, label="bench-e2e"))[1])
            return tokens
        finally:
            await conn.close()

    return asyncio.run(make())


async def _totals(url: str) -> dict[str, int]:
    conn = await asyncpg.connect(url)
    try:
        return dict(await conn.fetchrow(TOTALS_SQL))
    finally:
        await conn.close()


def postmaster_pid(url: str) -> int:
    async def data_dir() -> str:
        conn = await asyncpg.connect(url)
        try:
            return await conn.fetchval("SHOW data_directory")
        finally:
            await conn.close()

    return int((Path(asyncio.run(data_dir())) / "postmaster.pid").read_text().split()[0])


def start_inprocess_workers(url: str, log_dir: Path) -> list[subprocess.Popen]:
    env = {**os.environ, "DATABASE_URL": url, "PYTHONUNBUFFERED": "1"}
    workers = []
    for number in range(1, INPROCESS_WORKERS + 1):
        log = (log_dir / f"inprocess-{number}.err").open("ab")
        workers.append(
            subprocess.Popen(
                [sys.executable, "-m", "bench.e2e.inprocess"],
                cwd=REPO_ROOT,
                env=env,
                stdout=subprocess.PIPE,
                stderr=log,
                stdin=subprocess.DEVNULL,
            )
        )
    for worker in workers:
        assert worker.stdout is not None
        line = worker.stdout.readline().decode().strip()
        if line != READY:
            raise RuntimeError(f"in-process worker did not start (see {log_dir}): {line!r}")
    return workers


def _own_cpu_seconds() -> float:
    times = os.times()
    return times.user + times.system


def run_configuration(
    name: str, work: list[ThesisWork], log_root: Path, *, replicas: dict[str, int] | None,
    timeout_s: float,
) -> dict:  # fmt: skip
    """One configuration on a fresh database; replicas None means the in-process baseline."""
    log_dir = log_root / name
    log_dir.mkdir(parents=True, exist_ok=True)
    with common.fresh_postgres(f"citeproof-e2e-{name}-") as url:
        asyncio.run(apply_migrations(url))
        tokens = make_tokens(url, len(work))
        stack = DevStack(database_url=url, log_dir=log_dir)
        inprocess: list[subprocess.Popen] = []
        try:
            if replicas is None:
                stack.start_service("api")
                inprocess = start_inprocess_workers(url, log_dir)
            else:
                stack.start(replicas)
            stack.wait_ready()
            pids = {p.name: p.popen.pid for p in stack.processes}
            pids.update({f"inprocess-{i}": w.pid for i, w in enumerate(inprocess, start=1)})
            pids[POSTGRES] = postmaster_pid(url)
            metric_urls = {
                p.name: f"http://127.0.0.1:{p.health_port}/metrics" for p in stack.processes
            }
            scrapes_before = {n: observe.scrape(u) for n, u in metric_urls.items()}
            cpu_before = observe.cpu_by_process(pids)
            machine_before = observe.machine_cpu_seconds()
            driver_before = _own_cpu_seconds()
            load_before = os.getloadavg()[0]
            print(f"{name}: {len(work)} users start", flush=True)
            began = time.monotonic()
            users = asyncio.run(all_users(stack.api_url, tokens, work, timeout_s))
            wall = time.monotonic() - began
            cpu_after = observe.cpu_by_process(pids)
            machine = observe.machine_cpu_seconds() - machine_before
            driver = _own_cpu_seconds() - driver_before
            load = (load_before, os.getloadavg()[0])
            scrapes_after = {n: observe.scrape(u) for n, u in metric_urls.items()}
            peak_rss = {n: observe.peak_rss_mb(pid) for n, pid in pids.items()}
            totals = asyncio.run(_totals(url))
        finally:
            stack.stop()
            for worker in inprocess:
                worker.terminate()
                worker.wait(60)
    result = summarise(
        name, users, wall, totals, replicas, pids, cpu_before, cpu_after,
        scrapes_before, scrapes_after, peak_rss,
    )  # fmt: skip
    # The machine is shared: how much CPU other work took during this run, next to ours.
    # Ours: every process of the stack and this driver (uploads, polling).
    ours = sum(entry["cpu_s"] for entry in result["processes"].values()) + driver
    result["others_cpu_busy"] = round(max(0.0, machine - ours) / wall, 2)
    result["load_average_1m"] = [round(value, 2) for value in load]
    return result


def summarise(
    name, users: list[UserResult], wall, totals, replicas, pids, cpu_before, cpu_after,
    scrapes_before, scrapes_after, peak_rss,
) -> dict:  # fmt: skip
    times = [u.seconds_to_report for u in users]
    citations = totals["citations"]
    cpu = {n: round(cpu_after[n] - cpu_before[n], 1) for n in pids}
    processes = {}
    for process, seconds in cpu.items():
        entry: dict[str, float | None] = {
            "cpu_s": seconds,
            "cpu_busy": round(seconds / wall, 3),
            "peak_rss_mb": peak_rss[process],
        }
        if process in scrapes_after:
            lag = scrapes_after[process].loop_lag.minus(scrapes_before[process].loop_lag)
            p99 = lag.quantile(0.99)
            entry["loop_lag_p99_ms"] = None if p99 is None else round(p99 * 1000, 1)
            entry["loop_lag_max_ms"] = round(scrapes_after[process].loop_lag_max_s * 1000, 1)
        processes[process] = entry
    stages = {}
    for stage in STAGES:
        service = SERVICE_OF[stage]
        names = [n for n in scrapes_after if n.rsplit("-", 1)[0] == service]
        if not names:
            continue  # the in-process baseline has no stage services
        before = [scrapes_before[n] for n in names]
        after = [scrapes_after[n] for n in names]
        task = observe.stage_histogram(before, after, stage, observe.TASK_SECONDS)
        wait = observe.stage_histogram(before, after, stage, observe.QUEUE_WAIT)
        wait_p95 = wait.quantile(0.95)
        stages[stage] = {
            "busy": round(task.total / (wall * len(names) * CONCURRENCY[stage]), 3),
            "task_seconds": round(task.total, 1),
            "tasks": int(task.count),
            "queue_wait_p95_s": None if wait_p95 is None else round(wait_p95, 2),
            "replicas": len(names),
        }
    complete = sum(1 for u in users if u.status == "completed")
    return {
        "configuration": name,
        "replicas": replicas,
        "theses": len(users),
        "theses_completed": complete,
        "citations": citations,
        "citations_per_thesis_min": min(u.citations_reported for u in users),
        "pages": totals["source_pages"] + totals["thesis_pages"],
        "source_pages": totals["source_pages"],
        "thesis_pages": totals["thesis_pages"],
        "sources": totals["sources"],
        "verdicts": totals["verdicts"],
        "wall_s": round(wall, 1),
        "p50_s": round(statistics.median(times), 1),
        "p95_s": round(common.percentile(times, 95), 1),
        "max_s": round(max(times), 1),
        "theses_per_hour": round(len(users) / wall * 3600, 1),
        "citations_per_s": round(citations / wall, 2),
        "stages": stages,
        "processes": processes,
        "loop_lag_p99_ms": {
            n: p["loop_lag_p99_ms"] for n, p in processes.items() if "loop_lag_p99_ms" in p
        },
        "peak_rss_mb": {n: p["peak_rss_mb"] for n, p in processes.items()},
    }


# -- the sizing model ---------------------------------------------------------------------


def service_of(process: str) -> str:
    return POSTGRES if process == POSTGRES else process.rsplit("-", 1)[0]


def cpu_per_thesis(run: dict) -> dict[str, float]:
    """CPU seconds per thesis of each service (replicas summed) and of PostgreSQL."""
    per: dict[str, float] = {}
    for process, entry in run["processes"].items():
        service = service_of(process)
        per[service] = per.get(service, 0.0) + entry["cpu_s"] / run["theses"]
    return per


def cpu_bound_theses_per_hour(per_thesis: dict[str, float], replicas: dict[str, int]) -> float:
    """The CPU view: the tighter of all CPU over the machine's cores and each worker service
    over its replicas, one core each at most (a Python process's handlers share one
    interpreter)."""
    bounds = [CORES / sum(per_thesis.values())]
    for service in WORKER_SERVICES:
        if per_thesis.get(service):
            bounds.append(min(replicas.get(service, 1), CORES) / per_thesis[service])
    return min(bounds) * 3600


def slot_bounds_s(run: dict, replicas: dict[str, int]) -> dict[str, float]:
    """The least time each stage needs for the run's tasks with these replicas: its task
    seconds (handler wall time, from the metrics) over its slots (replicas x concurrency);
    and the least time all the CPU needs on this machine's cores."""
    bounds = {
        stage: entry["task_seconds"] / (replicas.get(SERVICE_OF[stage], 1) * CONCURRENCY[stage])
        for stage, entry in run["stages"].items()
    }
    bounds["cpu"] = sum(entry["cpu_s"] for entry in run["processes"].values()) / CORES
    return bounds


def phase_bounds_s(run: dict, replicas: dict[str, int]) -> dict[str, float]:
    """The least time of each phase of the pipeline with these replicas, from the run's costs.

    A thesis is planned only once all of its documents are parsed, and fair claims parse every
    user's documents side by side, so retrieval starts in earnest when parsing ends and judging
    trails retrieval citation by citation: the run is the first phase (parse, then plan) followed
    by the second (retrieve and judge at once). Each phase needs at least its slowest stage's
    slot bound (task seconds over slots) and at least its CPU: each service's CPU over its
    replicas (one core each at most), and the phase's CPU over the machine's cores - on 2
    cores a second replica contends with the stages it runs beside instead of adding a core.
    """
    slots = slot_bounds_s(run, replicas)
    cpu = {service_of(p): 0.0 for p in run["processes"]}
    for process, entry in run["processes"].items():
        cpu[service_of(process)] += entry["cpu_s"]
    bounds: dict[str, float] = {}
    for phase, stages in PHASES.items():
        services = PHASE_SERVICES[phase]
        per_service = [
            cpu.get(service, 0.0) / min(replicas.get(service, 1), CORES) for service in services
        ]
        together = sum(cpu.get(service, 0.0) for service in services) / CORES
        # The first phase's stages run one after the other, the second's side by side.
        stage_s = [slots[stage] for stage in stages]
        slot_bound = sum(stage_s) if phase == FIRST_PHASE else max(stage_s)
        bounds[phase] = max(slot_bound, *per_service, together)
    bounds["cpu"] = slots["cpu"]
    return bounds


def modelled_wall_s(bounds: dict[str, float]) -> float:
    return max(bounds[FIRST_PHASE] + bounds[SECOND_PHASE], bounds["cpu"])


def predict(run: dict, replicas: dict[str, int]) -> tuple[float, float]:
    """The sizing model: the run lasts its first phase plus its second (or its CPU over the
    cores, if longer), divided by how close the measured run came to that (its efficiency:
    the pipeline's fill and drain, polls, uploads). Returns (theses per hour predicted for
    `replicas`, efficiency)."""
    efficiency = modelled_wall_s(phase_bounds_s(run, {})) / run["wall_s"]
    wall = modelled_wall_s(phase_bounds_s(run, replicas)) / efficiency
    return run["theses"] / wall * 3600, efficiency


def unit_costs(run: dict) -> dict[str, float]:
    """CPU seconds per unit of work, the figures the sizing model in docs/operations.md uses."""
    cpu = {service_of(p): 0.0 for p in run["processes"]}
    for process, entry in run["processes"].items():
        cpu[service_of(process)] += entry["cpu_s"]
    return {
        "parser_cpu_s_per_page": round(cpu.get("parser", 0.0) / max(run["pages"], 1), 3),
        "retriever_cpu_s_per_citation": round(
            cpu.get("retriever", 0.0) / max(run["citations"], 1), 4
        ),
        "judge_cpu_s_per_citation": round(cpu.get("judge", 0.0) / max(run["citations"], 1), 4),
        "api_cpu_s_per_thesis": round(cpu.get("api", 0.0) / max(run["theses"], 1), 2),
        "postgres_cpu_s_per_citation": round(cpu.get(POSTGRES, 0.0) / max(run["citations"], 1), 4),
    }


def task_seconds_per_unit(run: dict) -> dict[str, float]:
    """Handler wall seconds per unit of work: what a stage's slots are busy for."""
    documents = run["sources"] + run["theses"]
    stages = run["stages"]
    return {
        "parse_s_per_document": round(stages[PARSE_STAGE]["task_seconds"] / documents, 3),
        "plan_s_per_thesis": round(stages[PLAN_STAGE]["task_seconds"] / run["theses"], 3),
        "retrieve_s_per_citation": round(
            stages[RETRIEVE_STAGE]["task_seconds"] / run["citations"], 3
        ),
        "judge_s_per_citation": round(stages[JUDGE_STAGE]["task_seconds"] / run["citations"], 3),
    }


def bottleneck(run: dict) -> str:
    """The worker service whose stage has the largest slot bound."""
    bounds = slot_bounds_s(run, {})
    stage = max((s for s in bounds if s in SERVICE_OF), key=bounds.__getitem__)
    return SERVICE_OF[stage]


# -- main ---------------------------------------------------------------------------------


def real_thesis_workload(args: argparse.Namespace, work_dir: Path) -> dict:
    """One thesis of real-length sources (bench/e2e/real_thesis.py, real_run.py)."""
    thesis = real_thesis.compose(args.real_split, args.real_seed)
    rendered = real_thesis.render(thesis, work_dir / "real_thesis")
    load_at_start = os.getloadavg()[0]
    print(
        f"real_thesis: {len(thesis.claims)} citations over {len(thesis.sources)} sources "
        f"({args.real_split} split, seed {args.real_seed}); load average {load_at_start:.1f}",
        flush=True,
    )
    measured = real_run.measure(thesis, rendered, work_dir / "logs" / "real_thesis", args.timeout)
    measured["load_average_1m_at_start"] = round(load_at_start, 2)
    measured["load_average_1m_at_end"] = round(os.getloadavg()[0], 2)
    measured["method"] = (real_thesis.__doc__ or "") + "\n" + (real_run.__doc__ or "")
    rows = {
        mode: {
            "cold_s": run["cold_s"],
            "first_verdict_s": run["first_verdict_s"],
            "embed_cpu_s": run["embedding"]["cpu_s"],
            "recall_at_5": run["recall_at_5"],
            "warm_p99_ms": run["latency_ms"]["warm_p99_ms"],
            "cold_p99_ms": run["latency_ms"]["cold_p99_ms"],
        }
        for mode, run in measured["runs"].items()
    }
    common.print_table(
        rows,
        [
            common.Column("cold_s", "cold s", 1),
            common.Column("first_verdict_s", "first verdict s", 1),
            common.Column("embed_cpu_s", "embedding CPU-s", 1),
            common.Column("recall_at_5", "R@5", 3),
            common.Column("warm_p99_ms", "warm p99 ms", 1),
            common.Column("cold_p99_ms", "cold p99 ms", 1),
        ],
        baseline="at_parse",
    )
    print(f"re-check of the edited thesis: {measured['recheck_s']} s", flush=True)
    return measured


def print_table(runs: dict[str, dict]) -> None:
    rows = {
        name: {
            "theses_per_hour": run["theses_per_hour"],
            "citations_per_s": run["citations_per_s"],
            "p50_s": run["p50_s"],
            "p95_s": run["p95_s"],
            "max_s": run["max_s"],
        }
        for name, run in runs.items()
    }
    common.print_table(
        rows,
        [
            common.Column("theses_per_hour", "theses/h", 1),
            common.Column("citations_per_s", "citations/s", 2),
            common.Column("p50_s", "p50 s", 1),
            common.Column("p95_s", "p95 s", 1),
            common.Column("max_s", "max s", 1),
        ],
        baseline="inprocess",
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--theses", type=int, default=DEFAULT_THESES)
    parser.add_argument("--citations", type=int, default=DEFAULT_CITATIONS)
    parser.add_argument("--work-dir", type=Path, help="keep PDFs and logs here")
    parser.add_argument("--data-dir", type=Path, default=CHECKCOVID, help="Check-COVID files")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S)
    parser.add_argument("--no-write", action="store_true", help="print only (smoke runs)")
    parser.add_argument(
        "--repeats", type=int, default=DEFAULT_REPEATS,
        help="runs of the one-replica stack and of the baseline (each keeps its fastest)",
    )  # fmt: skip
    parser.add_argument("--only-inprocess", action="store_true", help="the baseline alone")
    parser.add_argument(
        "--workload", choices=WORKLOADS, default="all",
        help="`throughput`: K theses at once (above); `real_thesis`: one thesis of real-length "
        "sources, on-demand vs parse-time embeddings, and its re-check (bench/e2e/real_run.py; "
        "updates that key of e2e.json alone); `all`: both",
    )  # fmt: skip
    parser.add_argument("--real-split", default="dev", choices=("train", "dev"))
    parser.add_argument("--real-seed", type=int, default=REAL_SEED)
    args = parser.parse_args(argv)
    work_dir = args.work_dir or Path(tempfile.mkdtemp(prefix="citeproof-e2e-"))
    if args.workload == "real_thesis":
        real = real_thesis_workload(args, work_dir)
        if args.no_write:
            print(json.dumps(real, indent=1, sort_keys=True))
            return 0
        results = common.RESULTS_DIR / f"{RESULT_NAME}.json"
        merged = json.loads(results.read_text()) if results.exists() else {}
        merged["real_thesis"] = real
        print(f"wrote {common.write_results(RESULT_NAME, merged)}")
        return 0
    load_at_start = os.getloadavg()
    print(
        f"e2e benchmark: {args.theses} users x 1 thesis of >= {args.citations} citations; "
        f"{CORES} CPUs, load average {load_at_start[0]:.1f}; work in {work_dir}",
        flush=True,
    )
    cases = compose(args.theses, args.citations, args.data_dir)
    work = render(cases, work_dir / "pdf", args.data_dir)
    runs: dict[str, dict] = {}
    if args.only_inprocess:
        runs["inprocess"] = run_configuration(
            "inprocess", work, work_dir / "logs", replicas=None, timeout_s=args.timeout
        )
        print(json.dumps(runs, indent=1, sort_keys=True))
        return 0
    # The one-replica stack and the baseline run `--repeats` times, alternating; each keeps its
    # fastest run, the one least disturbed by anything (other people's work on the shared machine
    # is recorded, but two quiet runs of the baseline still differed by a fifth).
    attempts: dict[str, list[dict]] = {"distributed": [], "inprocess": []}
    for attempt in range(1, args.repeats + 1):
        for name, replicas in (("distributed", {}), ("inprocess", None)):
            attempts[name].append(
                run_configuration(
                    name,
                    work,
                    work_dir / "logs" / f"attempt-{attempt}",
                    replicas=replicas,
                    timeout_s=args.timeout,
                )
            )
            print_table(
                {f"{n}-{i}": r for n, found in attempts.items() for i, r in enumerate(found, 1)}
            )
    for name, found in attempts.items():
        runs[name] = max(found, key=lambda run: run["theses_per_hour"])
    repeats = {
        name: [
            {key: run[key] for key in REPEAT_KEYS} | {"kept": run is runs[name]} for run in found
        ]
        for name, found in attempts.items()
    }
    print_table(runs)
    one = runs["distributed"]
    slowest = bottleneck(one)
    per_thesis = cpu_per_thesis(one)
    predicted, efficiency = predict(one, {slowest: 2})
    # The CPU view alone, for comparison: it sees no gain where the stages are not CPU-bound.
    cpu_efficiency = one["theses_per_hour"] / cpu_bound_theses_per_hour(per_thesis, {})
    cpu_predicted = cpu_efficiency * cpu_bound_theses_per_hour(per_thesis, {slowest: 2})
    print(f"bottleneck: {slowest}; predicted with 2 replicas: {predicted:.1f} theses/h")
    # The same treatment as the two configurations it is compared with: its fastest run.
    two_runs = [
        run_configuration(
            "with_two_bottleneck_replicas",
            work,
            work_dir / "logs" / f"two-{attempt}",
            replicas={slowest: 2},
            timeout_s=args.timeout,
        )
        for attempt in range(1, args.repeats + 1)
    ]
    runs["with_two_bottleneck_replicas"] = max(two_runs, key=lambda run: run["theses_per_hour"])
    repeats["with_two_bottleneck_replicas"] = [
        {key: run[key] for key in REPEAT_KEYS}
        | {"kept": run is runs["with_two_bottleneck_replicas"]}
        for run in two_runs
    ]
    print_table(runs)
    two = runs["with_two_bottleneck_replicas"]
    load_at_end = os.getloadavg()
    result = {
        "method": __doc__.split("\n\n", 2)[2].split("\n\nWrites")[0],
        "cpus": CORES,
        "load_average_1m_at_start": round(load_at_start[0], 2),
        "load_average_1m_at_end": round(load_at_end[0], 2),
        # The headline figures: the distributed stack at one replica per stage.
        **{key: one[key] for key in HEADLINE_KEYS},
        "distributed": one,
        "inprocess": runs["inprocess"],
        "inprocess_theses_per_hour": runs["inprocess"]["theses_per_hour"],
        "repeats": repeats,
        "ratio_to_inprocess": round(
            one["theses_per_hour"] / runs["inprocess"]["theses_per_hour"], 2
        ),
        "with_two_bottleneck_replicas": {
            **two,
            "bottleneck": slowest,
            "predicted_theses_per_hour": round(predicted, 1),
            # How far the prediction is off, relative to what was measured (-0.2: 20% low).
            "prediction_error": round(predicted / two["theses_per_hour"] - 1, 3),
            "speedup": round(two["theses_per_hour"] / one["theses_per_hour"], 2),
            "predicted_speedup": round(predicted / one["theses_per_hour"], 2),
            "cpu_model_predicted_theses_per_hour": round(cpu_predicted, 1),
        },
        "sizing": {
            "unit_costs": unit_costs(one),
            "cpu_s_per_thesis": {k: round(v, 1) for k, v in per_thesis.items()},
            "slot_bounds_s": {k: round(v, 1) for k, v in slot_bounds_s(one, {}).items()},
            "phase_bounds_s": {k: round(v, 1) for k, v in phase_bounds_s(one, {}).items()},
            "phase_bounds_s_with_two": {
                k: round(v, 1) for k, v in phase_bounds_s(one, {slowest: 2}).items()
            },
            "efficiency": round(efficiency, 3),
            "task_wall_s_per_unit": task_seconds_per_unit(one),
        },
    }
    if args.workload == "all":
        result["real_thesis"] = real_thesis_workload(args, work_dir)
    print(
        f"ratio to in-process: {result['ratio_to_inprocess']}x; 2x {slowest}: "
        f"{two['theses_per_hour']} theses/h vs predicted {predicted:.1f}"
    )
    if args.no_write:
        print(json.dumps(result, indent=1, sort_keys=True))
        return 0
    path = common.write_results(RESULT_NAME, result)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
