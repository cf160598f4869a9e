"""`citeproof rules`: every finding rule (code, slug, default severity, what it attaches to,
name), the names `--fail-on`, `--disable`, `--severity` and the configuration file take."""

from __future__ import annotations

import argparse

from citeproof.cli._failon import accepted_sentence
from citeproof.pipeline import RULES


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "rules", help="list the finding rules (codes and slugs for --fail-on and --disable)"
    )
    parser.add_argument(
        "--explain", action="store_true", help="also print what each rule means and its fix"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    slug_width = max(len(rule.slug) for rule in RULES)
    for rule in RULES:
        print(f"{rule.code}  {rule.slug:<{slug_width}}  {rule.severity:<7}  {rule.subject:<8}  "
              f"{rule.name}")  # fmt: skip
        if getattr(args, "explain", False):
            print(f"       {rule.summary}\n       Fix: {rule.fix}")
    print(f"\n{accepted_sentence()}.")
    return 0
