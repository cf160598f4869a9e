"""Dockerfile invariants, .dockerignore matching and the compose checks."""

from __future__ import annotations

import copy
import http.server
import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "deploy" / "tools"))

from deploycheck import compose, dockerfiles
from deploycheck.dockerignore import DockerIgnore
from deploycheck.paths import DOCKERIGNORE, SERVICES

WORKER_DOCKERFILE = dockerfiles.dockerfile_for("parser").read_text(encoding="utf-8")


def test_instructions_join_continuations_and_skip_comments() -> None:
    text = '# c\nFROM a AS b\nRUN one \\\n    # inside\n    && two\nCMD ["x"]\n'
    instructions = dockerfiles.parse_instructions(text)
    assert [(i.keyword, i.arguments, i.line) for i in instructions] == [
        ("FROM", "a AS b", 2),
        ("RUN", "one && two", 3),
        ("CMD", '["x"]', 6),
    ]


@pytest.mark.parametrize("service", SERVICES)
def test_shipped_dockerfiles_keep_the_invariants(service: str) -> None:
    assert dockerfiles.check_invariants(dockerfiles.dockerfile_for(service), service) == []


TORCH_INDEX = "https://download.pytorch.org/whl/cpu"


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("USER 10001:10001", "USER root", "non-root USER"),
        ('ENTRYPOINT ["/usr/bin/tini", "--"]', "", "tini as PID 1"),
        ('CMD ["citeproof-parser"]', 'CMD ["citeproof-judge"]', "CMD must be"),
        (
            "COPY services/parser/",
            "COPY services/judge/ x/\nCOPY services/parser/",
            "exactly its own service package",
        ),
        (TORCH_INDEX, "https://pypi.org/simple", "needs torch"),
        ("COPY migrations/", "COPY no-such-dir/", "no-such-dir/ does not exist"),
        ("COPY migrations/", "COPY tests/", ".dockerignore keeps COPY source tests/ out"),
    ],
)
def test_broken_worker_dockerfile_is_reported(
    tmp_path: Path, old: str, new: str, expected: str
) -> None:
    assert old in WORKER_DOCKERFILE
    path = tmp_path / "parser.Dockerfile"
    path.write_text(WORKER_DOCKERFILE.replace(old, new), encoding="utf-8")
    messages = [f.message for f in dockerfiles.check_invariants(path, "parser")]
    assert any(expected in m for m in messages), messages


def test_api_image_must_not_install_torch(tmp_path: Path) -> None:
    api = dockerfiles.dockerfile_for("api").read_text(encoding="utf-8")
    path = tmp_path / "api.Dockerfile"
    path.write_text(
        api.replace("RUN pip install --constraint", "RUN pip install torch==2.13.0 --constraint")
    )
    messages = [f.message for f in dockerfiles.check_invariants(path, "api")]
    assert "the API image must not install torch" in messages


def test_api_image_must_listen_on_every_interface(tmp_path: Path) -> None:
    api = dockerfiles.dockerfile_for("api").read_text(encoding="utf-8")
    path = tmp_path / "api.Dockerfile"
    path.write_text(api.replace("CITEPROOF_API_HOST=0.0.0.0 ", ""))
    messages = [f.message for f in dockerfiles.check_invariants(path, "api")]
    assert "the runtime stage must set ENV CITEPROOF_API_HOST=0.0.0.0" in messages


def test_hadolint_passes_on_every_dockerfile_and_flags_a_bad_one(tmp_path: Path) -> None:
    for service in SERVICES:
        assert dockerfiles.run_hadolint(dockerfiles.dockerfile_for(service)) == []
    bad = tmp_path / "bad.Dockerfile"
    bad.write_text("FROM python:latest\nRUN apt-get install curl\n")
    rules = " ".join(f.message for f in dockerfiles.run_hadolint(bad))
    assert "DL3007" in rules  # :latest
    assert "DL3008" in rules  # unpinned apt package


