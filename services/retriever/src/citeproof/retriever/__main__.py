"""`citeproof-retriever`: the worker process that plans runs and retrieves evidence."""

from __future__ import annotations

from citeproof.retriever.service import RetrieverService
from citeproof.worker_service import run_service


def main() -> None:
    run_service(RetrieverService)


if __name__ == "__main__":
    main()
