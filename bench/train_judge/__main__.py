"""Train the local judge: ``python -m bench.train_judge`` (``make train-judge``; docs/judge.md).

1. Split Citation-Integrity train by citing paper: a seeded 30% of the papers is kept for
   calibration (``citint.calibration_groups``); dev is never read.
2. ``--stage finetune``: fine-tune MiniLM-L6 as a two-headed cross-encoder (``multitask.py``) on
   the other papers' citations (the citing sentence without markers against every sentence of
   its cited document) and, per epoch, a seeded sample of the NLI pairs of the earlier judge
   (Check-COVID train less a held quarter of its abstracts, mined negatives, counterfactuals,
   HealthVer dev, COVID-Fact train).
3. ``--stage calibrate``: export the cross-encoder to ONNX int8 (or, ``--shipped-reader``, take
   the one the package ships), read every calibration example with it and with the second
   reader (the earlier Check-COVID sentence reader the package ships), and fit the aggregator
   over both, its temperature, the decision weights and the band limits out of fold on the
   calibration papers at pair and document level and Check-COVID's held training abstracts
   (``calibrate.py``); writes the model files into the judge package.
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
    checkcovid_pairs,
    counterfactual_pairs,
    covidfact_pairs,
    healthver_pairs,
    read_jsonl,
    split_abstracts,
)

SEED = 20261201
HELD_OUT_SHARE = 0.25
# Word pieces of one (claim, evidence) pair the reader reads, and of a long claim read from its
# start (the same limits as the shipped cross_encoder.py).
READER_MAX_TOKENS = 320
READER_SHORTENED_CLAIM_TOKENS = 128
# NLI pairs (Check-COVID, HealthVer, COVID-Fact, mined, counterfactual) shown per epoch beside
# every Citation-Integrity pair.
AUX_PER_EPOCH = 1500
CHECKCOVID_TRAIN = "covidCheck_train_composed+extracted.json"


def held_out_abstracts(claims: Path) -> set[str]:
    rows = read_jsonl(claims)
    return split_abstracts([r["cord_id"] for r in rows], HELD_OUT_SHARE, SEED)


def build_pairs(data: Path, log=print):
    from citeproof.devkit.minilm import CachedEmbedder, embed_texts

    claims = data / "checkcovid" / CHECKCOVID_TRAIN
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
    parser.add_argument("--stage", choices=("finetune", "calibrate", "all"), default="all")
    parser.add_argument("--data", type=Path, default=common.DATA_DIR)
    parser.add_argument(
        "--work-dir", type=Path, default=common.REPO_ROOT / "artifacts" / "judge-training"
    )
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument(
        "--aux-per-epoch", type=int, default=AUX_PER_EPOCH, help="NLI pairs shown per epoch"
    )
    parser.add_argument("--lr", type=float, default=5e-5)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--precisions", default="int8,fp32", help="exports measured at calibration")
    parser.add_argument(
        "--target-dir", type=Path, default=None, help="write the model here, not into the package"
    )
    parser.add_argument(
        "--shipped-reader",
        action="store_true",
        help="calibrate over the reader the package ships, not a checkpoint in --work-dir",
    )
    args = parser.parse_args()
    if not (args.data / "checkcovid").is_dir():
        print(f"training data not found under {args.data}", file=sys.stderr)
        return 2
    started = time.perf_counter()
    args.work_dir.mkdir(parents=True, exist_ok=True)
    if args.stage in ("finetune", "all"):
        from bench.train_judge.citint import (
            calibration_groups,
            citint_pairs,
            group_of,
            train_citations,
        )
        from bench.train_judge.multitask import finetune_multitask

        citations = train_citations(args.data)
        held = calibration_groups(citations, SEED)
        reader_citations = [c for c in citations if group_of(c) not in held]
        nli, by_origin = build_pairs(args.data) if args.aux_per_epoch else ([], {})
        by_origin["citint"] = len(reader_citations)
        (args.work_dir / "pairs.json").write_text(json.dumps(by_origin))
        finetune_multitask(
            citint_pairs(reader_citations),
            nli,
            args.work_dir,
            epochs=args.epochs,
            lr=args.lr,
            aux_per_epoch=args.aux_per_epoch,
            max_tokens=READER_MAX_TOKENS,
            shortened_tokens=READER_SHORTENED_CLAIM_TOKENS,
            seed=SEED,
            threads=args.threads,
        )
    if args.stage in ("calibrate", "all"):
        from bench.train_judge.calibrate import calibrate

        held = held_out_abstracts(args.data / "checkcovid" / CHECKCOVID_TRAIN)
        calibrate(
            args.data,
            args.work_dir,
            held,
            seed=SEED,
            threads=args.threads,
            target_dir=args.target_dir,
            precisions=tuple(args.precisions.split(",")),
            shipped_reader=args.shipped_reader,
        )
    print(f"done in {(time.perf_counter() - started) / 60:.1f} min")
    return 0


if __name__ == "__main__":
    sys.exit(main())
