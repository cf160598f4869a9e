"""The `citeproof` command: check a thesis, run the stack locally, migrate, manage users and tokens.

Each subcommand lives in its own module with a `register(subparsers)` function; adding a
command means adding a module to COMMAND_MODULES.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import warnings

import msgspec

COMMAND_MODULES = (
    "citeproof.cli._migrate",
    "citeproof.cli._config",
    "citeproof.cli._dev",
    "citeproof.cli._users",
    "citeproof.cli._check",
    "citeproof.cli._rules",
    "citeproof.cli._serve",
    "citeproof.cli._retractions",
)


def build_parser() -> argparse.ArgumentParser:
    from citeproof.version import version

    parser = argparse.ArgumentParser(prog="citeproof", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"citeproof {version()}")
    subparsers = parser.add_subparsers(dest="command", required=True)
    for module_name in COMMAND_MODULES:
        importlib.import_module(module_name).register(subparsers)
    return parser


# A command's stdout is for its result (a token, a report); library logs go to stderr, and
# below warning only when the person asked for them.
CLI_LOG_LEVEL = "warning"
LOG_LEVEL_ENV = "CITEPROOF_LOG_LEVEL"


def _configure_cli_logging() -> None:
    from citeproof.obs.logs import configure_logging
    from citeproof.obs.settings import ObservabilitySettings
    from citeproof.settings import load

    settings = load(ObservabilitySettings)
    if not os.environ.get(LOG_LEVEL_ENV):
        settings = msgspec.structs.replace(settings, log_level=CLI_LOG_LEVEL)
    configure_logging("cli", settings)


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line as a namespace. A command may take words argparse left over (it stops
    filling a `nargs="*"` positional at the first option: `check T --bib L S` leaves `S`)."""
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    absorb = getattr(args, "absorb_extra", None)
    if extra and (absorb is None or not absorb(args, extra)):
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    return args


def main(argv: list[str] | None = None) -> int:
    # The embedded PostgreSQL's wheel imports platformdirs, which warns about an unset
    # XDG_RUNTIME_DIR (containers, CI) on every command; nothing here uses that directory.
    warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR is not set")
    args = parse(argv)
    _configure_cli_logging()
    return int(args.handler(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
