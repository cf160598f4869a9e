"""Every Citation-Integrity train and dev citation through the offline judge, as the judge
protocol hands it over (the claim without its markers against all sentences of its cited
document): how many raise, how many claims the judge read shortened, and the time per citation.

Before the judge read claims of any length, 4 of dev's 316 and 13 of train's crashed with the
tokenizer's "Sequence to truncate too short" error (a `judge_error` in the pipeline).

    python -m bench.judge_inputs            # writes bench/results/judge_inputs.json
"""

from __future__ import annotations

import argparse
import collections
import time
import traceback
from pathlib import Path

from bench import common
from citeproof.devkit.citint import SPLITS, load_citations
from citeproof.judge.backend import build_backend
from citeproof.judge.settings import load_judge_settings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(common.DATA_DIR / "citint"))
    parser.add_argument("--limit", type=int, default=0, help="first N citations only")
    args = parser.parse_args()
    backend = build_backend(load_judge_settings({}))
    citations = load_citations(Path(args.data))
    if args.limit:
        citations = citations[: args.limit]
    per_split: dict[str, collections.Counter] = {s: collections.Counter() for s in SPLITS}
    errors: list[dict] = []
    started = time.process_time()
    for citation in citations:
        counts = per_split[citation.split]
        counts["citations"] += 1
        try:
            verdict = backend.judge_sync(citation.request())
        except Exception as exc:  # counted: the point of the benchmark
            counts["exceptions"] += 1
            errors.append(
                {"split": citation.split, "id": citation.id, "error": repr(exc)[:300],
                 "where": traceback.format_exc(limit=-1).strip().splitlines()[-2].strip()}
            )  # fmt: skip
            continue
        counts[f"label:{verdict.label}"] += 1
        if "longer than the judge reads" in verdict.rationale:
            counts["claims_shortened"] += 1
    cpu = time.process_time() - started
    result = {
        "splits": {split: dict(counts) for split, counts in per_split.items()},
        "citations": len(citations),
        "exceptions": sum(c["exceptions"] for c in per_split.values()),
        "claims_shortened": sum(c["claims_shortened"] for c in per_split.values()),
        "cpu_s_per_citation": round(cpu / max(len(citations), 1), 4),
        "errors": errors[:20],
    }
    common.write_results("judge_inputs", result)
    for split, counts in per_split.items():
        print(
            f"{split}: {counts['citations']} citations, {counts['exceptions']} exceptions, "
            f"{counts['claims_shortened']} claims read shortened"
        )
    print(f"{result['cpu_s_per_citation']} CPU-s per citation")


if __name__ == "__main__":
    main()
