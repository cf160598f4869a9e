"""Train the local judge: ``python -m bench.train_judge`` (``make train-judge``).

1. Split Check-COVID train by abstract: a seeded quarter is held out for calibration.
2. Build sentence-level pairs from the rest (+ mined negatives, counterfactuals, HealthVer dev,
   COVID-Fact train) and fine-tune the cross-encoder (``--stage finetune``).
3. ``--stage twins`` (after 2): twin training (bench/train_judge/contrast.py) from the last epoch.
4. ``--stage calibrate`` (after 2 or 3): export the cross-encoder to ONNX int8 into the judge
   package, and fit the aggregation model, its temperature and abstention thresholds on the
   held-out quarter at document level (bench/train_judge/calibrate.py).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

from bench import common
from bench.train_judge.data import (
    UNSUPPORTED_ID,
    checkcovid_pairs,
    counterfactual_pairs,
    covidfact_pairs,
    healthver_pairs,
    read_jsonl,
    split_abstracts,
)

SEED = 20261201
HELD_OUT_SHARE = 0.25


def held_out_abstracts(claims: Path) -> set[str]:
    rows = read_jsonl(claims)
    return split_abstracts([r["cord_id"] for r in rows], HELD_OUT_SHARE, SEED)


def build_pairs(data: Path, log=print):
    from citeproof.devkit.minilm import CachedEmbedder, embed_texts

    claims = data / "checkcovid" / "covidCheck_train_composed+extracted.json"
    rows = read_jsonl(claims)
    corpus = {a["cord_id"]: a for a in read_jsonl(data / "checkcovid" / "corpus.json")}
    held = held_out_abstracts(claims)
    train_rows = [r for r in rows if r["cord_id"] not in held]
    # Mined mis-citations come from training abstracts only, so no held-out text is seen.
    train_corpus = {k: v for k, v in corpus.items() if k not in held}
    rng = random.Random(SEED)
    embed = CachedEmbedder(embed_texts)
    cc = checkcovid_pairs(train_rows, train_corpus, embed, rng)
    hv = healthver_pairs(data / "nli" / "healthver_dev.csv")
    cf = covidfact_pairs(data / "nli" / "covidfact_rte_train.tsv")
    counter = counterfactual_pairs(
        [p for p in cc if p.origin == "checkcovid"] + [p for p in hv if p.label == 0], rng
    )
    pairs = cc + counter + hv + cf
    by_origin: dict[str, int] = {}
    for p in pairs:
        by_origin[p.origin] = by_origin.get(p.origin, 0) + 1
    log(
        f"held-out abstracts {len(held)}; train rows {len(train_rows)}; pairs by origin {by_origin}"
    )
    return pairs, by_origin


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stage", choices=("finetune", "twins", "calibrate", "all"), default="all")
    parser.add_argument("--data", type=Path, default=common.DATA_DIR)
    parser.add_argument(
        "--work-dir", type=Path, default=common.REPO_ROOT / "artifacts" / "judge-training"
    )
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--twin-epochs", type=int, default=1)
    parser.add_argument("--twin-lr", type=float, default=3e-5)
    parser.add_argument("--lr", type=float, default=5e-5)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    if not (args.data / "checkcovid").is_dir():
        print(f"training data not found under {args.data}", file=sys.stderr)
        return 2
    started = time.perf_counter()
    args.work_dir.mkdir(parents=True, exist_ok=True)
    if args.stage in ("finetune", "all"):
        from bench.train_judge.finetune import finetune

        pairs, by_origin = build_pairs(args.data)
        (args.work_dir / "pairs.json").write_text(json.dumps(by_origin))
        finetune(
            pairs, args.work_dir, epochs=args.epochs, lr=args.lr, seed=SEED, threads=args.threads
        )
    if args.stage in ("twins", "all"):
        import random as _random

        from bench.train_judge.contrast import train_twins, twins_from_pairs

        pairs, _ = build_pairs(args.data)
        twins = twins_from_pairs(pairs, _random.Random(SEED))
        last = max(args.work_dir.glob("epoch*"), key=lambda p: int(p.name[5:]))
        neutrals = [p for p in pairs if p.label == UNSUPPORTED_ID]
        train_twins(
            last,
            twins,
            neutrals,
            args.work_dir,
            epochs=args.twin_epochs,
            lr=args.twin_lr,
            seed=SEED,
            threads=args.threads,
        )
    if args.stage in ("calibrate", "all"):
        from bench.train_judge.calibrate import calibrate

        calibrate(args.data, args.work_dir, held_out_abstracts, seed=SEED)
    print(f"done in {(time.perf_counter() - started) / 60:.1f} min")
    return 0


if __name__ == "__main__":
    sys.exit(main())
