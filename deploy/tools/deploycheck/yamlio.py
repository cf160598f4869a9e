"""YAML loading shared by the checks: all documents of a file, empty ones dropped."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml


def load_documents(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        return [doc for doc in yaml.safe_load_all(handle) if doc is not None]


def load_one(path: Path) -> Any:
    with path.open(encoding="utf-8") as handle:
        return yaml.safe_load(handle)
