"""`citeproof config`: every setting as a Markdown table (the README's configuration section)."""

from __future__ import annotations

import argparse
import importlib

from citeproof.settings import describe

# (module, struct) pairs of every settings struct; services add theirs here.
SETTINGS_STRUCTS = (
    ("citeproof.db.settings", "DatabaseSettings"),
    ("citeproof.queue.settings", "QueueSettings"),
    ("citeproof.obs.settings", "ObservabilitySettings"),
    ("citeproof.embeddings.settings", "EmbeddingSettings"),
    ("citeproof.parser.settings", "ParserSettings"),
    ("citeproof.retriever.settings", "RetrieverSettings"),
    ("citeproof.judge.settings", "JudgeSettings"),
    ("citeproof.api.settings", "ApiSettings"),
)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("config", help="print every setting as a Markdown table")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    print("| variable | default | meaning |")
    print("|---|---|---|")
    for module_name, struct_name in SETTINGS_STRUCTS:
        try:
            struct = getattr(importlib.import_module(module_name), struct_name)
        except (ModuleNotFoundError, AttributeError):
            continue
        for name, default, description in describe(struct):
            print(f"| `{name}` | `{default}` | {description} |")
    return 0
