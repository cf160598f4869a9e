"""The parsing child, which runs the libraries hostile files reach (pdfium, lxml, unstructured),
gets a scrubbed environment: no database URL, no API key, no secret of the worker. A code
execution bug in a parser library then finds nothing in the environment to reach the database
or the LLM with."""

from __future__ import annotations

from pathlib import Path

from citeproof.parser.sandbox import ParseSandbox
from citeproof.parser.settings import ParserSettings

SECRETS = {
    "DATABASE_URL": "postgresql://citeproof:hunter2@db/citeproof",
    "LISTEN_DATABASE_URL": "postgresql://citeproof:hunter2@db/citeproof",
    "CITEPROOF_JUDGE_LLM_API_KEY": "sk-secret",
    "CITEPROOF_EMBEDDINGS_API_KEY": "sk-secret-2",
    "AWS_SECRET_ACCESS_KEY": "aws-secret",
    "DATABASE_URL_FILE": "/run/secrets/database_url",
}


def _environment(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes()
    pairs = (item.split(b"=", 1) for item in raw.split(b"\0") if b"=" in item)
    return {k.decode(): v.decode(errors="replace") for k, v in pairs}


async def test_the_parsing_child_sees_no_secret_of_the_worker(monkeypatch):
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    sandbox = ParseSandbox(ParserSettings())
    try:
        await sandbox.warm_up()
        [child] = sandbox._idle
        environment = _environment(child.process.pid)
        parsed = await sandbox.parse(b"Plain text of a source.", "a.txt", "text/plain", "source")
    finally:
        sandbox.close()
    leaked = set(SECRETS) & set(environment)
    assert not leaked, f"the child inherited {sorted(leaked)}"
    assert not any("hunter2" in v or "sk-secret" in v for v in environment.values())
    assert parsed.text.startswith("Plain text")
