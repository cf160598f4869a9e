"""`citeproof-parser`: the parse-stage worker process."""

from __future__ import annotations

import os

from citeproof.parser.service import ParseService
from citeproof.worker_service import run_service


def main() -> None:
    # Not a citeproof setting: the libraries this process loads (unstructured, huggingface_hub)
    # read it and send no telemetry.
    os.environ.setdefault("DO_NOT_TRACK", "1")
    run_service(ParseService)


if __name__ == "__main__":
    main()
