"""KEDA and Prometheus-operator resources, validated by the npm packages' schema validators."""

from __future__ import annotations

import json
import shutil
import subprocess
from typing import Any

from .paths import CRD_VALIDATOR_SCRIPT, NODE_TOOLS_DIR

CUSTOM_GROUPS = {"keda.sh", "monitoring.coreos.com"}


class ValidatorUnavailable(RuntimeError):
    """node or the npm packages are missing (make deploy-tools installs them)."""


def is_custom(resource: dict[str, Any]) -> bool:
    return str(resource.get("apiVersion", "")).split("/")[0] in CUSTOM_GROUPS


def validate(resources: list[dict[str, Any]]) -> list[str | None]:
    """One entry per resource: None when valid, else the validator's message."""
    if not resources:
        return []
    node = shutil.which("node")
    node_modules = NODE_TOOLS_DIR / "node_modules"
    if node is None or not (node_modules / "@kubernetes-models").is_dir():
        raise ValidatorUnavailable(
            f"node and {node_modules}/@kubernetes-models are needed (run make deploy-tools)"
        )
    result = subprocess.run(
        [node, str(CRD_VALIDATOR_SCRIPT), str(node_modules)],
        input=json.dumps(resources),
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        raise ValidatorUnavailable(result.stderr.strip() or f"exit code {result.returncode}")
    return [None if entry["ok"] else entry["error"] for entry in json.loads(result.stdout)]
