"""`citeproof-judge`: the judge worker."""

from __future__ import annotations

from citeproof.judge.service import JudgeService
from citeproof.worker_service import run_service


def main() -> None:
    run_service(JudgeService)


if __name__ == "__main__":
    main()
