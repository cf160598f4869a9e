"""Entry point of a parsing child process (started by `sandbox.ParseSandbox`)."""

from __future__ import annotations

import os
import sys
from multiprocessing.connection import Connection

from citeproof.parser.sandbox import child_main


def main() -> None:
    conn = Connection(int(sys.argv[1]))
    child_main(conn, os.environ["CITEPROOF_PARSER_CHILD_SETTINGS"].encode())


if __name__ == "__main__":
    main()
