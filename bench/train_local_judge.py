"""Train the offline local judge on Check-COVID train and write its model file.

    python bench/train_local_judge.py \
        --claims ../shared/data/checkcovid/covidCheck_train_composed+extracted.json \
        --corpus ../shared/data/checkcovid/corpus.json

The model file lands in the judge package (``models/local_judge.json``) unless ``--out`` says
otherwise; its ``training`` section holds the data hash and the out-of-fold metrics.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from citeproof.judge.local_model import save_model
from citeproof.judge.settings import DEFAULT_LOCAL_MODEL_PATH
from citeproof.judge.training import train

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "checkcovid"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--claims", type=Path, default=DATA / "covidCheck_train_composed+extracted.json"
    )
    parser.add_argument("--corpus", type=Path, default=DATA / "corpus.json")
    parser.add_argument("--out", type=Path, default=DEFAULT_LOCAL_MODEL_PATH)
    args = parser.parse_args()
    for path in (args.claims, args.corpus):
        if not path.exists():
            print(f"training data not found: {path}", file=sys.stderr)
            return 2
    started = time.perf_counter()
    model = train(args.claims, args.corpus)
    save_model(model, args.out)
    metrics = model.training["metrics"]
    print(json.dumps(metrics["out_of_fold"], indent=1))
    print(f"wrote {args.out} in {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
