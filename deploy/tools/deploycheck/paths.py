"""Where things live in the repository, relative to this file."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[3]
DEPLOY_DIR = REPO_ROOT / "deploy"
DOCKER_DIR = DEPLOY_DIR / "docker"
COMPOSE_FILE = DEPLOY_DIR / "compose.yaml"
K8S_DIR = DEPLOY_DIR / "k8s"
K8S_BASE = K8S_DIR / "base"
K8S_MONITORING = K8S_DIR / "monitoring"
K8S_OVERLAYS = K8S_DIR / "overlays"
SECRET_TEMPLATE = K8S_DIR / "secret.template.yaml"
PROMETHEUS_DIR = DEPLOY_DIR / "prometheus"
ALERT_RULES = PROMETHEUS_DIR / "alerts.yaml"
PROMETHEUS_CONFIG = PROMETHEUS_DIR / "prometheus.yml"
PROMETHEUS_RULE_CR = K8S_MONITORING / "prometheusrule.yaml"
DASHBOARD_CONFIGMAP = K8S_MONITORING / "grafana-dashboard.yaml"
DASHBOARD = DEPLOY_DIR / "grafana" / "citeproof-dashboard.json"
DOCKERIGNORE = REPO_ROOT / ".dockerignore"
OPERATIONS_DOC = REPO_ROOT / "docs" / "operations.md"
# npm packages (KEDA / Prometheus-operator validators) install here, never globally.
NODE_TOOLS_DIR = DEPLOY_DIR / ".tools"
CRD_VALIDATOR_SCRIPT = DEPLOY_DIR / "tools" / "validate_crds.mjs"

# The services that get an image, and the console script each image runs.
SERVICES = ("api", "parser", "retriever", "judge")
WORKER_SERVICES = ("parser", "retriever", "judge")


def venv_tool(name: str) -> str | None:
    """A console script installed next to the running interpreter, else one on PATH."""
    candidate = Path(sys.executable).parent / name
    if candidate.exists():
        return str(candidate)
    return shutil.which(name)


def rel(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(REPO_ROOT))
    except ValueError:
        return str(path)
