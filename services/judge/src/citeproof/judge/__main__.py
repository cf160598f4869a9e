"""`citeproof-judge`: the judge worker."""

from __future__ import annotations

from citeproof.judge.backend import build_backend
from citeproof.judge.settings import load_judge_settings
from citeproof.judge.stage import JudgeStage
from citeproof.queue import run_worker


def main() -> None:
    settings = load_judge_settings()
    judge = JudgeStage(build_backend(settings))
    run_worker(service="judge", stages=[judge.stage()], capabilities=["judge"])


if __name__ == "__main__":
    main()
