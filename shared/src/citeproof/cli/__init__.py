"""The `citeproof` command: run the stack locally, migrate, manage users and tokens, verify.

Each subcommand lives in its own module with a `register(subparsers)` function; adding a
command means adding a module to COMMAND_MODULES.
"""

from __future__ import annotations

import argparse
import importlib
import sys

COMMAND_MODULES = (
    "citeproof.cli._migrate",
    "citeproof.cli._config",
    "citeproof.cli._dev",
    "citeproof.cli._users",
    "citeproof.cli._verify",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="citeproof", description=__doc__.splitlines()[0])
    subparsers = parser.add_subparsers(dest="command", required=True)
    for module_name in COMMAND_MODULES:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:
                continue  # command not built yet in this checkout
            raise
        module.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    return int(args.handler(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
