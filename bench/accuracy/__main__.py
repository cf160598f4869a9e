"""Accuracy of the whole pipeline on Check-COVID dev: generated theses and sources through the
running stack (API, parser, retriever, judge as OS processes on a fresh embedded PostgreSQL).

    .venv/bin/python -m bench.accuracy [--claims FILE] [--corpus FILE] [--work-dir DIR]

(default: the dev split and corpus under `bench.common.CHECKCOVID_DIR`)

1. Cases (`dataset.py`): the unique (claim, abstract) pairs, SUPPORT -> supported,
   REFUTE -> contradicted; a fixed-seed third of the claims cite a topically similar abstract that
   is not theirs -> unsupported.
2. Documents (`documents.py`): theses of ~50 citing sentences each, every sentence a
   claim ending in a numeric marker, with a Vancouver reference list; one source PDF per cited
   abstract.
3. The stack (`stack.py`): upload over HTTP, one run per thesis, reports fetched.
4. Scores (`score.py`): each report citation mapped back to its claim by reference
   label and claim text; macro-F1 over supported/unsupported/contradicted, with non-verdicts and
   unfound claims as wrong predictions and counted as ``pipeline_failures``.
5. Diagnosis: the same claims judged in this process on the stack's passages, on simulated
   retrieval and on the gold sentences (`inprocess.py`), and per wrong verdict the
   first stage that went wrong.

Writes bench/results/accuracy.json and prints a table against no-information baselines. The
judge-alone figure on gold evidence comes from bench/results/accuracy_judge.json when that file
was computed on the same data, otherwise it is computed here.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Final

import msgspec

from bench import common
from bench.accuracy.dataset import (
    MISCITE_NEIGHBOURS,
    MISCITE_SHARE,
    build_claims,
    split_into_theses,
)
from bench.accuracy.documents import DOI_SHARE, render_benchmark
from bench.accuracy.score import LABELS, baselines, diagnose, match_report, score
from bench.accuracy.stack import StackOutcome, run_through_stack
from citeproof.devkit.checkcovid import files_sha256, load_claims, load_corpus

JUDGE_RESULT = common.RESULTS_DIR / "accuracy_judge.json"
# Same seed as `bench.accuracy.judge`: the same claims are mis-cited in both benchmarks' draws.
SEED: Final = 6
TARGET_MACRO_F1: Final = 0.60
RUN_TIMEOUT_S: Final = 1500.0
# The reports and evidence of the stack's runs, kept in the work folder for --rescore.
OUTCOME_FILE: Final = "stack_outcome.json"


def judge_alone_from_file(data_sha256: str, model: str | None) -> dict | None:
    """The judge engineer's figure, if it was measured on these data files with the model that
    judged in the stack."""
    if not JUDGE_RESULT.exists():
        return None
    stored = json.loads(JUDGE_RESULT.read_text())
    if stored.get("data_sha256") != data_sha256 or "judge_on_gold_evidence" not in stored:
        return None
    if model is None or stored.get("model") != model:
        print(f"{JUDGE_RESULT.name} is for model {stored.get('model')}, not {model}", flush=True)
        return None
    return {
        **stored["judge_on_gold_evidence"],
        "from": str(JUDGE_RESULT.relative_to(common.REPO_ROOT)),
        "model": stored.get("model"),
        "document_level_offline": stored.get("document_level_offline"),
    }


def _most_common_verdict_field(reports: dict[str, dict], field: str) -> str | None:
    values = Counter(
        c["verdict"][field]
        for report in reports.values()
        for c in report["citations"]
        if c.get("verdict") and c["verdict"].get(field)
    )
    return values.most_common(1)[0][0] if values else None


def _verdict_backend(reports: dict[str, dict]) -> str | None:
    return _most_common_verdict_field(reports, "backend")


def _verdict_model(reports: dict[str, dict]) -> str | None:
    return _most_common_verdict_field(reports, "model")


def print_results(rows: dict[str, dict], baseline: str) -> None:
    columns = [common.Column("macro_f1", "macro-F1", 3), common.Column("accuracy", "accuracy", 3)]
    flat = {
        name: {"macro_f1": r["macro_f1"], "accuracy": r.get("accuracy", float("nan"))}
        for name, r in rows.items()
    }
    print()
    common.print_table(flat, columns, baseline, title="Check-COVID dev, three labels:")
    width = max(len(name) for name in rows)
    print("\nF1 per class:")
    print(" " * width + "".join(f"{label:>15}" for label in LABELS))
    for name, r in rows.items():
        print(
            f"{name:<{width}}"
            + "".join(f"{r['per_class'][label]['f1']:>15.3f}" for label in LABELS)
        )


def print_confusion(result: dict) -> None:
    print("\npipeline confusion (rows gold, columns predicted):")
    columns = result["confusion_columns"]
    print(" " * 14 + "".join(f"{c[:12]:>14}" for c in columns))
    for label, row in zip(result["labels"], result["confusion"], strict=True):
        print(f"{label:<14}" + "".join(f"{n:>14}" for n in row))


def print_trust(result: dict) -> None:
    """What a user relies on: how often a definite label is right, and how often there is one."""
    ci = result.get("ci95", {})
    print("\ndefinite verdicts (needs_review counted wrong in macro-F1):")
    for label in LABELS:
        row = result["per_class"][label]
        low, high = ci.get(f"precision_{label}", [float("nan")] * 2)
        print(
            f"  {label:<14} precision {row['precision']:.3f} [{low:.3f}, {high:.3f}]  "
            f"definite share of gold {result['definite_share_by_class'][label]:.3f}"
        )
    low, high = ci.get("macro_f1", [float("nan")] * 2)
    print(
        f"  definite share {result['definite_share']:.3f}, needs_review {result['needs_review']}, "
        f"macro-F1 {result['macro_f1']:.3f} [{low:.3f}, {high:.3f}], "
        f"judge {result.get('judge_citations_per_cpu_s')} citations per CPU-second (1 thread)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--claims",
        type=Path,
        default=common.CHECKCOVID_DIR / "covidCheck_dev_composed+extracted.json",
    )
    parser.add_argument("--corpus", type=Path, default=common.CHECKCOVID_DIR / "corpus.json")
    parser.add_argument("--out", type=Path, default=common.RESULTS_DIR / "accuracy.json")
    parser.add_argument(
        "--work-dir", type=Path, default=None, help="keep the PDFs and service logs here"
    )
    parser.add_argument("--timeout", type=float, default=RUN_TIMEOUT_S, help="for all runs")
    parser.add_argument(
        "--recompute-judge",
        action="store_true",
        help="measure the judge on gold evidence here even if accuracy_judge.json exists",
    )
    parser.add_argument(
        "--rescore",
        action="store_true",
        help=f"score the {OUTCOME_FILE} a previous run left in --work-dir instead of running "
        "the stack again (for working on the scoring and diagnosis)",
    )
    parser.add_argument(
        "--no-controls",
        action="store_true",
        help="skip the in-process judge controls of the diagnosis (faster)",
    )
    args = parser.parse_args()
    for path in (args.claims, args.corpus):
        if not path.exists():
            print(f"data not found: {path} (see {common.DATA_DIR}/SOURCES.md)", file=sys.stderr)
            return 2
    started = time.perf_counter()
    work_dir = args.work_dir or Path(tempfile.mkdtemp(prefix="citeproof-accuracy-"))

    rows = load_claims(args.claims)
    corpus = load_corpus(args.corpus)
    claims = build_claims(rows, corpus, seed=SEED)
    theses = split_into_theses(claims, seed=SEED)
    rendered = render_benchmark(theses, corpus, work_dir / "pdfs")
    gold_counts = Counter(c.gold for c in claims)
    print(
        f"{len(claims)} claims ({dict(gold_counts)}) in {len(theses)} theses citing "
        f"{len(rendered.sources)} sources; PDFs in {work_dir / 'pdfs'}",
        flush=True,
    )

    saved = work_dir / OUTCOME_FILE
    if args.rescore and saved.exists():
        outcome = msgspec.json.decode(saved.read_bytes(), type=StackOutcome)
        print(f"re-scoring the stack's reports saved in {saved}", flush=True)
    else:
        outcome = run_through_stack(
            list(rendered.theses),
            list(rendered.sources),
            log_dir=work_dir / "logs",
            timeout=args.timeout,
        )
        saved.write_bytes(msgspec.json.encode(outcome))
    print(f"runs finished in {outcome.seconds_runs:.1f} s", flush=True)
    outcomes = [
        o
        for case, path in zip(theses, rendered.theses, strict=True)
        for o in match_report(case, outcome.reports[path.name])
    ]
    golds = [o.claim.gold for o in outcomes]
    pipeline = score(golds, [o.scored for o in outcomes], intervals=True)
    stack_seconds = time.perf_counter() - started

    data_sha256 = files_sha256(args.claims, args.corpus)
    judge_alone = (
        None
        if args.recompute_judge
        else judge_alone_from_file(data_sha256, _verdict_model(outcome.reports))
    )
    controls = None
    if not args.no_controls:
        print("judging the same claims in-process (controls for the diagnosis)...", flush=True)
        from bench.accuracy.inprocess import judge_controls  # the embedder loads only now

        controls_started = time.perf_counter()
        controls = judge_controls(
            [o.claim for o in outcomes], corpus, rows if judge_alone is None else None
        )
        print(f"controls judged in {time.perf_counter() - controls_started:.1f} s", flush=True)
        if judge_alone is None:
            judge_alone = {**(controls.judge_on_gold_evidence or {}), "from": "computed here"}
    if judge_alone is None:
        judge_alone = {"macro_f1": None, "from": "not measured (make bench-accuracy-judge)"}

    from bench.accuracy.documents import source_spec
    from bench.accuracy.inprocess import judge_citations_per_cpu_s
    from citeproof.devkit.pdfgen.front_matter import front_matter_quotes

    # Every quote of every report against the titles/authors/headers the renderer printed.
    quotes = [
        c["verdict"].get("quote")
        for report in outcome.reports.values()
        for c in report["citations"]
        if c.get("verdict")
    ]
    offenders = front_matter_quotes(quotes, [source_spec(corpus[c]) for c in corpus])
    pipeline["quotes"] = sum(1 for q in quotes if q)
    pipeline["front_matter_quotes"] = [
        {"quote": q, "source_title": t, "reason": r} for q, t, r in offenders
    ]

    pipeline["judge_citations_per_cpu_s"] = judge_citations_per_cpu_s(
        {o.citation_id: o.claim.claim for o in outcomes if o.citation_id is not None},
        outcome.evidence,
    )
    abstracts = {cord_id: a.abstract for cord_id, a in corpus.items()}
    diagnosis = diagnose(
        outcomes,
        abstracts,
        outcome.evidence,
        outcome.downgrades,
        controls.judge_on_gold_claims if controls else None,
    )
    result = {
        "pipeline": pipeline,
        "judge_on_gold_evidence": judge_alone,
        "controls": controls.controls if controls else {},
        "controls_model": controls.model if controls else None,
        "baselines": baselines(golds),
        "diagnosis": msgspec.to_builtins(diagnosis),
        "runs": {
            name: {
                "status": s["status"],
                "citations_in_report": len(outcome.reports[name]["citations"]),
                "counts": s.get("counts"),
            }
            for name, s in outcome.statuses.items()
        },
        "backend": _verdict_backend(outcome.reports),
        "model": _verdict_model(outcome.reports),
        "target_macro_f1": TARGET_MACRO_F1,
        "setup": {
            "claims_file": args.claims.name,
            "data_sha256": data_sha256,
            "seed": SEED,
            "miscite_share": round(MISCITE_SHARE, 4),
            "miscite_from_topic_neighbours": MISCITE_NEIGHBOURS,
            "doi_share": DOI_SHARE,
            "theses": len(theses),
            "sources": len(rendered.sources),
            "gold_counts": dict(gold_counts),
        },
        "seconds_stack_ready": round(outcome.seconds_ready, 1),
        "seconds_runs": round(outcome.seconds_runs, 1),
        "seconds_pipeline_total": round(stack_seconds, 1),
        "seconds": round(time.perf_counter() - started, 1),
    }

    table = {
        **{name: r for name, r in result["baselines"].items()},
        "pipeline (whole stack)": pipeline,
        **{
            f"control: judge on {name.replace('_', ' ')}": r
            for name, r in (controls.controls if controls else {}).items()
        },
    }
    if judge_alone.get("macro_f1") is not None:
        table["judge alone, gold evidence (dev rows)"] = judge_alone
    print_results(table, baseline=next(iter(table)))
    print_confusion(pipeline)
    print(
        f"\npipeline failures {pipeline['pipeline_failures']} of {pipeline['n']} "
        f"({diagnosis.non_verdicts}); extraction recall {diagnosis.extraction_recall:.3f}, "
        f"reference accuracy {diagnosis.reference_accuracy:.3f}, linking accuracy "
        f"{diagnosis.linking_accuracy:.3f}, gold evidence among judged passages "
        f"{diagnosis.evidence_coverage_mean:.3f} "
        f"(all of it: {diagnosis.evidence_fully_retrieved:.3f})"
    )
    print("wrong verdicts by the first stage that went wrong:")
    for stage, count in diagnosis.stage_counts.items():
        print(f"  {count:>4}  {stage}")
    if diagnosis.pipeline_right_judge_wrong_on_gold is not None:
        print(
            f"  (and {diagnosis.pipeline_right_judge_wrong_on_gold} own-abstract claims the "
            "pipeline got right although the judge is wrong on their gold sentences alone)"
        )
    print(
        f"supported/contradicted twin claims (one edited from the other, same abstract): "
        f"{diagnosis.twin_pairs_same_verdict} of {diagnosis.twin_pairs} pairs got the same verdict"
    )
    print(
        f"mean confidence of right verdicts {diagnosis.mean_confidence_right:.3f}, "
        f"of wrong verdicts {diagnosis.mean_confidence_wrong:.3f}"
    )
    print_trust(pipeline)
    verdict = "meets" if pipeline["macro_f1"] >= TARGET_MACRO_F1 else "BELOW"
    print(f"\npipeline macro-F1 {pipeline['macro_f1']:.3f} {verdict} the target {TARGET_MACRO_F1}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n")
    print(f"wrote {args.out} in {result['seconds']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