def test_dockerignore_semantics() -> None:
    ignore = DockerIgnore("*\n!shared/\n**/__pycache__\n!keep/**/*.txt\n")
    assert ignore.is_included("shared/pyproject.toml")
    assert not ignore.is_included("shared/src/x/__pycache__/m.pyc")
    assert not ignore.is_included(".venv/bin/python")
    assert ignore.is_included("keep/a/b/c.txt")
    assert not ignore.is_included("keep/a/b/c.md")


def test_repository_dockerignore_keeps_the_context_small() -> None:
    ignore = DockerIgnore.from_file(DOCKERIGNORE)
    for needed in (
        "shared/pyproject.toml",
        "services/parser/pyproject.toml",
        "migrations/0001_initial.sql",
    ):
        assert ignore.is_included(needed)
    for unwanted in (
        ".venv/bin/python",
        ".git/HEAD",
        "tests/conftest.py",
        "bench/x.py",
        "services/api/src/x/__pycache__/a.pyc",
    ):
        assert not ignore.is_included(unwanted)


def test_compose_variables_must_say_required_or_default() -> None:
    text = "a: ${POSTGRES_PASSWORD:?x}\nb: ${BARE}\nc: ${LISTEN_DATABASE_URL:?y}\n"
    messages = [f.message for f in compose.check_variables(text)]
    assert "${BARE} has neither :? nor :-" in messages
    assert "LISTEN_DATABASE_URL must stay optional (${LISTEN_DATABASE_URL:-})" in messages
    # Escaped $$ belongs to the container's shell, not to compose.
    assert compose.check_variables("x: $${POSTGRES_USER}\n" + text.split("\n", 1)[0]) != []


def test_compose_config_needs_the_secret_and_resolves_with_it() -> None:
    without = compose.run_compose_config({})
    assert without.returncode != 0
    assert "POSTGRES_PASSWORD" in without.stderr
    resolved = compose.run_compose_config({"POSTGRES_PASSWORD": "pw"})
    assert resolved.returncode == 0, resolved.stderr
    config = json.loads(resolved.stdout)
    assert config["services"]["parser"]["environment"]["DATABASE_URL"] == (
        "postgresql://citeproof:pw@postgres:5432/citeproof"
    )
    assert compose.check_resolved(config) == []

    broken = copy.deepcopy(config)
    broken["services"]["judge"]["stop_grace_period"] = "30s"
    del broken["services"]["retriever"]["healthcheck"]
    broken["services"]["postgres"]["volumes"] = []
    messages = [f.message for f in compose.check_resolved(broken)]
    assert "stop_grace_period 30s must exceed the drain grace 60s" in messages
    assert "needs a healthcheck" in messages
    assert "needs a named volume for its data" in messages

    # The PostgreSQL 17-era mount point on an 18 image would leave the data on an anonymous volume.
    old_mount = copy.deepcopy(config)
    old_mount["services"]["postgres"]["volumes"][0]["target"] = "/var/lib/postgresql/data"
    messages = [f.message for f in compose.check_resolved(old_mount)]
    assert any("mount the volume there" in m for m in messages), messages


def test_compose_file_matches_the_compose_spec_schema() -> None:
    from deploycheck.yamlio import load_one

    document = load_one(compose.COMPOSE_FILE)
    assert compose.check_schema(document) == []
    document["services"]["api"]["stop_grace_periodd"] = "30s"
    assert compose.check_schema(document) != []


def test_container_healthcheck_script_reports_status() -> None:
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200 if self.path == "/healthz" else 503)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    script = str(dockerfiles.DOCKER_DIR / "healthcheck.py")
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:

        def probe(url: str) -> int:
            return subprocess.run([sys.executable, script, url], timeout=30, check=False).returncode

        assert probe(f"{base}/healthz") == 0
        assert probe(f"{base}/readyz") == 1
    finally:
        server.shutdown()
        server.server_close()
    assert probe(f"{base}/healthz") == 1  # nothing listens any more
