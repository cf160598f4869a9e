"""The previous local judge (trained on Check-COVID, shipped until issue 27), run from git history
so that every benchmark run measures it beside the current judge without shipping its files.

``verdicts(requests)`` extracts the judge and shared packages of ``PREVIOUS_JUDGE_COMMIT``
(``git archive``) into a temporary directory and runs them in a child interpreter whose import
path holds that tree instead of the working tree's packages; requests go in and verdicts come
out as JSON lines. Each answer has the shipped verdict's label and confidence and the judge's
probability of every label (its abstention thresholds withheld `supported` and `contradicted`
entirely, so nearly every verdict is `needs_review`).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Sequence
from io import BytesIO
from pathlib import Path
from typing import Final

import msgspec

from bench.common import REPO_ROOT
from citeproof.contracts.judging import JudgeRequest

# The last commit whose judge was the Check-COVID-trained reading judge (format 2).
PREVIOUS_JUDGE_COMMIT: Final = "f414d97a229e5207a4b91c995d422e2f140fd6f9"
PACKAGE_PATHS: Final = ("services/judge/src", "shared/src")

_CHILD: Final = r"""
import json, sys
tree = sys.argv[1]
sys.path[:] = [f"{tree}/services/judge/src", f"{tree}/shared/src"] + [
    p for p in sys.path if not (p.startswith(sys.argv[2]) and p.endswith("/src"))
]
from citeproof.contracts.judging import JudgeRequest, Passage
from citeproof.judge.backend import build_backend
from citeproof.judge.settings import load_judge_settings
backend = build_backend(load_judge_settings({}))
for line in sys.stdin:
    row = json.loads(line)
    request = JudgeRequest(
        claim=row["claim"], context=None, citation_key=row["citation_key"],
        passages=[Passage(**p) for p in row["passages"]],
    )
    verdict = backend.judge_sync(request)
    decision = backend.decide(request)
    print(json.dumps({"label": verdict.label, "confidence": verdict.confidence,
                      "probabilities": decision.probabilities, "model": backend.model}),
          flush=True)
"""


class PreviousAnswer(msgspec.Struct, frozen=True):
    label: str
    confidence: float
    probabilities: dict[str, float]
    model: str


def _extract(target: Path) -> None:
    archive = subprocess.run(
        ["git", "archive", "--format=tar", PREVIOUS_JUDGE_COMMIT, *PACKAGE_PATHS],
        cwd=REPO_ROOT,
        check=True,
        capture_output=True,
    ).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(target, filter="data")


def verdicts(requests: Sequence[JudgeRequest]) -> list[PreviousAnswer]:
    with tempfile.TemporaryDirectory(prefix="citeproof-previous-judge-") as tree:
        _extract(Path(tree))
        lines = "".join(
            json.dumps(
                {
                    "claim": r.claim,
                    "citation_key": r.citation_key,
                    "passages": [msgspec.to_builtins(p) for p in r.passages],
                }
            )
            + "\n"
            for r in requests
        )
        # The working tree's packages are dropped from the child's path (they are on it as
        # editable installs), so `citeproof` resolves to the old tree only.
        done = subprocess.run(
            [sys.executable, "-c", _CHILD, tree, str(REPO_ROOT) + "/"],
            input=lines,
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(f"previous judge failed: {done.stderr[-2000:]}")
        return [msgspec.json.decode(line, type=PreviousAnswer) for line in done.stdout.splitlines()]
